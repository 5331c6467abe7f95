"""The designers' balancing commands: ``sorteio simulate`` (sweeps, GDD 06 §7) and ``sorteio lint``
(deck coverage). Registered on the ``sorteio`` group by ``cli.py``; see docs/simulator.md."""

import contextlib
import json
import os
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import List, Optional

import click
from click.core import ParameterSource
from rich.console import Console
from rich.measure import Measurement
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

from ..clihelp import DECK_HELP, FIELDS, Command
from ..errors import SorteioError
from ..i18n import N_, _
from ..loader import load_deck, resolve_deck_path
from ..wording import Names
from .kernel import POLICIES
from .kernels import describe
from .percard import DEFAULT_HALF_WIDTH_PP, DEFAULT_MAX_MATCHES
from .sweep import (
    CATASTROPHE_TOLERANCE_PP,
    MAX_MATCHES,
    PARAM_NAMES,
    ScenarioResult,
    SweepError,
    SweepResult,
    build_scenarios,
    check_size,
    load_executor,
    parse_param,
    run_sweep,
)

# Text, never markup: deck ids and names are user data (``[bold]`` in a mode id prints as is).
out = Console(highlight=False, markup=False, emoji=False)
err = Console(stderr=True, highlight=False, markup=False, emoji=False)
INTERRUPTED = 130
PIPE_WIDTH = 1000  # columns when stdout is not a terminal: tables are never cut (rich uses 80)
SHORT = {"cartas_por_turno": "N", "teto_obrigatorias": "T", "limite_medidor": "lim",
         "limite_emergencia": "emerg", "limite_por_modo": "modo"}  # §4 letters as table headers
FIELDS.update(max_matches=f"{MAX_MATCHES:,}", params=", ".join(PARAM_NAMES))



@click.command("simulate", cls=Command, help=N_(
    "Play many matches per scenario and compare scenarios (GDD 06 §7).\n\nWithout "
    "--param: one scenario, the deck's own parameters. Each scenario reports the "
    "catastrophe rate with its 95% interval, ending meters (mean, sd), mandatory "
    "slots per turn, short turns, cards never drawn, and the difference from the "
    "baseline, flagged past 4 points. With --per-card: for each playable card, the "
    "deck without it on the same seeds, in rounds until each card's Δ catastrophe is "
    "known to ±--precision points (or --max-matches), then Benjamini-Hochberg over "
    "all cards says which ones move it beyond chance (docs/simulator.md). Ctrl-C or "
    "SIGTERM stops the sweep, its worker processes too, and keeps the finished "
    "scenarios (exit code 130 or 143). A failed write to --out (a full disk) is an "
    "error (exit 2) that keeps the rows already written."))
@click.option("--deck", "deck_path", default=None, metavar="DECK", help=DECK_HELP)
@click.option("--matches", default=3000, show_default=True,
              type=click.IntRange(min=1, max=MAX_MATCHES),
              help=N_("matches per scenario (§7 used 3,000; at most {max_matches})"))
@click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0),
              help=N_("seed of the whole sweep: match i of every scenario uses seed*1e6+i"))
@click.option("--policy", default="random", show_default=True,
              type=click.Choice(list(POLICIES)),
              help=N_("player: random, protect the weakest meter, or lookahead (also weighs the "
                   "worst card that could come next)"))
@click.option("--param", "params", multiple=True, metavar="NAME=VALUES",
              help=N_("a §7 parameter to sweep, e.g. teto_obrigatorias=2..4 or "
                   "cartas_por_turno=6,7,8 (repeatable; scenarios = every combination). "
                   "Names: {params}"))
@click.option("--jobs", default=None, type=click.IntRange(min=1),
              help=N_("worker processes, >= 1 (default: every core; 1 = in this process). Never "
                   "more than 4 per core nor more than there are chunks of work. With "
                   "--executor: how many workers it has (3 chunks in flight per worker)"))
@click.option("--executor", "executor_spec", default=None, metavar="MODULE:FACTORY",
              help=N_("run chunks on FACTORY() (a concurrent.futures Executor, e.g. a Dask "
                   "cluster) instead of local processes"))
@click.option("--out", "out_dir", default=None, metavar="DIR",
              help=N_("write DIR/sweep.csv, DIR/sweep.json and DIR/report.html"))
@click.option("--json", "as_json", is_flag=True, help=N_("machine-readable output"))
@click.option("--per-card", "per_card", is_flag=True,
              help=N_("for every playable card, play the deck without it (same seeds) until its "
                   "effect on the catastrophe rate is known to --precision, and say which cards "
                   "move it beyond chance (Benjamini-Hochberg, 5% false discoveries)"))
