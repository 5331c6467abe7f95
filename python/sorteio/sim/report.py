"""Sweep outputs for designers: a CSV (one row per scenario) and a self-contained HTML report.

The HTML file embeds its plots as SVG data (matplotlib, the ``report`` extra), so it can be mailed
or attached to a ticket as one file. Plots: catastrophe rate per parameter value with its 95%
interval (GDD 06 §7's 4-point band around the baseline), draw frequency per card and per mode, and
the meters at each year's closing.

Drawing is most of a report's cost (issue 16: 2.5 s of CPU for the §7 sweep's five plots as PNG,
~0.6 s as drawn here), so the plots are vector figures drawn once: ``matplotlib.figure.Figure``
without pyplot or a raster backend, SVG with its text kept as text (no glyph outlines, no PNG
compression), and margins set in inches instead of ``bbox_inches="tight"`` (which lays every
figure out twice). What is left is mostly axes and ticks (each costs more than what it shows):
the meters share one axes per 8, the card bars are one collection with their ids as text.
``benchmarks/bench_report.py`` prints the breakdown.
"""

import base64
import contextlib
import csv
import html
import io
import json
import math
from pathlib import Path
from typing import Dict, List, Optional, Tuple

from ..errors import SorteioError
from ..i18n import _, current
from ..wording import Names
from .outcomes import CATASTROPHE_TOLERANCE_PP, ScenarioResult, SweepResult
from .stats import wilson


def csv_columns(result: ScenarioResult) -> List[str]:
    return list(result.row())


def write_csv(sweep: SweepResult, path: Path) -> None:
    """Every finished scenario, in scenario order, one row each (``ScenarioResult.row``)."""
    rows = [r.row() for r in sweep.scenarios]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        if not rows:
            return
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


class CsvAppender:
    """Writes rows as scenarios finish, each row written whole at once: a killed sweep keeps its
    finished rows. When a write fails (a full disk) the file is cut back to its last whole row
    and ``SorteioError`` is raised; ``close`` never raises. (``write_csv`` rewrites the file in
    scenario order at the end.)"""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fh: Optional[io.FileIO] = None
        self._fields: Optional[List[str]] = None
        self._good = 0  # bytes of whole rows in the file

    def add(self, result: ScenarioResult) -> None:
        row = result.row()
        text = io.StringIO()
        writer = csv.DictWriter(text, fieldnames=self._fields or list(row))
        if self._fields is None:
            writer.writeheader()
        writer.writerow(row)
        data = text.getvalue().encode("utf-8")
        try:
            if self._fh is None:
                self._fh = io.FileIO(self.path, "w")
                self._fields = list(row)
            written = 0
            while written < len(data):
                written += self._fh.write(data[written:]) or 0
            self._good += len(data)
        except OSError as exc:  # e.g. the disk filled up during the sweep
            self._cut_back()
            raise SorteioError(_("{path}: cannot write: {reason}; the scenarios written before "
                                 "are kept").format(path=self.path,
                                                    reason=exc.strerror or exc)) from None

    def _cut_back(self) -> None:
        if self._fh is None:
            return
        with contextlib.suppress(OSError):
            self._fh.truncate(self._good)

    def close(self) -> None:
        if self._fh is not None:
            with contextlib.suppress(OSError):  # unbuffered: nothing left to write or to fail
                self._fh.close()
            self._fh = None


def sweep_json(sweep: SweepResult, names: Optional[Names] = None) -> dict:
    """Everything the sweep measured, JSON-safe (the ``--json`` output and ``sweep.json``).
    Rows are keyed by ids; with ``names`` (``Names.of(deck)``) a ``names`` entry maps the meter
    and mode ids to their display names, for a UI that labels its charts."""
    out = {
        "deck": sweep.deck_name,
        "matches": sweep.matches,
        "seed": sweep.seed,
        "policy": sweep.policy,
        "kernel": sweep.kernel,
        "parameters": sweep.names,
        "interrupted": sweep.interrupted,
        "scenarios_total": sweep.total_scenarios,
        "scenarios": [],
    }
    for r in sweep.scenarios:
        row = r.row()
        row["never_drawn"] = r.never_drawn()
        row["card_draws"] = {c: r.tally.card_draws[i] for i, c in enumerate(r.card_ids)
                             if r.playable[i]}
        row["mode_draws_per_match"] = r.mode_frequency()
        row["meters_by_year"] = {m: [{"year": y + 1, "mean": None if math.isnan(mean) else mean,
                                      "sd": sd, "matches": n}
                                     for y, (mean, sd, n) in enumerate(rows)]
                                 for m, rows in r.trajectories().items()}
        out["scenarios"].append(row)
    if names is not None:
        out["names"] = {"medidores": names.meters, "modos": names.modes, "atores": names.actors}
    return out


