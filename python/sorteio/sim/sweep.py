"""Balancing sweeps: the GDD 06 §7 study ("3.000 partidas por cenário") rerun on any deck.

A sweep is the cartesian product of §7 parameter values (``Parameters`` fields, each a list or a
range), plus the deck's current parameters as the baseline scenario. Every scenario plays the same
matches: match ``i`` uses engine seed ``seed * SEED_STRIDE + i`` (as ``simulate.simulate`` and
``sorteio play --seed`` do), so scenarios differ only by their parameters and the comparison with
the baseline is paired, match by match.

Work is cut into chunks (scenario, first match, count) and handed to a ``concurrent.futures``
``Executor``: local processes by default, or any executor you pass — e.g. a Dask cluster's
``Client.get_executor()`` or ``mpi4py.futures.MPIPoolExecutor`` (docs/simulator.md). Chunk results
are ``kernel.Tally`` objects, merged in match order, so results do not depend on the executor, the
number of workers or the completion order.
"""

import contextlib
import importlib
import itertools
import math
import os
import signal
import sys
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..compiled import CompiledDeck, compile_deck
from ..deck import Deck, Parameters
from ..errors import SorteioError
from ..fast import FastDeck, fast_deck
from .kernel import Tally, play_matches

SEED_STRIDE = 1_000_000  # as simulate.SEED_STRIDE
CATASTROPHE_TOLERANCE_PP = 4.0  # §7: N, T and the meter limit move the catastrophe rate <= 4 points
Z95 = 1.959963984540054  # two-sided 95% normal quantile
PARAM_NAMES = list(Parameters.model_fields)  # the §7 parameters a sweep may vary
MAX_VALUES = 10_000  # values per parameter (a §7 safe range has at most 25)
MAX_SCENARIOS = 10_000  # §7's study is 99; more is a typo, not a study
MAX_MATCHES = 10_000_000  # per scenario: the paired comparison keeps one byte per match
MAX_TOTAL_MATCHES = 100_000_000  # scenarios x matches: ~100 MB of per-match outcomes kept


class SweepError(SorteioError, ValueError):
    """A bad sweep specification (unknown parameter, bad value list, value outside its range)."""


# -- specification ------------------------------------------------------------------------------

def param_bounds(name: str) -> Tuple[Optional[int], Optional[int]]:
    """The safe range (§7) of a ``Parameters`` field, read from its constraints: ``(low, high)``
    inclusive, ``None`` for an open end."""
    low: Optional[int] = None
    high: Optional[int] = None
    for item in Parameters.model_fields[name].metadata:
        if getattr(item, "ge", None) is not None:
            low = item.ge
        if getattr(item, "gt", None) is not None:
            low = item.gt + 1
        if getattr(item, "le", None) is not None:
            high = item.le
        if getattr(item, "lt", None) is not None:
            high = item.lt - 1
    return low, high


def _spans(text: str) -> List[Tuple[int, int]]:
    """``"25..27,30"`` -> ``[(25, 27), (30, 30)]``, without expanding anything."""
    spans: List[Tuple[int, int]] = []
    for part in text.split(","):
        part = part.strip()
        try:
            if ".." in part:
                lo_text, hi_text = part.split("..", 1)
                lo, hi = int(lo_text), int(hi_text)
            else:
                lo = hi = int(part)
        except ValueError:
            raise SweepError(f"'{part}' is not an integer or a range like 2..4") from None
        if hi < lo:
            raise SweepError(f"range '{part}' goes down ({lo} > {hi})")
        spans.append((lo, hi))
    return spans


def parse_values(text: str, bounds: Tuple[Optional[int], Optional[int]] = (None, None),
                 what: str = "") -> List[int]:
    """``"6,7,8"``, ``"2..4"`` (inclusive) or a mix like ``"25..27,30"`` -> sorted unique ints.

    Every range is checked against ``bounds`` (inclusive, ``None`` = open) and its size against
    ``MAX_VALUES`` *before* it is expanded, so ``1..1000000000`` is refused at once instead of
    filling the memory. ``what`` names the parameter in the messages."""
    low, high = bounds
    spans = _spans(text)
    prefix = f"{what}=" if what else ""
    for lo, hi in spans:
        shown = f"{lo}..{hi}" if lo != hi else str(lo)
        if (low is not None and lo < low) or (high is not None and hi > high):
            raise SweepError(f"{prefix}{shown}: outside the §7 safe range "
                             f"{'' if low is None else low}..{'' if high is None else high}")
        if hi - lo + 1 > MAX_VALUES:
            raise SweepError(f"{prefix}{shown}: {hi - lo + 1:,} values, more than the "
                             f"{MAX_VALUES:,} a sweep may take per parameter")
    values = set()
    for lo, hi in spans:
        values.update(range(lo, hi + 1))
        if len(values) > MAX_VALUES:
            raise SweepError(f"{prefix}{text.strip()}: more than the {MAX_VALUES:,} values a sweep "
                             "may take per parameter")
    return sorted(values)