@click.option("--precision", "precision", default=DEFAULT_HALF_WIDTH_PP, show_default=True,
              type=click.FloatRange(min=0.01, max=50), metavar="POINTS",
              help=N_("--per-card: half-width of each card's 95% interval of Δ catastrophe, in "
                   "points"))
@click.option("--max-matches", "max_matches", default=DEFAULT_MAX_MATCHES, show_default=True,
              type=click.IntRange(min=1, max=MAX_MATCHES),
              help=N_("--per-card: the most matches a card plays when --precision is not reached "
                   "before (with --matches N instead: exactly N per card, no adaptation)"))
@click.option("--situation", "situation_path", default=None, metavar="FILE",
              help=N_("start every match from this situation (year, meters, satisfaction, cards "
                   "already played; `sorteio schema --situation`), or a shipped sample: secao4. "
                   "Played by the rules' reference engine, in this process"))
@click.pass_context
def simulate_cmd(ctx, deck_path, matches, seed, policy, params, jobs, executor_spec, out_dir,
                 as_json, per_card, precision, max_matches, situation_path) -> None:
    _fit_width(out)
    deck = load_deck(deck_path)
    if situation_path is not None:
        if params or per_card or executor_spec or jobs is not None:
            raise click.UsageError(_("--situation runs the deck's own parameters in this "
                                     "process: use it without --param, --per-card, --jobs, "
                                     "--executor"))
        _simulate_situation(deck, situation_path, matches, seed, policy, out_dir, as_json)
        return
    grid = {}
    for text in params:
        try:
            name, values = parse_param(text)  # bounds checked before any range is expanded
        except SweepError as exc:
            raise click.BadParameter(str(exc), param_hint="--param") from None
        if name in grid:  # one list of values per parameter: a second one would replace it
            both = ",".join(str(v) for v in dict.fromkeys(grid[name] + values))
            raise click.BadParameter(_("{name} given twice; give every value at once, e.g. "
                                       "{name}={both}").format(name=name, both=both),
                                     param_hint="--param")
        grid[name] = values
    if per_card and grid:
        raise click.UsageError(_("--per-card compares cards under the deck's own parameters: "
                                 "use it without --param"))
    given = {name for name in ("precision", "max_matches")
             if ctx.get_parameter_source(name) != ParameterSource.DEFAULT}
    if given and not per_card:
        raise click.UsageError(_("--precision and --max-matches are for --per-card"))
    if per_card:
        fixed = ctx.get_parameter_source("matches") != ParameterSource.DEFAULT
        if fixed and "max_matches" in given:
            raise click.UsageError(_("--per-card: give --matches N (exactly N per card) or "
                                     "--precision/--max-matches (adaptive), not both"))
        executor = load_executor(executor_spec) if executor_spec else None
        folder = _per_card_folder(out_dir)
        study = dict(first=matches, max_matches=matches) if fixed else dict(
            max_matches=max_matches)
        _per_card(deck, seed, policy, precision, jobs, executor, folder, as_json, study)
        return
    n_scenarios = len(build_scenarios(deck, grid))  # at most MAX_SCENARIOS, else SweepError
    check_size(n_scenarios, matches)
    total = n_scenarios * matches
    executor = load_executor(executor_spec) if executor_spec else None
    folder: Optional[Path] = None
    appender = None
    if out_dir is not None:
        from .report import CsvAppender, require_matplotlib

        if not out_dir.strip():
            raise click.BadParameter(_("empty folder name: give the folder for the outputs"),
                                     param_hint="--out")
        require_matplotlib()  # fail before the sweep, not after it
        folder = _output_folder(out_dir)
        appender = CsvAppender(folder / "sweep.csv")
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TimeRemainingColumn())
    started = time.perf_counter()
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task(_("{count} scenario(s)").format(count=n_scenarios), total=total)
        try:
            result = run_sweep(
                deck, grid, matches, seed, policy, jobs=jobs, executor=executor,
                on_progress=lambda done: bar.update(task, completed=done),
                on_result=appender.add if appender is not None else None,
            )
        finally:
            if appender is not None:
                appender.close()
    elapsed = time.perf_counter() - started
    if folder is not None:
        _write_outputs(result, folder, deck)
    if as_json:
        from .report import sweep_json

        data = sweep_json(result, Names.of(deck))
        data["seconds"] = round(elapsed, 3)
        click.echo(json.dumps(data, ensure_ascii=False))
    else:
        _print(result, elapsed, executor_spec, Names.of(deck))
        if folder is not None:
            _say_written(folder, OUTPUT_FILES)
    if result.interrupted:
        err.print(Text.assemble((_("interrupted"), "yellow"), ": ", _(
            "{done} of {total} scenarios finished were kept").format(
                done=len(result.scenarios), total=result.total_scenarios)))
        sys.exit(128 + (result.stopped_by or signal.SIGINT))