def write_json(sweep: SweepResult, path: Path, names: Optional[Names] = None) -> None:
    path.write_text(json.dumps(sweep_json(sweep, names), ensure_ascii=False, indent=1),
                    encoding="utf-8")


# -- plots ---------------------------------------------------------------------------------------

def require_matplotlib() -> None:
    """Raise ``SorteioError`` (with the install hint) when matplotlib is missing. Only looks:
    matplotlib is imported when the plots are drawn (it is ~0.5 s of CPU to import)."""
    import importlib.util

    if importlib.util.find_spec("matplotlib") is None:
        raise SorteioError(_("the HTML report needs matplotlib: pip install 'sorteio[report]'"))


def _figure(width: float, height: float, **subplots):
    """A matplotlib ``Figure`` (no pyplot: no global figure list, no backend to pick) and its
    axes grid (``Figure.subplots``, always 2-D)."""
    try:
        from matplotlib.figure import Figure
    except ImportError:  # pragma: no cover - depends on the environment
        raise SorteioError(_(
            "the HTML report needs matplotlib: pip install 'sorteio[report]'")) from None
    import matplotlib

    fig = Figure(figsize=(width, height))
    # A fixed title height: by default every draw measures each axes' ticks to lift its title
    # above them (a quarter of the meters-by-year figure's cost); these axes have none on top.
    with matplotlib.rc_context({"axes.titley": 1.0}):
        return fig, fig.subplots(squeeze=False, **subplots)


def _margins(fig, left: float = 0.75, right: float = 0.2, bottom: float = 0.6,
             top: float = 0.3, **space) -> None:
    """Margins in inches (what ``bbox_inches="tight"`` would find, without drawing twice)."""
    w, h = fig.get_size_inches()
    fig.subplots_adjust(left=min(0.45, left / w), right=max(0.55, 1 - right / w),
                        bottom=min(0.6, bottom / h), top=max(0.4, 1 - top / h), **space)


def _label_inches(labels, size: float) -> float:
    """About how long the longest label is, in inches, at ``size`` points."""
    return max((len(t) for t in labels), default=0) * size * 0.62 / 72


def _svg(fig) -> str:
    """The figure as base64 SVG, its text as text (``svg.fonttype`` none)."""
    import matplotlib

    buf = io.BytesIO()
    with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "sorteio"}):
        fig.savefig(buf, format="svg")
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - depends on the environment
        raise SorteioError(_(
            "the HTML report needs matplotlib: pip install 'sorteio[report]'")) from None
    return plt


def _png(fig) -> str:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=110, bbox_inches="tight")
    _pyplot().close(fig)  # pyplot keeps every open figure alive otherwise
    return base64.b64encode(buf.getvalue()).decode("ascii")


def _per_value(sweep: SweepResult, name: str) -> Tuple[List[int], List[Tuple[float, float, float]],
                                                        List[Optional[Tuple[float, float, float]]]]:
    """For each value of ``name``: pooled rate over every scenario with that value (with its
    Wilson interval), and the one-at-a-time rate (other parameters at the baseline) if run."""
    base = sweep.baseline
    values = sorted({r.scenario.params[name] for r in sweep.scenarios})
    pooled, alone = [], []
    for v in values:
        rows = [r for r in sweep.scenarios if r.scenario.params[name] == v]
        k = sum(r.tally.catastrophes for r in rows)
        n = sum(r.tally.matches for r in rows)
        lo, hi = wilson(k, n)
        pooled.append((k / n if n else 0.0, lo, hi))
        single = None
        if base is not None:
            for r in rows:
                if all(r.scenario.params[o] == base.scenario.params[o]
                       for o in r.scenario.params if o != name):
                    single = (r.rate, *r.interval)
        alone.append(single)
    return values, pooled, alone