def parse_param(text: str) -> Tuple[str, List[int]]:
    """``"name=values"`` (see ``parse_values``) -> (name, values), checked against the name's
    safe range (``Parameters``) before any range is expanded. Raises ``SweepError``."""
    if "=" not in text:
        raise SweepError(f"'{text}': expected NAME=VALUES, e.g. teto_obrigatorias=2..4")
    name, _, values = text.partition("=")
    name = name.strip()
    if name not in PARAM_NAMES:
        raise SweepError(f"unknown parameter '{name}' (§7 parameters: {', '.join(PARAM_NAMES)})")
    return name, parse_values(values, param_bounds(name), name)


def count_scenarios(grid: Dict[str, List[int]]) -> int:
    """Combinations in ``grid`` (the baseline, when not among them, adds one more)."""
    return math.prod(len(v) for v in grid.values()) if grid else 1


class Scenario(NamedTuple):
    """One parameter set. ``params``: every §7 parameter; ``baseline``: the deck's own."""

    index: int
    params: Dict[str, int]
    baseline: bool

    def label(self, names: Sequence[str]) -> str:
        return " ".join(f"{n}={self.params[n]}" for n in names) or "baseline"


def build_scenarios(deck: Deck, grid: Dict[str, List[int]]) -> List[Scenario]:
    """Cartesian product of ``grid`` over the deck's parameters, baseline first (added when the
    grid does not contain it). Raises ``SweepError`` for a value outside its safe range (§7)."""
    base = deck.parametros.model_dump()
    names = list(grid)
    count = count_scenarios(grid)
    if count > MAX_SCENARIOS:
        raise SweepError(f"{count:,} scenarios ({' x '.join(str(len(v)) for v in grid.values())}"
                         f"), more than the {MAX_SCENARIOS:,} a sweep may run")
    combos = [dict(base, **dict(zip(names, values)))
              for values in itertools.product(*(grid[n] for n in names))]
    for combo in combos:
        try:
            Parameters(**combo)
        except ValueError as exc:
            first = exc.errors()[0] if hasattr(exc, "errors") else {"loc": ("?",), "msg": str(exc)}
            field = first["loc"][0]
            raise SweepError(f"{field}={combo[field]}: {first['msg']} (§7 safe range)") from None
    out = [Scenario(0, base, True)]
    for combo in combos:
        if combo != base:
            out.append(Scenario(len(out), combo, False))
    return out


# -- the work unit (runs in worker processes) ---------------------------------------------------

_DECKS: Dict[str, FastDeck] = {}  # per worker process: deck JSON -> its masks


def _fast_deck(deck_json: str, params: Dict[str, int]) -> FastDeck:
    fd = _DECKS.get(deck_json)
    if fd is None:
        fd = _remember(deck_json, fast_deck(compile_deck(Deck.model_validate_json(deck_json))))
    Parameters(**params)  # the safe ranges (§7); build_scenarios checked them already
    return fd.with_parameters(params)


def _remember(deck_json: str, fd: FastDeck) -> FastDeck:
    if len(_DECKS) > 4:
        _DECKS.clear()
    _DECKS[deck_json] = fd
    return fd


def run_chunk(deck_json: str, params: Dict[str, int], policy: str, seed: int, start: int,
              count: int) -> Tally:
    """Matches ``start .. start+count-1`` of one scenario. Plain picklable arguments and a
    picklable result, so any ``concurrent.futures`` executor can run it."""
    base = seed * SEED_STRIDE
    return play_matches(_fast_deck(deck_json, params), range(base + start, base + start + count),
                        policy)


def _ignore_sigint() -> None:
    # Local workers leave Ctrl-C to the parent, which stops cleanly and keeps finished scenarios.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