def _simulate_situation(deck, path: str, matches: int, seed: int, policy: str,
                        out_dir: Optional[str], as_json: bool) -> None:
    """``simulate --situation``: every match starts from the situation (sim/from_situation.py);
    the same summary, JSON and --out files as a run of the deck's own parameters."""
    from ..jsonfile import printable
    from ..situation import load_situation
    from .from_situation import simulate_situation

    situation = load_situation(path, deck)
    folder = None
    if out_dir is not None:
        from .report import require_matplotlib

        require_matplotlib()
        folder = _output_folder(out_dir)
    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TimeRemainingColumn())
    started = time.perf_counter()
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task(_("situation: {name}").format(name=situation.nome), total=matches)
        result = simulate_situation(deck, situation, matches, seed, policy,
                                    progress=lambda done: bar.update(task, completed=done))
    elapsed = time.perf_counter() - started
    names = Names.of(deck)
    if folder is not None:
        _write_outputs(result, folder, deck)
    if as_json:
        from .report import sweep_json

        data = sweep_json(result, names)
        data["seconds"] = round(elapsed, 3)
        data["situation"] = situation.model_dump(mode="json")
        click.echo(json.dumps(data, ensure_ascii=False))
        return
    out.print(Text(printable(_(
        "from the situation «{name}» ({path}): year {year}, {cards} card(s) already played; "
        "{matches} matches, seed {seed}, player {policy} — {seconds:.1f} s (reference engine)"
        ).format(name=situation.nome, path=path, year=situation.ano,
                 cards=len(situation.cartas_jogadas), matches=matches, seed=seed, policy=policy,
                 seconds=elapsed))), soft_wrap=True)
    _print_one(result.scenarios[0], names)
    if folder is not None:
        _say_written(folder, OUTPUT_FILES)


def _say_written(folder: Path, files) -> None:
    out.print(Text(_("written: {files}").format(
        files=", ".join(str(folder / name) for name in files))), soft_wrap=True)


def _fit_width(console: Console) -> None:
    """Piped or redirected output gets ``PIPE_WIDTH`` columns instead of rich's 80, so no table
    is cut (``COLUMNS``, when set, still wins); a terminal keeps its own width."""
    piped = not console.is_terminal and not os.environ.get("COLUMNS")
    console.width = PIPE_WIDTH if piped else None  # type: ignore[assignment]


OUTPUT_FILES = ("sweep.csv", "sweep.json", "report.html")


def _output_folder(out_dir: str) -> Path:
    """``--out``: create the folder and prove it writable before the sweep starts, so a bad path
    is a one-line error (exit 2), not a traceback after minutes of work."""
    folder = Path(out_dir)
    if folder.exists() and not folder.is_dir():
        raise SorteioError(_("--out {folder}: exists and is not a folder").format(
            folder=out_dir))
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SorteioError(_("--out {folder}: cannot create the folder: {reason}").format(
            folder=out_dir, reason=exc.strerror or exc)) from None
    for name in OUTPUT_FILES:
        if (folder / name).is_dir():
            raise SorteioError(_("--out {folder}: {name} is a folder, cannot write the "
                                 "file").format(folder=out_dir, name=name))
        if (folder / name).exists() and not (folder / name).is_file():
            raise SorteioError(_("--out {folder}: {name} is not a regular file (a pipe, a "
                                 "device or a socket), cannot write the file").format(
                                     folder=out_dir, name=name))
    try:
        with tempfile.TemporaryFile(dir=str(folder)):
            pass
    except OSError as exc:
        raise SorteioError(_("--out {folder}: cannot write there: {reason}").format(
            folder=out_dir, reason=exc.strerror or exc)) from None
    return folder


