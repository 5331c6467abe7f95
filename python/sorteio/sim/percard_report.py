"""Outputs of ``sorteio simulate --per-card`` (see ``percard_study``): the ranked table on the
terminal with the answer in one sentence, ``percard.csv``, ``percard.json`` and a self-contained
``report.html`` whose chart ranks the cards by how much their absence moves the catastrophe rate,
the cards told from chance (Benjamini-Hochberg) in red."""

import csv
import html
import json
from pathlib import Path
from typing import TYPE_CHECKING, List

from ..i18n import _, current
from ..wording import Names
from .percard import DRAW, CardEffect
from .percard_study import PerCardResult

if TYPE_CHECKING:  # rich is the CLI's ("cli" extra): the bridges' Pythons lack it
    from rich.console import Console

SHOWN = 25  # rows on the terminal; every card is in the files


def per_card_json(result: PerCardResult) -> dict:
    """Everything measured, JSON-safe: the study's settings, the baseline, the answer and one
    ranked row per card (with its ``verdict`` sentence)."""
    base = result.baseline
    return {
        "deck": result.deck_name, "seed": result.seed, "policy": result.policy,
        "kernel": result.kernel, "interrupted": result.interrupted,
        "precision_half_width_pp": result.half_width_pp, "max_matches": result.max_matches,
        "fdr": result.fdr, "method": "benjamini-hochberg", "rounds": result.rounds,
        "matches_played": result.matches_played, "draw": DRAW,
        "matches_simulated": result.matches_simulated, "cards_total": result.cards_total,
        "cards_flagged": len(result.flagged),
        "summary": result.summary() if result.effects else None,
        "baseline": None if base is None else base.row(),
        "cards": [e.row() for e in result.effects],
    }


def _setup_line(result: PerCardResult) -> str:
    return _("{cards} card(s), seed {seed}, player {policy}: up to ±{half:g} point (95% CI) per "
             "card, at most {most} matches per card; {played} matches in {rounds} "
             "round(s)").format(cards=result.cards_total, seed=result.seed, policy=result.policy,
                                half=result.half_width_pp, most=result.max_matches,
                                played=result.matches_played, rounds=result.rounds)


def print_per_card(result: PerCardResult, elapsed: float, out: "Console", kernel: str,
                   names: Names) -> None:
    """The ranked table on the terminal, modes and meters by their display names (issue 8)."""
    from rich.table import Table
    from rich.text import Text

    effects = result.effects
    base = result.baseline
    out.print(Text(f"{_setup_line(result)} — {elapsed:.1f} s, {kernel}"), soft_wrap=True)
    if base is None:
        out.print(_("no round finished"))
        return
    lo, hi = base.interval
    out.print(_("baseline (whole deck): catastrophe {rate:.2f}% (95% CI {low:.2f}–{high:.2f}%) "
                "in {matches} matches").format(rate=100 * base.rate, low=100 * lo,
                                               high=100 * hi, matches=base.tally.matches))
    meters = list(effects[0].meters) if effects else []
    table = Table("#", _("card"), _("mode"), _("matches"), _("Δ pts"), _("95% CI"), "q (BH)",
                  _("beyond chance?"), _("draws/match"), *(f"Δ {names.meter(m)}" for m in meters),
                  title=_("cards by effect on catastrophe (Δ = without the card − baseline)"))
    yes, no = _("yes"), _("no")
    for rank, e in enumerate(effects[:SHOWN], 1):
        d, dlo, dhi = e.diff_pp
        told = Text(yes, style="red") if e.flagged else Text(no)
        table.add_row(str(rank), Text(e.card_id), Text(names.mode(e.mode)), str(e.matches),
                      f"{d:+.2f}", f"{dlo:+.2f}…{dhi:+.2f}", f"{e.q_value:.3g}", told,
                      f"{e.draws_per_match:.2f}", *(f"{e.meters[m][0]:+.1f}" for m in meters))
    out.print(table)
    if len(effects) > SHOWN:
        out.print(_("… and {n} more card(s) (all in --json and --out)").format(
            n=len(effects) - SHOWN))
    out.print(_("Δ > 0: the match goes worse without the card (it protects); Δ < 0: better. "
                "'beyond chance? no': the card's effect cannot be told from chance "
                "(Benjamini-Hochberg, q > {fdr:g}). Meters: difference of the final "
                "mean.").format(fdr=result.fdr), soft_wrap=True)
    out.print(Text(result.summary(), style="bold"), soft_wrap=True)


def write_per_card(result: PerCardResult, folder: Path, names: Names) -> None:
    """``percard.csv`` (one ranked row per card), ``percard.json`` and ``report.html``."""
    data = per_card_json(result)
    rows = data["cards"]
    with open(folder / "percard.csv", "w", newline="", encoding="utf-8") as fh:
        if rows:
            writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    (folder / "percard.json").write_text(json.dumps(data, ensure_ascii=False, indent=1),
                                         encoding="utf-8")
    write_per_card_html(result, folder / "report.html", names)