# -- results ------------------------------------------------------------------------------------

def wilson(successes: int, n: int, z: float = Z95) -> Tuple[float, float]:
    """Wilson score interval for a proportion (good near 0 and with small n)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, min(p, centre - half))
    hi = 1.0 if successes == n else min(1.0, max(p, centre + half))
    return (lo, hi)


def paired_difference(a: bytes, b: bytes, z: float = Z95) -> Tuple[float, float, float]:
    """Mean of ``a[i] - b[i]`` (0/1 outcomes of the same matches) with a normal 95% interval."""
    n = min(len(a), len(b))
    if n == 0:
        return (0.0, 0.0, 0.0)
    up = sum(1 for x, y in zip(a, b) if x > y)
    down = sum(1 for x, y in zip(a, b) if x < y)
    mean = (up - down) / n
    var = ((up + down) / n - mean * mean) * n / (n - 1) if n > 1 else 0.0
    half = z * math.sqrt(max(var, 0.0) / n)
    return (mean, mean - half, mean + half)


class ScenarioResult:
    """A finished scenario: its ``Tally`` and the figures the sweep reports."""

    def __init__(self, scenario: Scenario, tally: Tally, index: CompiledDeck) -> None:
        self.scenario = scenario
        self.tally = tally
        self.meter_ids = index.meter_ids
        self.card_ids = index.card_ids
        self.mode_names = index.mode_names
        self.card_mode = index.mode
        self.playable = index.playable
        self.diff: Optional[Tuple[float, float, float]] = None  # vs baseline, fractions

    @property
    def rate(self) -> float:
        t = self.tally
        return t.catastrophes / t.matches if t.matches else 0.0

    @property
    def interval(self) -> Tuple[float, float]:
        return wilson(self.tally.catastrophes, self.tally.matches)

    def meter_stats(self) -> Dict[str, Tuple[float, float]]:
        """Ending meters: ``{meter: (mean, standard deviation)}`` over the matches."""
        t = self.tally
        n = t.matches
        out = {}
        for m, ident in enumerate(self.meter_ids):
            mean = t.end_sum[m] / n if n else 0.0
            var = (t.end_sq[m] - n * mean * mean) / (n - 1) if n > 1 else 0.0
            out[ident] = (mean, math.sqrt(max(var, 0.0)))
        return out

    def trajectories(self) -> Dict[str, List[Tuple[float, float, int]]]:
        """Meters at each year's closing: ``{meter: [(mean, sd, matches) for year 1..4]}``, over
        the matches that reached that closing (a catastrophe ends a match before it)."""
        t = self.tally
        out: Dict[str, List[Tuple[float, float, int]]] = {}
        for m, ident in enumerate(self.meter_ids):
            rows = []
            for year in range(1, 5):
                n = t.close_n[year]
                mean = t.close_sum[year][m] / n if n else float("nan")
                var = (t.close_sq[year][m] - n * mean * mean) / (n - 1) if n > 1 else 0.0
                rows.append((mean, math.sqrt(max(var, 0.0)), n))
            out[ident] = rows
        return out

    @property
    def mandatory_per_turn(self) -> float:
        return self.tally.mandatory / self.tally.turns if self.tally.turns else 0.0

    @property
    def short_turn_share(self) -> float:
        """Share of closed turns that ended with fewer than N cards (§5)."""
        t = self.tally
        return t.short_turns / t.turns_closed if t.turns_closed else 0.0

    def never_drawn(self) -> List[str]:
        """Playable cards no match of this scenario showed."""
        return [c for i, c in enumerate(self.card_ids)
                if self.playable[i] and not self.tally.card_draws[i]]

    def card_frequency(self) -> Dict[str, float]:
        """Playable card -> draws per match."""
        n = self.tally.matches or 1
        return {c: self.tally.card_draws[i] / n for i, c in enumerate(self.card_ids)
                if self.playable[i]}

    def mode_frequency(self) -> Dict[str, float]:
        """Mode -> draws per match."""
        n = self.tally.matches or 1
        out = dict.fromkeys(self.mode_names, 0.0)
        for i, count in enumerate(self.tally.card_draws):
            out[self.mode_names[self.card_mode[i]]] += count / n
        return out

    @property
    def flagged(self) -> bool:
        """The catastrophe rate differs from the baseline's by more than §7's 4 points."""
        return self.diff is not None and abs(self.diff[0]) * 100 > CATASTROPHE_TOLERANCE_PP

    def row(self) -> Dict[str, object]:
        """One CSV row / JSON object: parameters, then figures (rates as percentages)."""
        t = self.tally
        lo, hi = self.interval
        row: Dict[str, object] = {"scenario": self.scenario.index,
                                  "baseline": int(self.scenario.baseline)}
        row.update(self.scenario.params)
        row.update({
            "matches": t.matches,
            "catastrophes": t.catastrophes,
            "catastrophe_pct": round(100 * self.rate, 3),
            "catastrophe_ci95_low_pct": round(100 * lo, 3),
            "catastrophe_ci95_high_pct": round(100 * hi, 3),
            "diff_vs_baseline_pp": None if self.diff is None else round(100 * self.diff[0], 3),
            "diff_ci95_low_pp": None if self.diff is None else round(100 * self.diff[1], 3),
            "diff_ci95_high_pp": None if self.diff is None else round(100 * self.diff[2], 3),
            "flag_over_4pp": int(self.flagged),
            "mandatory_per_turn": round(self.mandatory_per_turn, 4),
            "short_turn_pct": round(100 * self.short_turn_share, 3),
            "cards_per_match": round(t.cards_played / t.matches, 3) if t.matches else 0.0,
        })
        for ident, (mean, sd) in self.meter_stats().items():
            row[f"end_{ident}_mean"] = round(mean, 3)
            row[f"end_{ident}_sd"] = round(sd, 3)
        for m, ident in enumerate(self.meter_ids):
            row[f"zeroed_{ident}"] = t.zeroed[m]
        never = self.never_drawn()
        row["never_drawn_count"] = len(never)
        row["never_drawn"] = ";".join(never)
        return row


class SweepResult(NamedTuple):
    """Finished scenarios in scenario order; ``interrupted`` when the run was stopped early."""

    scenarios: List[ScenarioResult]
    names: List[str]  # the parameters the sweep varies
    matches: int
    seed: int
    policy: str
    deck_name: str
    interrupted: bool
    total_scenarios: int
    workers: Optional[int] = None  # local processes used (1: this process); None: an executor
    stopped_by: Optional[int] = None  # the signal that interrupted the sweep (SIGINT, SIGTERM)

    @property
    def baseline(self) -> Optional[ScenarioResult]:
        for r in self.scenarios:
            if r.scenario.baseline:
                return r
        return None


# -- running ------------------------------------------------------------------------------------

def default_jobs() -> int:
    """Worker processes by default: every core this process may use."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def max_jobs() -> int:
    """The most local worker processes a sweep starts: 4 per core (more only adds start-up time
    and memory; Windows' process pool takes at most 61)."""
    cap = 4 * max(1, os.cpu_count() or 1)
    return min(cap, 61) if sys.platform == "win32" else cap