def _write_outputs(result: SweepResult, folder: Path, deck) -> None:
    """Each file is written beside its final name and then renamed over it, so a full disk
    leaves the rows ``CsvAppender`` already wrote (and any older report) intact."""
    from .report import write_csv, write_html, write_json

    initial = {m.id: m.inicial for m in deck.medidores}
    names = Names.of(deck)
    for name, write in (("sweep.csv", lambda p: write_csv(result, p)),
                        ("sweep.json", lambda p: write_json(result, p, names)),
                        ("report.html", lambda p: write_html(result, p, initial, names))):
        target = folder / name
        partial = folder / f".{name}.partial"
        try:
            write(partial)
            os.replace(partial, target)
        except OSError as exc:
            with contextlib.suppress(OSError):
                partial.unlink()
            raise SorteioError(_("--out {folder}: cannot write {file}: {reason}").format(
                folder=folder, file=target, reason=exc.strerror or exc)) from None


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def _print(result: SweepResult, elapsed: float, executor_spec: Optional[str],
           names: Names) -> None:
    where = executor_spec or _("{count} process(es)").format(count=result.workers or 1)
    out.print(_("{scenarios} scenario(s) × {matches} matches, seed {seed}, player {policy} — "
                "{seconds:.1f} s ({where}), {kernel}").format(
        scenarios=len(result.scenarios), matches=result.matches, seed=result.seed,
        policy=result.policy, seconds=elapsed, where=where, kernel=describe(result.kernel)))
    if not result.scenarios:  # stopped before the first scenario finished
        out.print(_("no scenario finished"))
        return
    if len(result.scenarios) == 1 and not result.names:
        _print_one(result.scenarios[0], names)
        return
    table = Table("#", *(SHORT.get(n, n) for n in result.names), _("catastr."), _("95% CI"),
                  _("Δ pts"), _("mand/turn"), _("short"), _("never"))
    for r in result.scenarios:
        lo, hi = r.interval
        diff = "base" if r.scenario.baseline else f"{100 * r.diff[0]:+.1f}" if r.diff else "?"
        if r.flagged:
            diff = Text(f"{diff} ⚠", style="red")
        table.add_row(
            str(r.scenario.index), *(str(r.scenario.params[n]) for n in result.names),
            _pct(r.rate), f"{100 * lo:.1f}–{100 * hi:.1f}", diff, f"{r.mandatory_per_turn:.2f}",
            _pct(r.short_turn_share), str(len(r.never_drawn())),
        )
    out.print(table)
    for ends in end_meter_tables(result, out, names):
        out.print(ends)
    legend = ", ".join(f"{SHORT[n]} = {n}" for n in result.names if n in SHORT)
    if legend:
        out.print(legend, soft_wrap=True)
    flagged = [r for r in result.scenarios if r.flagged]
    out.print(_("{count} scenario(s) move the catastrophe rate by more than {points:g} points "
                "(GDD 06 §7)").format(count=len(flagged), points=CATASTROPHE_TOLERANCE_PP))