def plot_per_card(effects: List[CardEffect]) -> str:
    """Horizontal bars, one per card in rank order: Δ catastrophe (points) with its 95%
    interval; red where the card is told from chance (Benjamini-Hochberg)."""
    from .report import _plain, _png, _pyplot

    plt = _pyplot()
    n = max(1, len(effects))
    fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.19 * n))
    ys = list(range(len(effects)))[::-1]
    d = [e.diff_pp[0] for e in effects]
    err = [[max(0.0, e.diff_pp[0] - e.diff_pp[1]) for e in effects],
           [max(0.0, e.diff_pp[2] - e.diff_pp[0]) for e in effects]]
    colors = ["C3" if e.flagged else "C0" for e in effects]
    ax.barh(ys, d, xerr=err, color=colors, alpha=0.8, capsize=2)
    ax.set_yticks(ys)
    ax.set_yticklabels([_plain(e.card_id) for e in effects], fontsize=7)
    ax.axvline(0, color="grey", lw=1)
    ax.set_xlabel(_("Δ catastrophe rate without the card (points), 95% CI; red: told from "
                    "chance (BH)"))
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


def write_per_card_html(result: PerCardResult, path: Path, names: Names) -> None:
    esc = html.escape
    effects = result.effects
    base = result.baseline
    parts = [f"<!doctype html><html lang='{current()}'><head><meta charset='utf-8'><title>"
             + esc(_("sorteio per card — {deck}").format(deck=result.deck_name))
             + "</title></head><body>",
             "<h1>" + esc(_("Sorteio: each card of “{deck}”").format(deck=result.deck_name))
             + "</h1>",
             "<p>" + esc(_("{setup} (kernel {kernel}). Each card's deck plays the same seeds as "
                           "the whole deck, paired match by match, until the 95% interval of "
                           "its Δ reaches the stated half-width or the cap.").format(
                               setup=_setup_line(result), kernel=result.kernel)) + "</p>"]
    if result.interrupted:
        parts.append("<p>" + esc(_("Interrupted: only the finished rounds are shown.")) + "</p>")
    if base is None:
        parts.append("<p>" + esc(_("No round finished.")) + "</p></body></html>")
        path.write_text("".join(parts), encoding="utf-8")
        return
    lo, hi = base.interval
    parts.append("<p>" + esc(_("Whole deck: catastrophe {rate:.2f}% (95% CI {low:.2f}–{high:.2f})"
                               " over {matches} matches.").format(
        rate=100 * base.rate, low=100 * lo, high=100 * hi, matches=base.tally.matches)) + "</p>")
    parts.append(f"<p><b>{esc(result.summary())}</b></p>")
    parts.append("<p>" + esc(_(
        "Δ = rate without the card − rate of the whole deck on the same matches. Positive (the "
        "match goes worse without it): the card protects; negative: it hurts. Red: told from "
        "chance — Benjamini-Hochberg over all {cards} cards keeps the expected share of chance "
        "findings among the red ones at {percent:g}% (q ≤ {fdr:g}).").format(
            cards=len(effects), percent=100 * result.fdr, fdr=result.fdr)) + "</p>")
    parts.append("<h2>" + esc(_("Cards ranked by their effect on the catastrophe rate"))
                 + "</h2>")
    parts.append(f"<img src='data:image/png;base64,{plot_per_card(effects)}'>")
    meters = list(effects[0].meters) if effects else []
    parts.append("<h2>" + esc(_("Table"))
                 + "</h2><table border='1' cellspacing='0' cellpadding='3'><tr>")
    cols = ["#", _("card"), _("mode"), _("matches"), _("catastrophe without"), _("Δ pts"),
            _("95% CI"), "q (BH)", _("verdict"), _("draws/match"),
            *(_("Δ end {meter}").format(meter=names.meter(m)) for m in meters)]
    parts.extend(f"<th>{esc(c)}</th>" for c in cols)
    parts.append("</tr>")
    for rank, e in enumerate(effects, 1):
        cells = [str(rank), e.card_id, names.mode(e.mode), str(e.matches),
                 f"{e.catastrophe_pct:.2f}%", f"{e.diff_pp[0]:+.2f}",
                 f"{e.diff_pp[1]:+.2f} … {e.diff_pp[2]:+.2f}", f"{e.q_value:.3g}", e.verdict(),
                 f"{e.draws_per_match:.3f}",
                 *(f"{e.meters[m][0]:+.2f} ({e.meters[m][1]:+.1f}…{e.meters[m][2]:+.1f})"
                   for m in meters)]
        style = " style='color:#b00'" if e.flagged else ""
        parts.append(f"<tr{style}>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
    parts.append("</table></body></html>")
    path.write_text("".join(parts), encoding="utf-8")
