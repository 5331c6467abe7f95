"""Outputs of ``sorteio simulate --per-card`` (see ``percard``): the ranked table on the
terminal, ``percard.csv``, ``percard.json`` and a self-contained ``report.html`` whose chart
ranks the cards by how much their absence moves the catastrophe rate."""

import csv
import html
import json
from pathlib import Path
from typing import List

from rich.console import Console
from rich.table import Table

from ..wording import Names
from .outcomes import SweepResult
from .percard import CardEffect, card_effects

SHOWN = 25  # rows on the terminal; every card is in the files


def per_card_json(result: SweepResult) -> dict:
    """Everything measured, JSON-safe: the baseline and one ranked row per card."""
    base = result.baseline
    return {
        "deck": result.deck_name, "matches": result.matches, "seed": result.seed,
        "policy": result.policy, "kernel": result.kernel, "interrupted": result.interrupted,
        "cards_total": max(0, result.total_scenarios - 1),
        "baseline": None if base is None else base.row(),
        "cards": [e.row() for e in card_effects(result)],
    }


def _fmt(x: float) -> str:
    return f"{x:+.1f}"


def print_per_card(result: SweepResult, elapsed: float, out: Console, kernel: str,
                   names: Names) -> None:
    """The ranked table on the terminal, modes and meters by their display names (issue 8)."""
    effects = card_effects(result)
    base = result.baseline
    out.print(f"{len(effects)} carta(s) × {result.matches} partidas sem a carta, seed "
              f"{result.seed}, jogador {result.policy} — {elapsed:.1f} s, {kernel}")
    if base is None:
        out.print("nenhum cenário terminou")
        return
    lo, hi = base.interval
    out.print(f"baseline (baralho inteiro): catástrofe {100 * base.rate:.1f}% "
              f"(IC 95% {100 * lo:.1f}–{100 * hi:.1f}%)")
    if not effects:
        return
    meters = list(effects[0].meters)
    table = Table("#", "carta", "modo", "catástr. sem", "Δ pts", "IC 95%", "sorteios/partida",
                  *(f"Δ {names.meter(m)}" for m in meters),
                  title="cartas por efeito na catástrofe (Δ = sem a carta − baseline)")
    for rank, e in enumerate(effects[:SHOWN], 1):
        d, dlo, dhi = e.diff_pp
        table.add_row(str(rank), e.card_id, names.mode(e.mode), f"{e.catastrophe_pct:.1f}%",
                      _fmt(d),
                      f"{dlo:+.1f}…{dhi:+.1f}", f"{e.draws_per_match:.2f}",
                      *(_fmt(e.meters[m][0]) for m in meters))
    out.print(table)
    if len(effects) > SHOWN:
        out.print(f"… e mais {len(effects) - SHOWN} carta(s) (todas em --json e --out)")
    out.print("Δ > 0: a partida piora sem a carta (ela protege); Δ < 0: melhora. Medidores: "
              "diferença da média final.", soft_wrap=True)


def write_per_card(result: SweepResult, folder: Path, names: Names) -> None:
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
    interval; red where the interval excludes 0."""
    from .report import _plain, _png, _pyplot

    plt = _pyplot()
    n = max(1, len(effects))
    fig, ax = plt.subplots(figsize=(7.5, 0.9 + 0.19 * n))
    ys = list(range(len(effects)))[::-1]
    d = [e.diff_pp[0] for e in effects]
    err = [[max(0.0, e.diff_pp[0] - e.diff_pp[1]) for e in effects],
           [max(0.0, e.diff_pp[2] - e.diff_pp[0]) for e in effects]]
    colors = ["C3" if e.diff_pp[1] > 0 or e.diff_pp[2] < 0 else "C0" for e in effects]
    ax.barh(ys, d, xerr=err, color=colors, alpha=0.8, capsize=2)
    ax.set_yticks(ys)
    ax.set_yticklabels([_plain(e.card_id) for e in effects], fontsize=7)
    ax.axvline(0, color="grey", lw=1)
    ax.set_xlabel("Δ catastrophe rate without the card (points), 95% CI")
    ax.grid(axis="x", alpha=0.3)
    return _png(fig)


def write_per_card_html(result: SweepResult, path: Path, names: Names) -> None:
    esc = html.escape
    effects = card_effects(result)
    base = result.baseline
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>sorteio per card — "
             f"{esc(result.deck_name)}</title></head><body>",
             f"<h1>Sorteio: each card of “{esc(result.deck_name)}”</h1>",
             f"<p>{len(effects)} card(s) × {result.matches} matches without the card, against "
             f"the whole deck on the same seeds (seed {result.seed}, player "
             f"<b>{esc(result.policy)}</b>, kernel {esc(result.kernel)}).</p>"]
    if result.interrupted:
        parts.append("<p><b>Interrupted:</b> only the cards finished before the stop are "
                     "shown.</p>")
    if base is None:
        parts.append("<p>No scenario finished.</p></body></html>")
        path.write_text("".join(parts), encoding="utf-8")
        return
    lo, hi = base.interval
    parts.append(f"<p>Whole deck: catastrophe {100 * base.rate:.2f}% (95% CI {100 * lo:.2f}–"
                 f"{100 * hi:.2f}).</p>")
    parts.append("<p>Δ = rate without the card − rate of the whole deck, paired match by match. "
                 "Positive (the match goes worse without it): the card protects; negative: it "
                 "hurts. Red bars: the 95% interval excludes 0 — with many cards about 1 in 20 "
                 "does so by chance, so rerun a surprising card with more --matches.</p>")
    parts.append("<h2>Cards ranked by their effect on the catastrophe rate</h2>")
    parts.append(f"<img src='data:image/png;base64,{plot_per_card(effects)}'>")
    meters = list(effects[0].meters) if effects else []
    parts.append("<h2>Table</h2><table border='1' cellspacing='0' cellpadding='3'><tr>")
    cols = ["#", "card", "mode", "catastrophe without", "Δ pts", "95% CI", "draws/match",
            *(f"Δ end {names.meter(m)}" for m in meters)]
    parts.extend(f"<th>{esc(c)}</th>" for c in cols)
    parts.append("</tr>")
    for rank, e in enumerate(effects, 1):
        cells = [str(rank), e.card_id, names.mode(e.mode), f"{e.catastrophe_pct:.2f}%",
                 f"{e.diff_pp[0]:+.2f}", f"{e.diff_pp[1]:+.2f} … {e.diff_pp[2]:+.2f}",
                 f"{e.draws_per_match:.3f}",
                 *(f"{e.meters[m][0]:+.2f} ({e.meters[m][1]:+.1f}…{e.meters[m][2]:+.1f})"
                   for m in meters)]
        parts.append("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in cells) + "</tr>")
    parts.append("</table></body></html>")
    path.write_text("".join(parts), encoding="utf-8")