def plot_rates(sweep: SweepResult) -> str:
    names = sweep.names or ["cartas_por_turno"]
    fig, axes = _figure(4.2 * len(names), 3.4, ncols=len(names))
    _margins(fig, bottom=0.55, top=0.15, wspace=0.3)
    base = sweep.baseline
    for ax, name in zip(axes[0], names):
        values, pooled, alone = _per_value(sweep, name)
        pct = [100 * p for p, _, _ in pooled]
        err = [[max(0.0, 100 * (p - lo)) for p, lo, _ in pooled],
               [max(0.0, 100 * (hi - p)) for p, _, hi in pooled]]
        ax.errorbar(values, pct, yerr=err, fmt="o-", capsize=3, label=_("all scenarios (pooled)"))
        pts = [(v, a) for v, a in zip(values, alone) if a is not None]
        if pts:
            ax.errorbar([v for v, _ in pts], [100 * a[0] for _, a in pts],
                        yerr=[[max(0.0, 100 * (a[0] - a[1])) for _, a in pts],
                              [max(0.0, 100 * (a[2] - a[0])) for _, a in pts]],
                        fmt="s--", capsize=3, alpha=0.8, label=_("others at baseline"))
        if base is not None:
            b = 100 * base.rate
            ax.axhline(b, color="grey", lw=1)
            ax.axhspan(b - CATASTROPHE_TOLERANCE_PP, b + CATASTROPHE_TOLERANCE_PP, color="grey",
                       alpha=0.12, label=_("baseline ± 4 pts (§7)"))
            # Leave room beyond the band, so its edges show and a point outside it stands out.
            low = min([b - CATASTROPHE_TOLERANCE_PP] + [p - e for p, e in zip(pct, err[0])])
            high = max([b + CATASTROPHE_TOLERANCE_PP] + [p + e for p, e in zip(pct, err[1])])
            ax.set_ylim(max(0.0, low - 2), min(100.0, high + 2))
        ax.set_xlabel(name)
        ax.set_ylabel(_("catastrophe rate (%), 95% CI"))
        ax.set_xticks(values)
        ax.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    return _svg(fig)


def plot_mandatory(sweep: SweepResult) -> str:
    """Mandatory slots per turn (§3.3) for every scenario, one panel per swept parameter: the
    scenarios with each value as dots, their mean as a line. A parameter can move this figure
    a lot while the catastrophe rate stays flat (pressure on the turn, not on the outcome)."""
    names = sweep.names or [None]
    fig, axes = _figure(4.2 * len(names), 3.2, ncols=len(names))
    _margins(fig, bottom=0.55, top=0.15, wspace=0.3)
    base = sweep.baseline
    for ax, name in zip(axes[0], names):
        if name is None:  # baseline only: one bar
            ax.bar([0], [r.mandatory_per_turn for r in sweep.scenarios[:1]], color="C0")
            ax.set_xticks([0])
            ax.set_xticklabels(["baseline"])
        else:
            by_value: Dict[int, List[float]] = {}
            for r in sweep.scenarios:
                by_value.setdefault(r.scenario.params[name], []).append(r.mandatory_per_turn)
            values = sorted(by_value)
            # One scatter for every dot: a collection per value costs a draw each.
            ax.scatter([v for v in values for _ in by_value[v]],
                       [y for v in values for y in by_value[v]], s=10, color="C0", alpha=0.5)
            means = [sum(by_value[v]) / len(by_value[v]) for v in values]
            ax.plot(values, means, "o-", color="C1", label=_("mean over scenarios"))
            ax.set_xticks(values)
            ax.set_xlabel(name)
            if base is not None:
                ax.axhline(base.mandatory_per_turn, color="grey", lw=1, label=_("baseline"))
        ax.set_ylabel(_("mandatory slots per turn"))
        ax.set_ylim(bottom=0)
        ax.grid(alpha=0.3)
    if names[0] is not None:  # one legend serves every panel (as in plot_rates)
        axes[0][0].legend(fontsize=7)
    return _svg(fig)


def _plain(label: str) -> str:
    """A deck's id or name as a matplotlib label: text, never mathtext (``$x$`` stays as is)."""
    return label.replace("$", r"\$")


def _names(names: Optional[Names]) -> Names:
    return names if names is not None else Names({}, {}, {}, {})  # ids stand for themselves


def _empty(fig, ax, text: str) -> str:
    ax.text(0.5, 0.5, text, ha="center", va="center")
    ax.axis("off")
    return _svg(fig)