def end_meter_tables(result: SweepResult, console: Console,
                     names: Optional[Names] = None) -> List[Table]:
    """Ending meters, mean±sd per scenario, as tables that fit ``console``'s width, each meter
    by its display name (``names``, else its id).

    One row per scenario and one column per meter when that fits; otherwise (a deck with many
    meters) one row per meter and one column per scenario, the scenarios split over as many
    tables as it takes, so no cell is ever cut to "5…".
    """
    meters = list(result.scenarios[0].meter_stats())
    label = {m: names.meter(m) if names is not None else m for m in meters}
    cells = {r.scenario.index: {m: f"{mean:.0f}±{sd:.0f}"
                                for m, (mean, sd) in r.meter_stats().items()}
             for r in result.scenarios}
    title = _("ending meters: mean±sd")
    wide = Table("#", *(label[m] for m in meters), title=title)
    for index, row in cells.items():
        wide.add_row(str(index), *(row[m] for m in meters))
    width = console.width
    natural = Measurement.get(console, console.options.update_width(10**6), wide).maximum
    if natural <= width:
        return [wide]
    # Transposed: the meter column, then as many scenario columns as fit beside it.
    first = max(len(_("meter")), *(len(label[m]) for m in meters)) + 3  # padding and borders
    cell = max(len(f"#{i}") for i in cells)
    cell = max(cell, *(len(v) for row in cells.values() for v in row.values())) + 3
    per_table = max(1, (width - first - 1) // cell)
    indexes = list(cells)
    tables = []
    for start in range(0, len(indexes), per_table):
        part = indexes[start:start + per_table]
        suffix = "" if len(indexes) <= per_table else " " + _("(scenarios {first}–{last})").format(
            first=part[0], last=part[-1])
        table = Table(_("meter"), *(f"#{i}" for i in part), title=title + suffix)
        for m in meters:
            table.add_row(label[m], *(cells[i][m] for i in part))
        tables.append(table)
    return tables


def _print_one(r: ScenarioResult, names: Names) -> None:
    lo, hi = r.interval
    out.print(_("catastrophe: {rate} (95% CI {low}–{high})  ·  mandatory per turn: "
                "{mandatory:.2f}  ·  short turns: {short}").format(
        rate=_pct(r.rate), low=_pct(lo), high=_pct(hi), mandatory=r.mandatory_per_turn,
        short=_pct(r.short_turn_share)))
    table = Table(_("meter"), _("final mean"), _("sd"), _("reached 0"))
    for m, (ident, (mean, sd)) in enumerate(r.meter_stats().items()):
        table.add_row(Text(names.meter(ident)), f"{mean:.1f}", f"{sd:.1f}",
                      str(r.tally.zeroed[m]))
    out.print(table)
    modes = Table(_("mode"), _("draws per match"))
    for mode, freq in r.mode_frequency().items():
        modes.add_row(Text(names.mode(mode)), f"{freq:.2f}")
    out.print(modes)
    top = sorted(r.card_frequency().items(), key=lambda kv: -kv[1])
    out.print(_("most drawn: {cards}").format(cards=", ".join(f"{c} {f:.2f}" for c, f in top[:10])),
              soft_wrap=True)
    never = r.never_drawn()
    if never:
        out.print(_("never drawn: {cards}").format(cards=", ".join(never)), soft_wrap=True)


@click.command("lint", cls=Command, help=N_(
    "Deck coverage report: can the draw fill every turn and serve every obligation? "
    "(§3, §5)"))
@click.argument("deck_path", metavar="DECK")
@click.option("--json", "as_json", is_flag=True, help=N_("machine-readable output"))
@click.option("--strict", is_flag=True,
              help=N_("exit with code 1 when the report lists problems (to gate a deck in CI)"))
def lint_cmd(deck_path, as_json, strict) -> None:
    from ..lint import lint_deck, print_report

    _fit_width(out)
    source = str(resolve_deck_path(deck_path))
    report = lint_deck(load_deck(deck_path))
    if as_json:
        click.echo(json.dumps(dict(report, file=source), ensure_ascii=False))
    else:
        print_report(report, source, out)
    if strict and report["problems"]:
        sys.exit(1)


def _per_card_folder(out_dir: Optional[str]) -> Optional[Path]:
    if out_dir is None:
        return None
    from .report import require_matplotlib

    if not out_dir.strip():
        raise click.BadParameter(_("empty folder name: give the folder for the outputs"),
                                 param_hint="--out")
    require_matplotlib()  # fail before the study, not after it
    return _output_folder(out_dir)


def _per_card(deck, seed: int, policy: str, precision: float, jobs: Optional[int],
              executor, folder: Optional[Path], as_json: bool, study: dict) -> None:
    """``simulate --per-card``: the adaptive study (``percard_study``) with a progress bar whose
    total grows as each round plans the matches the cards still need."""
    from .percard_report import per_card_json, print_per_card, write_per_card
    from .percard_study import run_per_card

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               TimeElapsedColumn(), TimeRemainingColumn())
    started = time.perf_counter()
    with Progress(*columns, console=err, transient=True, disable=not err.is_terminal) as bar:
        task = bar.add_task(_("cards"), total=None)

        def show(p) -> None:
            bar.update(task, completed=p.done, total=p.planned,
                       description=_("round {round}, cards with the precision: "
                                     "{settled}/{cards}").format(round=p.round + 1,
                                                                 settled=p.settled, cards=p.cards))

        result = run_per_card(deck, seed, policy, precision, jobs=jobs, executor=executor,
                              on_progress=show, **study)
    elapsed = time.perf_counter() - started
    names = Names.of(deck)
    if folder is not None:
        try:
            write_per_card(result, folder, names)
        except OSError as exc:
            raise SorteioError(_("--out {folder}: cannot write {file}: {reason}").format(
                folder=folder, file=exc.filename or _("the report"),
                reason=exc.strerror or exc)) from None
    if as_json:
        data = per_card_json(result)
        data["seconds"] = round(elapsed, 3)
        click.echo(json.dumps(data, ensure_ascii=False))
    else:
        print_per_card(result, elapsed, out, describe(result.kernel), names)
        if folder is not None:
            _say_written(folder, ("percard.csv", "percard.json", "report.html"))
    if result.interrupted:
        err.print(Text.assemble((_("interrupted"), "yellow"), ": ", _(
            "{rounds} round(s) finished were kept").format(rounds=result.rounds)))
        sys.exit(128 + (result.stopped_by or signal.SIGINT))