def check_size(n_scenarios: int, matches: int) -> None:
    """Refuse a sweep too large to keep in memory (``SweepError``): ``matches`` per scenario up
    to ``MAX_MATCHES``, scenarios x matches up to ``MAX_TOTAL_MATCHES``."""
    if matches < 1:
        raise SweepError("matches must be >= 1")
    if matches > MAX_MATCHES:
        raise SweepError(f"{matches:,} matches per scenario, more than the {MAX_MATCHES:,} a "
                         "sweep may run (it keeps one outcome per match for the paired "
                         "comparison)")
    if n_scenarios * matches > MAX_TOTAL_MATCHES:
        raise SweepError(f"{n_scenarios:,} scenarios x {matches:,} matches = "
                         f"{n_scenarios * matches:,} matches, more than the "
                         f"{MAX_TOTAL_MATCHES:,} a sweep may run (it keeps one outcome per match "
                         "for the paired comparison); use fewer matches or scenarios")


def load_executor(spec: str) -> Executor:
    """``"package.module:factory"`` -> ``factory()``, which must return a ``concurrent.futures``
    ``Executor`` (e.g. a Dask ``Client(...).get_executor()``). Raises ``SweepError``."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise SweepError(f"--executor '{spec}': expected MODULE:FACTORY")
    try:
        factory = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as exc:
        raise SweepError(f"--executor '{spec}': {exc}") from None
    try:
        executor = factory()
    except Exception as exc:  # e.g. a cluster that cannot be reached
        raise SweepError(f"--executor '{spec}': {type(exc).__name__}: {exc}") from None
    if not hasattr(executor, "submit"):
        raise SweepError(f"--executor '{spec}': {attr}() did not return an Executor")
    return executor


_POLL = 0.2  # seconds between looks at the Ctrl-C flag while chunks run


class _CtrlC:
    """While a sweep runs, Ctrl-C (SIGINT) and SIGTERM set ``pressed`` (and ``signum``) instead of
    raising ``KeyboardInterrupt`` or killing the process wherever the main thread happens to be:
    an exception inside the process pool's ``submit`` or queue handling can leave its workers
    waiting forever at exit, and a SIGTERM's default death leaves them running. The sweep loop
    checks the flag between chunks and stops cleanly, workers included. Outside the main thread
    (where handlers cannot be set) the signals keep their usual behaviour."""

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.pressed = False
        self.signum: Optional[int] = None
        self._previous: Dict[int, object] = {}

    def _handler(self, signum, frame) -> None:
        self.pressed = True
        self.signum = self.signum or signum

    def __enter__(self) -> "_CtrlC":
        for signum in self.SIGNALS:
            # ValueError: not the main thread of the main interpreter
            with contextlib.suppress(ValueError, OSError):
                self._previous[signum] = signal.signal(signum, self._handler)
        return self

    def __exit__(self, *exc) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous if previous is not None else signal.SIG_DFL)


def _stop_workers(executor: Executor) -> None:
    """Stop the processes of our own pool at once: their chunks would be thrown away anyway."""
    terminate = getattr(executor, "terminate_workers", None)  # Python 3.14+
    if callable(terminate):
        terminate()
        return
    for process in list((getattr(executor, "_processes", None) or {}).values()):
        with contextlib.suppress(OSError, ValueError):  # already gone
            process.terminate()


class _InlineExecutor(Executor):
    """Runs each task at submit time in this process (``jobs=1``: no pool, easy to profile)."""

    def submit(self, fn, *args, **kwargs):  # type: ignore[override]
        future: Future = Future()
        try:
            future.set_result(fn(*args, **kwargs))
        except BaseException as exc:
            if isinstance(exc, KeyboardInterrupt):
                raise
            future.set_exception(exc)
        return future


def run_sweep(deck: Deck, grid: Dict[str, List[int]], matches: int = 3000, seed: int = 0,
              policy: str = "random", jobs: Optional[int] = None,
              executor: Optional[Executor] = None, chunk: Optional[int] = None,
              on_progress: Optional[Callable[[int], None]] = None,
              on_result: Optional[Callable[[ScenarioResult], None]] = None,
              in_flight: Optional[int] = None) -> SweepResult:
    """Play ``matches`` matches for every scenario of ``grid`` (see ``build_scenarios``).

    ``executor``: where chunks run (not shut down here); when None, local processes: ``jobs``
    (default: every core; ``jobs=1`` runs in this process), capped at the number of chunks and
    at ``max_jobs()``. Chunks are submitted as earlier ones finish, at most ``in_flight`` at a
    time (default: 3 per worker), so memory does not grow with the size of the sweep.
    ``on_progress(matches_done)`` after each chunk; ``on_result(result)`` when a scenario is
    complete. Ctrl-C (KeyboardInterrupt) stops the sweep: chunks in flight are cancelled and the
    finished scenarios are returned with ``interrupted=True``. Raises ``SweepError`` for a bad
    grid, policy or size (``check_size``).
    """
    if policy not in ("random", "protect"):
        raise SweepError(f"unknown policy '{policy}' (choose from: random, protect)")
    scenarios = build_scenarios(deck, grid)
    check_size(len(scenarios), matches)
    names = list(grid)
    deck_json = deck.model_dump_json()
    own = executor is None
    if jobs is not None and jobs < 1:
        raise SweepError("jobs must be >= 1")
    workers = jobs or _executor_workers(executor) or default_jobs()
    if own:
        workers = min(workers, max_jobs())
    if chunk is None:
        chunk = default_chunk(len(scenarios), matches, workers)
    if own:  # no more processes than chunks to give them
        workers = max(1, min(workers, len(scenarios) * math.ceil(matches / chunk)))
        executor = (_InlineExecutor() if workers == 1 else
                    ProcessPoolExecutor(max_workers=workers, initializer=_ignore_sigint))
    assert executor is not None
    limit = max(1, in_flight if in_flight is not None else 3 * workers)
    pieces: Dict[int, Dict[int, Tally]] = {s.index: {} for s in scenarios}
    merged: Dict[int, Tally] = {}  # per scenario: its first matches, merged in order
    done: Dict[int, ScenarioResult] = {}
    waiting: List[ScenarioResult] = []
    index = compile_deck(deck)  # ids, modes, playable: the same in every scenario
    # Chunks run here (jobs=1) or in forked workers find the masks built, instead of validating
    # and compiling the deck again from its JSON (spawned workers and other executors still do).
    _remember(deck_json, fast_deck(index))
    futures: Dict[Future, Tuple[int, int]] = {}
    interrupted = False
    progress = 0

    def finish(future: Future) -> None:
        nonlocal progress
        s_index, start = futures.pop(future)
        tally = future.result()
        progress += tally.matches
        if on_progress is not None:
            on_progress(progress)
        # Merge in match order as soon as the next piece is there: only chunks finished ahead of
        # an earlier one wait in ``pieces`` (at most the in-flight window), whatever --matches.
        parts = pieces[s_index]
        parts[start] = tally
        whole = merged.get(s_index)
        if whole is None and 0 in parts:
            whole = merged[s_index] = parts.pop(0)
        while whole is not None and whole.matches in parts:
            whole.merge(parts.pop(whole.matches))
        if whole is not None and whole.matches == matches:
            del pieces[s_index], merged[s_index]
            result = ScenarioResult(scenarios[s_index], whole, index)
            done[s_index] = result
            waiting.append(result)
            base = done.get(0)
            if base is None:
                return  # reported once the baseline, which every difference needs, is done
            base.diff = (0.0, 0.0, 0.0)
            for r in waiting:
                if r.diff is None:
                    r.diff = paired_difference(r.tally.catastrophe, base.tally.catastrophe)
                if on_result is not None:
                    on_result(r)
            waiting.clear()

    def collect() -> None:
        finished, _ = wait_futures(list(futures), timeout=_POLL, return_when="FIRST_COMPLETED")
        for fut in finished:
            finish(fut)

    # Baseline first (its result is needed for every difference), then scenario by scenario,
    # match order within each: a generator, so only ``limit`` chunks exist at any time.
    work = ((sc, start, min(chunk, matches - start))
            for sc in scenarios for start in range(0, matches, chunk))
    with _CtrlC() as ctrl_c:
        try:
            for sc, start, count in work:
                while len(futures) >= limit and not ctrl_c.pressed:
                    collect()
                if ctrl_c.pressed:
                    raise KeyboardInterrupt
                fut = executor.submit(run_chunk, deck_json, sc.params, policy, seed, start,
                                      count)
                futures[fut] = (sc.index, start)
                if fut.done():  # the inline executor runs at submit time
                    finish(fut)
            while futures and not ctrl_c.pressed:
                collect()
            if ctrl_c.pressed:
                raise KeyboardInterrupt
        except KeyboardInterrupt:
            interrupted = True
            for fut in futures:
                fut.cancel()
            if own and workers > 1:
                _stop_workers(executor)
        except BrokenProcessPool:
            if not ctrl_c.pressed:  # a worker died on its own (killed, out of memory)
                raise SweepError("a worker process died before finishing its matches (killed? "
                                 "out of memory?); run again, or with fewer --jobs") from None
            interrupted = True  # SIGTERM to the whole process group reached the workers too
        except BaseException:
            for fut in futures:  # a failing chunk: do not wait for the rest of the sweep
                fut.cancel()
            raise
        finally:
            if own:
                executor.shutdown(wait=True)
    ordered = [done[i] for i in sorted(done)]
    return SweepResult(ordered, names, matches, seed, policy, deck.nome, interrupted,
                       len(scenarios), workers if own else None,
                       ctrl_c.signum if interrupted else None)


def _executor_workers(executor: Optional[Executor]) -> Optional[int]:
    """Workers of a plugged-in executor when it says (the standard pools do), else None."""
    n = getattr(executor, "_max_workers", None)
    return n if isinstance(n, int) and n > 0 else None


def default_chunk(n_scenarios: int, matches: int, workers: int) -> int:
    """Matches per chunk: >= 4 chunks per worker over the sweep, 100-1000 matches each."""
    return max(100, min(1000, math.ceil(n_scenarios * matches / (4 * workers))))