def plot_cards(result: ScenarioResult, names: Optional[Names] = None) -> str:
    """Draws per match of each playable card (bars coloured by mode), labelled with the card ids.

    The bars are one ``PolyCollection`` and the ids plain text under the axes, not ``ax.bar``
    and tick labels: a deck has ~100 cards, and a bar patch and a tick each cost more than the
    shape or the text they draw (the two were half of this figure's CPU, issue 16)."""
    import matplotlib
    from matplotlib.collections import PolyCollection
    from matplotlib.patches import Rectangle

    names = _names(names)
    freq = result.card_frequency()
    cards = list(freq)
    index = {c: i for i, c in enumerate(result.card_ids)}
    modes = [names.mode(result.mode_names[result.card_mode[index[c]]]) for c in cards]
    palette = matplotlib.colormaps["tab20"]
    order = sorted(set(modes))
    slot = {m: i for i, m in enumerate(order)}
    colours = [palette(slot[m] % 20) for m in modes]
    size = 6 if len(cards) > 60 else 7
    labels = [_plain(c) for c in cards]
    fig, axes = _figure(max(8.0, 0.16 * len(cards)), 3.8)
    ax = axes[0][0]
    if not cards:
        return _empty(fig, ax, _("no playable card"))
    fig.set_figheight(3.2 + _label_inches(labels, size))
    _margins(fig, left=0.6, right=0.15, bottom=0.2 + _label_inches(labels, size), top=0.1)
    heights = [freq[c] for c in cards]
    ax.add_collection(PolyCollection(
        [[(i - 0.4, 0.0), (i - 0.4, h), (i + 0.4, h), (i + 0.4, 0.0)]
         for i, h in enumerate(heights)], facecolors=colours, linewidths=0))
    ax.set_xlim(-1, len(cards))
    ax.set_ylim(0, 1.05 * max(heights) or 1.0)
    ax.tick_params(axis="x", bottom=False, labelbottom=False)
    under = ax.get_xaxis_transform()  # x in cards, y in axes fractions
    for i, label in enumerate(labels):
        ax.text(i, -0.015, label, rotation=90, ha="center", va="top", fontsize=size,
                transform=under)
    ax.set_ylabel(_("draws per match"))
    handles = [Rectangle((0, 0), 1, 1, color=palette(i % 20)) for i in range(len(order))]
    ax.legend(handles, [_plain(m) for m in order], fontsize=6, ncol=min(5, len(order)),
              loc="upper right")
    ax.grid(axis="y", alpha=0.3)
    return _svg(fig)


def plot_modes(sweep: SweepResult, names: Optional[Names] = None) -> str:
    names = _names(names)
    base = sweep.baseline or sweep.scenarios[0]
    freq = base.mode_frequency()
    modes = list(freq)
    every = [r.mode_frequency() for r in sweep.scenarios]  # once per scenario, not per mode
    lows = [min(f[m] for f in every) for m in modes]
    highs = [max(f[m] for f in every) for m in modes]
    labels = [_plain(names.mode(m)) for m in modes]
    fig, axes = _figure(max(6.0, 0.5 * len(modes)), 3.4)
    ax = axes[0][0]
    if not modes:
        return _empty(fig, ax, _("no card"))
    slant = 0.71 * _label_inches(labels, 8)  # labels at 45 degrees
    fig.set_figheight(2.9 + slant)
    _margins(fig, left=0.6, bottom=0.25 + slant, top=0.1)
    vals = [freq[m] for m in modes]
    ax.bar(range(len(modes)), vals, color="tab:blue", alpha=0.8, label=_("baseline"))
    if len(sweep.scenarios) > 1:
        ax.errorbar(range(len(modes)), vals,
                    yerr=[[max(0.0, v - lo) for v, lo in zip(vals, lows)],
                          [max(0.0, hi - v) for v, hi in zip(vals, highs)]],
                    fmt="none", ecolor="black", capsize=3, label=_("range over scenarios"))
    ax.set_xticks(range(len(modes)))
    ax.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
    ax.set_ylabel(_("draws per match"))
    ax.legend(fontsize=7)
    ax.grid(axis="y", alpha=0.3)
    return _svg(fig)


METERS_PER_ROW = 8


