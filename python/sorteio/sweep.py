"""Balancing sweeps: the GDD 06 §7 study ("3.000 partidas por cenário") rerun on any deck.

A sweep is the cartesian product of §7 parameter values (``Parameters`` fields, each a list or a
range), plus the deck's current parameters as the baseline scenario. Every scenario plays the same
matches: match ``i`` uses engine seed ``seed * SEED_STRIDE + i`` (as ``simulate.simulate`` and
``sorteio play --seed`` do), so scenarios differ only by their parameters and the comparison with
the baseline is paired, match by match.

Work is cut into chunks (scenario, first match, count) and handed to a ``concurrent.futures``
``Executor``: local processes by default, or any executor you pass — e.g. a Dask cluster's
``Client.get_executor()`` or ``mpi4py.futures.MPIPoolExecutor`` (docs/simulator.md). Chunk results
are ``fast.Tally`` objects, merged in match order, so results do not depend on the executor, the
number of workers or the completion order.
"""

import importlib
import itertools
import math
import os
import signal
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from typing import Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple

from .compiled import CompiledDeck
from .deck import Deck, Parameters
from .errors import SorteioError
from .fast import FastDeck, Tally, play_matches

SEED_STRIDE = 1_000_000  # as simulate.SEED_STRIDE
CATASTROPHE_TOLERANCE_PP = 4.0  # §7: N, T and the meter limit move the catastrophe rate <= 4 points
Z95 = 1.959963984540054  # two-sided 95% normal quantile
PARAM_NAMES = list(Parameters.model_fields)  # the §7 parameters a sweep may vary


class SweepError(SorteioError, ValueError):
    """A bad sweep specification (unknown parameter, bad value list, value outside its range)."""


# -- specification ------------------------------------------------------------------------------

def parse_values(text: str) -> List[int]:
    """``"6,7,8"``, ``"2..4"`` (inclusive) or a mix like ``"25..27,30"`` -> sorted unique ints."""
    values: List[int] = []
    for part in text.split(","):
        part = part.strip()
        try:
            if ".." in part:
                lo_text, hi_text = part.split("..", 1)
                lo, hi = int(lo_text), int(hi_text)
                if hi < lo:
                    raise SweepError(f"range '{part}' goes down ({lo} > {hi})")
                values.extend(range(lo, hi + 1))
            else:
                values.append(int(part))
        except ValueError as exc:
            if isinstance(exc, SweepError):
                raise
            raise SweepError(f"'{part}' is not an integer or a range like 2..4") from None
    return sorted(set(values))


def parse_param(text: str) -> Tuple[str, List[int]]:
    """``"name=values"`` (see ``parse_values``) -> (name, values). Raises ``SweepError``."""
    if "=" not in text:
        raise SweepError(f"'{text}': expected NAME=VALUES, e.g. teto_obrigatorias=2..4")
    name, _, values = text.partition("=")
    name = name.strip()
    if name not in PARAM_NAMES:
        raise SweepError(f"unknown parameter '{name}' (§7 parameters: {', '.join(PARAM_NAMES)})")
    return name, parse_values(values)


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
        if len(_DECKS) > 4:
            _DECKS.clear()
        fd = _DECKS[deck_json] = FastDeck(CompiledDeck(Deck.model_validate_json(deck_json)))
    Parameters(**params)  # the safe ranges (§7); build_scenarios checked them already
    return fd.with_parameters(params)


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
              on_result: Optional[Callable[[ScenarioResult], None]] = None) -> SweepResult:
    """Play ``matches`` matches for every scenario of ``grid`` (see ``build_scenarios``).

    ``executor``: where chunks run (not shut down here); when None, ``jobs`` local processes
    (default: every core; ``jobs=1`` runs in this process). ``on_progress(matches_done)`` after
    each chunk; ``on_result(result)`` when a scenario is complete. Ctrl-C (KeyboardInterrupt)
    stops the sweep: queued chunks are cancelled and the finished scenarios are returned with
    ``interrupted=True``. Raises ``SweepError`` for a bad grid or policy.
    """
    if policy not in ("random", "protect"):
        raise SweepError(f"unknown policy '{policy}' (choose from: random, protect)")
    if matches < 1:
        raise SweepError("matches must be >= 1")
    scenarios = build_scenarios(deck, grid)
    names = list(grid)
    deck_json = deck.model_dump_json()
    own = executor is None
    jobs = default_jobs() if jobs is None else max(1, jobs)
    if own:
        executor = (_InlineExecutor() if jobs == 1 else
                    ProcessPoolExecutor(max_workers=jobs, initializer=_ignore_sigint))
    assert executor is not None
    if chunk is None:  # >= 4 chunks per worker over the sweep, 100-1000 matches each
        chunk = max(100, min(1000, math.ceil(len(scenarios) * matches / (4 * jobs))))
    pieces: Dict[int, Dict[int, Tally]] = {s.index: {} for s in scenarios}
    needed = {s.index: math.ceil(matches / chunk) for s in scenarios}
    done: Dict[int, ScenarioResult] = {}
    waiting: List[ScenarioResult] = []
    index = CompiledDeck(deck)  # ids, modes, playable: the same in every scenario
    futures: Dict[Future, Tuple[int, int]] = {}
    interrupted = False
    progress = 0

    def finish(future: Future) -> None:
        nonlocal progress
        s_index, start = futures.pop(future)
        tally = future.result()
        pieces[s_index][start] = tally
        progress += tally.matches
        if on_progress is not None:
            on_progress(progress)
        if len(pieces[s_index]) == needed[s_index]:
            parts = pieces.pop(s_index)
            whole = parts[0]
            for key in sorted(parts)[1:]:
                whole.merge(parts[key])
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

    try:
        for sc in scenarios:  # baseline first: its result is needed for every difference
            for start in range(0, matches, chunk):
                count = min(chunk, matches - start)
                fut = executor.submit(run_chunk, deck_json, sc.params, policy, seed, start, count)
                futures[fut] = (sc.index, start)
                if fut.done():  # the inline executor runs at submit time
                    finish(fut)
        while futures:
            finished, _ = wait_futures(list(futures), return_when="FIRST_COMPLETED")
            for fut in finished:
                finish(fut)
    except KeyboardInterrupt:
        interrupted = True
        for fut in futures:
            fut.cancel()
    except BaseException:
        for fut in futures:  # a failing chunk: do not wait for the rest of the sweep
            fut.cancel()
        raise
    finally:
        if own:
            executor.shutdown(wait=True)
    ordered = [done[i] for i in sorted(done)]
    return SweepResult(ordered, names, matches, seed, policy, deck.nome, interrupted,
                       len(scenarios))