def plot_trajectories(result: ScenarioResult, initial: Dict[str, int],
                      names: Optional[Names] = None) -> str:
    """Meters at each year's closing (mean ± 1 sd; year 0 is the deck's starting value), with
    the meter limit (§3.3.3) and the emergency limit (§3.3.1) dashed.

    Up to ``METERS_PER_ROW`` meters share one axes, side by side, each in its own block of
    years: an axes and its ticks are most of a figure's cost (one axes per meter was 8 of the
    report's 16 axes, issue 16), and one shared 0-100 scale reads the same."""
    names = _names(names)
    traj = result.trajectories()
    meters = list(traj)
    rows = max(1, math.ceil(len(meters) / METERS_PER_ROW))
    width = max(len(meters[:METERS_PER_ROW]), 1)
    fig, axes = _figure(max(6.0, 1.45 * width + 1.0), 2.6 * rows, nrows=rows)
    if not meters:
        return _empty(fig, axes[0][0], _("no meter"))
    _margins(fig, left=0.6, bottom=0.6, top=0.3, hspace=0.45)
    years = [0, 1, 2, 3, 4]
    step = len(years) + 1.5  # a block of years, then a gap
    for row, ax in enumerate(axes[:, 0]):
        block = meters[row * METERS_PER_ROW:(row + 1) * METERS_PER_ROW]
        ticks, labels = [], []
        for i, meter in enumerate(block):
            xs = [i * step + y for y in years]
            means = [float(initial.get(meter, float("nan")))] + [m for m, _, _ in traj[meter]]
            sds = [0.0] + [sd for _, sd, _ in traj[meter]]
            ax.plot(xs, means, "o-", ms=3, color="C0")
            ax.fill_between(xs, [m - s for m, s in zip(means, sds)],
                            [m + s for m, s in zip(means, sds)], color="C0", alpha=0.2)
            ax.text(i * step + 2, 101, _plain(names.meter(meter)), ha="center", va="bottom",
                    fontsize=9)
            if i:
                ax.axvline(i * step - 1.25, color="grey", lw=0.6)
            ticks.extend(xs)
            labels.extend(str(y) for y in years)
        ax.axhline(result.scenario.params["limite_medidor"], color="orange", lw=0.8, ls="--",
                   label=_("meter limit (§3.3.3)"))
        ax.axhline(result.scenario.params["limite_emergencia"], color="red", lw=0.8, ls="--",
                   label=_("emergency limit (§3.3.1)"))
        ax.set_xlim(-0.5, width * step - 2)
        ax.set_ylim(0, 100)
        ax.set_xticks(ticks)
        ax.set_xticklabels(labels, fontsize=7)
        ax.set_ylabel(_("meter (mean ± 1 sd)"), fontsize=9)
        ax.grid(axis="y", alpha=0.3)
    # Below the last row's ticks, on the right: never over a meter's line.
    axes[-1][0].legend(fontsize=7, ncol=2, loc="upper right", bbox_to_anchor=(1.0, -0.1))
    axes[-1][0].set_xlabel(_("year closing of each meter (0 = start)"), fontsize=9, loc="left")
    return _svg(fig)


# -- the page -------------------------------------------------------------------------------------

_CSS = """body{font-family:system-ui,sans-serif;margin:2em;max-width:1400px;color:#222}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ccc;padding:2px 6px;
text-align:right}th{background:#f3f3f3}tr.flag td{background:#ffe3e0}tr.base td{font-weight:bold}
img{max-width:100%}.note{color:#555;font-size:13px}"""


def write_html(sweep: SweepResult, path: Path, initial_meters: Dict[str, int],
               names: Optional[Names] = None) -> None:
    """The report: summary, plots, and the scenario table (flagged rows in red). ``names``
    (``Names.of(deck)``) labels meters and modes with the deck's display names."""
    base = sweep.baseline or (sweep.scenarios[0] if sweep.scenarios else None)
    esc = html.escape
    swept = ", ".join(sweep.names) or _("nothing (baseline only)")
    parts = [f"<!doctype html><html lang='{current()}'><head><meta charset='utf-8'><title>"
             + esc(_("sorteio sweep — {deck}").format(deck=sweep.deck_name))
             + f"</title><style>{_CSS}</style></head><body>",
             "<h1>" + esc(_("Sorteio: balancing sweep of “{deck}”").format(deck=sweep.deck_name))
             + "</h1>",
             "<p>" + _("{done} of {total} scenarios × {matches} matches, seed {seed}, player "
                       "policy <b>{policy}</b>. Swept: {swept}.").format(
                 done=len(sweep.scenarios), total=sweep.total_scenarios, matches=sweep.matches,
                 seed=sweep.seed, policy=esc(sweep.policy), swept=esc(swept)) + "</p>"]
    if sweep.interrupted:
        parts.append("<p>" + _("<b>Interrupted:</b> only the scenarios finished before the stop "
                               "are shown.") + "</p>")
    if base is None:
        parts.append("<p>" + _("No scenario finished.") + "</p></body></html>")
        path.write_text("".join(parts), encoding="utf-8")
        return
    flagged = [r for r in sweep.scenarios if r.flagged]
    lo, hi = base.interval
    parts.append("<p>" + _("Baseline ({label}): catastrophe {rate:.2f}% (95% CI {low:.2f}–"
                           "{high:.2f}). <b>{flagged}</b> scenario(s) move it by more than "
                           "{points:g} points (GDD 06 §7).").format(
        label=esc(base.scenario.label(sweep.names)), rate=100 * base.rate, low=100 * lo,
        high=100 * hi, flagged=len(flagged), points=CATASTROPHE_TOLERANCE_PP) + "</p>")
    parts.append("<p class='note'>" + _(
        "Every scenario plays the same seeds (match <i>i</i> uses engine seed <code>seed × "
        "1,000,000 + i</code>), so differences from the baseline are paired; their 95% interval "
        "is the normal interval of the per-match difference. Rate intervals are Wilson score "
        "intervals.") + "</p>")
    parts.append("<h2>" + _("Catastrophe rate per parameter value") + "</h2>")
    parts.append(f"<img src='data:image/svg+xml;base64,{plot_rates(sweep)}'>")
    parts.append("<h2>" + _("Mandatory slots per turn") + "</h2>")
    parts.append("<p class='note'>" + _(
        "Cards shown in a mandatory slot (§3.3: emergencies, Furious actors' attacks, meters "
        "below the limit) per turn, every scenario a dot.") + "</p>")
    parts.append(f"<img src='data:image/svg+xml;base64,{plot_mandatory(sweep)}'>")
    parts.append("<h2>" + _("Draw frequency per card (baseline)") + "</h2>")
    parts.append(f"<img src='data:image/svg+xml;base64,{plot_cards(base, names)}'>")
    never = base.never_drawn()
    parts.append("<p>" + _("Never drawn in the baseline: {cards}.").format(
        cards=esc(", ".join(never)) or _("none")) + "</p>")
    parts.append("<h2>" + _("Draw frequency per mode") + "</h2>")
    parts.append(f"<img src='data:image/svg+xml;base64,{plot_modes(sweep, names)}'>")
    parts.append("<h2>" + _("Meters by year (baseline)") + "</h2>")
    parts.append("<p class='note'>" + _(
        "Closing values of the matches that reached each closing (a catastrophe ends a match "
        "early). Dashed: the meter limit (§3.3.3) and the emergency limit (§3.3.1).") + "</p>")
    trajectories = plot_trajectories(base, initial_meters, names)
    parts.append(f"<img src='data:image/svg+xml;base64,{trajectories}'>")
    # The columns are sweep.csv's (fixed names, in both languages: what tools read back).
    parts.append("<h2>" + _("Scenarios") + "</h2><table><tr>")
    cols = ["scenario", *sweep.names, "catastrophe_pct", "catastrophe_ci95_low_pct",
            "catastrophe_ci95_high_pct", "diff_vs_baseline_pp", "diff_ci95_low_pp",
            "diff_ci95_high_pp", "mandatory_per_turn", "short_turn_pct", "cards_per_match",
            "never_drawn_count"]
    parts.extend(f"<th>{esc(c)}</th>" for c in cols)
    parts.append("</tr>")
    for r in sweep.scenarios:
        row = r.row()
        cls = "flag" if r.flagged else ("base" if r.scenario.baseline else "")
        parts.append(f"<tr class='{cls}'>" + "".join(f"<td>{esc(str(row[c]))}</td>"
                                                      for c in cols) + "</tr>")
    parts.append("</table></body></html>")
    path.write_text("".join(parts), encoding="utf-8")
