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
import hashlib
import importlib
import math
import os
import signal
import sys
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from typing import Callable, Dict, List, Optional, Sequence, Tuple

from ..compiled import compile_deck
from ..deck import Deck, Parameters
from .kernel import POLICIES, Tally
from .kernels import kernel_name, play_matches
from .masks import FastDeck, fast_deck
from .outcomes import CATASTROPHE_TOLERANCE_PP, ScenarioResult, SweepResult
from .percard import without_card
from .spec import (
    MAX_MATCHES,
    MAX_SCENARIOS,
    MAX_TOTAL_MATCHES,
    MAX_VALUES,
    PARAM_NAMES,
    Scenario,
    SweepError,
    build_scenarios,
    check_size,
    count_scenarios,
    param_bounds,
    parse_param,
    parse_values,
)
from .stats import Z95, paired_difference, wilson

# Kept importable from here (callers and docs name ``sweep.X``): specs, figures and statistics
# now live in spec.py, outcomes.py and stats.py; this module runs sweeps.
__all__ = [
    "CATASTROPHE_TOLERANCE_PP", "MAX_MATCHES", "MAX_SCENARIOS", "MAX_TOTAL_MATCHES", "MAX_VALUES",
    "PARAM_NAMES", "SEED_STRIDE", "Z95", "Scenario", "ScenarioResult", "SweepError", "SweepResult",
    "build_scenarios", "check_size", "count_scenarios", "default_chunk", "default_jobs",
    "load_executor", "max_jobs", "paired_difference", "param_bounds", "parse_param",
    "parse_values", "run_chunk", "run_sweep", "wilson",
]

SEED_STRIDE = 1_000_000  # as simulate.SEED_STRIDE
# Below this many matches, a sweep on the compiled kernel runs in this process by default: a
# worker process takes ~0.3-0.5 s to start (Python, pydantic, the deck), the time of ~100,000
# compiled matches. --jobs still decides when given.
INLINE_MATCHES = 150_000
# Matches per chunk at most: ~40 ms of work on padrao for the compiled kernel (~70 ms for the
# Python one), so a chunk's fixed cost stays near 2% while a sweep still has many chunks per
# worker to balance. That cost is the parent's, ~0.9 ms of CPU a chunk (pickling, the pool's
# threads, merging): with 4,000-match chunks it was 9% of the workers' time and held two cores to
# 1.71x on a 30,000-match §7 sweep (docs/simulator.md, "Every core").
CHUNK_CAP = {"c": 16000, "python": 1000}


# -- the work unit (runs in worker processes) ---------------------------------------------------

_DECKS: Dict[str, FastDeck] = {}  # per worker process: deck JSON -> its masks
_WITHOUT: Dict[Tuple[str, str], FastDeck] = {}  # (deck JSON, card id) -> masks without the card
_LOCAL: Dict[str, str] = {}  # our own workers: deck key -> deck JSON, given once per worker


def _fast_deck(deck_json: str, params: Dict[str, int], without: Optional[str] = None
               ) -> FastDeck:
    fd = _DECKS.get(deck_json)
    if fd is None:
        fd = _remember(deck_json, fast_deck(compile_deck(Deck.model_validate_json(deck_json))))
    if without is not None:
        key = (deck_json, without)
        if key not in _WITHOUT:
            c = fd.index.card_index.get(without)
            if c is None:
                raise SweepError(f"without={without!r}: no such card in the deck")
            _WITHOUT[key] = without_card(fd, c)
        fd = _WITHOUT[key]
    Parameters(**params)  # the safe ranges (§7); build_scenarios checked them already
    return fd.with_parameters(params)


def _remember(deck_json: str, fd: FastDeck) -> FastDeck:
    if len(_DECKS) > 4:
        _DECKS.clear()
        _WITHOUT.clear()
    _DECKS[deck_json] = fd
    return fd


def run_chunk(deck_json: str, params: Dict[str, int], policy: str, seed: int, start: int,
              count: int, kernel: Optional[str] = None, without: Optional[str] = None,
              keep_meters: bool = False, draw: str = "standard", keep_picked: bool = False,
              only: Optional[Sequence[int]] = None,
              baseline: Optional[Tuple[bytes, bytes]] = None) -> Tally:
    """Matches ``start .. start+count-1`` of one scenario. Plain picklable arguments and a
    picklable result, so any ``concurrent.futures`` executor can run it. ``kernel``: ``c``,
    ``python`` or None (``kernels.kernel_name``'s choice); the sweep passes the one it reports.
    ``without``: a card id to leave out of the deck (``percard``); ``keep_meters``: record every
    match's ending meters (``Tally.end_meters``, for paired meter comparisons); ``draw``:
    ``standard`` or ``keyed`` (the per-card study's pairs, ``kernel.play_matches``);
    ``keep_picked``: record each match's picked cards (``Tally.picked``); ``only``: play just
    these match numbers (in ``start .. start+count-1``, ascending), not the whole range;
    ``baseline`` (with ``only``): the baseline's catastrophe bytes and ending meters of matches
    ``start .. start+count-1``, and the chunk comes back whole (``complete_replays``), done here
    on the worker rather than in the process that gathers the chunks."""
    base = seed * SEED_STRIDE
    seeds = (range(base + start, base + start + count) if only is None
             else [base + i for i in only])
    fd = _fast_deck(deck_json, params, without)
    played = play_matches(fd, seeds, policy, kernel_choice=kernel, keep_meters=keep_meters,
                          draw=draw, keep_picked=keep_picked)
    if baseline is None or only is None:
        return played
    return complete_replays(played, start, count, only, baseline[0], baseline[1], fd.n_cards,
                            fd.n_meters)


def complete_replays(played: Tally, start: int, count: int, only: Sequence[int],
                     base_catastrophe: bytes, base_meters: bytes, n_cards: int,
                     n_meters: int) -> Tally:
    """A per-card chunk as if every match ``start .. start+count-1`` had been played: the
    baseline's outcomes (``base_catastrophe``: one byte a match; ``base_meters``: ``n_meters``
    bytes a match, from ``start``) with the replayed matches' (``played``, the matches ``only``)
    in their place. Its ``end_sum`` / ``end_sq`` are what the replays change (replayed minus the
    baseline's on those matches): the study adds the baseline's over the card's matches."""
    assert played.matches == len(only)
    k = n_meters
    out = Tally(n_cards, k)
    cat = bytearray(base_catastrophe)
    for j, i in enumerate(only):
        cat[i - start] = played.catastrophe[j]
    theirs = b"".join([base_meters[(i - start) * k:(i - start + 1) * k] for i in only])
    for m in range(k):
        part = theirs[m::k]
        out.end_sum[m] = played.end_sum[m] - sum(part)
        out.end_sq[m] = played.end_sq[m] - sum(map(_SQUARE.__getitem__, part))
    out.matches = count
    out.catastrophe = cat
    out.catastrophes = cat.count(1)
    return out


_SQUARE = [v * v for v in range(256)]  # complete_replays: a meter byte's square


def run_chunks(deck_json: str, calls: Sequence[Tuple[tuple, Dict[str, object]]]) -> List[Tally]:
    """Several ``run_chunk`` calls in one task: ``calls`` holds each one's positional arguments
    after ``deck_json`` and its keyword arguments. The per-card study sends small chunks (a card
    replays only the matches that picked it) this way, so a task's fixed cost (pickling, the
    pipe, waking a worker: ~1-2 ms) is paid once for many."""
    return [run_chunk(deck_json, *args, **kwargs) for args, kwargs in calls]


def _ignore_sigint() -> None:
    # Local workers leave Ctrl-C to the parent, which stops cleanly and keeps finished scenarios.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _deck_key(deck_json: str) -> str:
    return hashlib.sha256(deck_json.encode("utf-8")).hexdigest()[:16]


def _share_deck(key: str, deck_json: str) -> None:
    """Make ``key`` stand for ``deck_json`` in this process (the parent before its workers fork,
    and each worker of our own pool once, as its initializer), so chunks carry 16 characters
    instead of the whole deck (~70 KB for ``padrao``, sent and parsed per chunk otherwise)."""
    if key not in _LOCAL and len(_LOCAL) > 4:
        _LOCAL.clear()
    _LOCAL[key] = deck_json


def _start_worker(key: str, deck_json: str) -> None:
    _ignore_sigint()
    _share_deck(key, deck_json)


def _run_local_chunks(key: str, calls: Sequence[Tuple[tuple, Dict[str, object]]]) -> List[Tally]:
    """``run_chunks`` for our own workers and the inline executor: the deck by its key."""
    return run_chunks(_LOCAL[key], calls)


def _run_local_chunk(key: str, *args, **kwargs) -> Tally:
    """``run_chunk`` for our own workers and the inline executor: the deck by its key."""
    return run_chunk(_LOCAL[key], *args, **kwargs)


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
              in_flight: Optional[int] = None,
              scenarios: Optional[List[Scenario]] = None,
              keep_meters: bool = False) -> SweepResult:
    """Play ``matches`` matches for every scenario of ``grid`` (see ``build_scenarios``), or of
    ``scenarios`` when given (e.g. ``percard.card_scenarios``; index 0 must be the baseline).
    ``keep_meters``: keep every match's ending meters (n_meters bytes a match; ``percard``).

    ``executor``: where chunks run (not shut down here); when None, local processes: ``jobs``
    (default: every core, or this process alone when the compiled kernel has at most
    ``INLINE_MATCHES`` to play; ``jobs=1`` runs in this process), capped at the number of chunks
    and at ``max_jobs()``. Chunks are submitted as earlier ones finish, at most ``in_flight`` at a
    time (default: 3 per worker), so memory does not grow with the size of the sweep.
    ``on_progress(matches_done)`` after each chunk; ``on_result(result)`` when a scenario is
    complete. Ctrl-C (KeyboardInterrupt) stops the sweep: chunks in flight are cancelled and the
    finished scenarios are returned with ``interrupted=True``. Raises ``SweepError`` for a bad
    grid, policy or size (``check_size``).
    """
    if policy not in POLICIES:
        raise SweepError(f"unknown policy '{policy}' (choose from: {', '.join(POLICIES)})")
    scenarios = build_scenarios(deck, grid) if scenarios is None else scenarios
    check_size(len(scenarios), matches)
    kernel = kernel_name()  # every chunk runs this one (SorteioError when it cannot)
    names = list(grid)
    deck_json = deck.model_dump_json()
    own = executor is None
    if jobs is not None and jobs < 1:
        raise SweepError("jobs must be >= 1")
    workers = jobs or _executor_workers(executor) or default_jobs()
    if own and jobs is None and kernel == "c" and len(scenarios) * matches <= INLINE_MATCHES:
        workers = 1  # less work than it takes to start a worker process
    if own:
        workers = min(workers, max_jobs())
    if chunk is None:
        chunk = default_chunk(len(scenarios), matches, workers, kernel)
    key = _deck_key(deck_json)
    if own:  # no more processes than chunks to give them
        workers = max(1, min(workers, len(scenarios) * math.ceil(matches / chunk)))
        _share_deck(key, deck_json)  # before the workers fork, and for the inline executor
        executor = (_InlineExecutor() if workers == 1 else
                    ProcessPoolExecutor(max_workers=workers, initializer=_start_worker,
                                        initargs=(key, deck_json)))
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
                # Our own workers know the deck by its key; another executor's get its JSON.
                fut = executor.submit(_run_local_chunk if own else run_chunk,
                                      key if own else deck_json, sc.params, policy, seed, start,
                                      count, kernel, sc.without, keep_meters)
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
                       len(scenarios), workers if own else None, kernel,
                       ctrl_c.signum if interrupted else None)


def _executor_workers(executor: Optional[Executor]) -> Optional[int]:
    """Workers of a plugged-in executor when it says (the standard pools do), else None."""
    n = getattr(executor, "_max_workers", None)
    return n if isinstance(n, int) and n > 0 else None


def default_chunk(n_scenarios: int, matches: int, workers: int, kernel: str = "python") -> int:
    """Matches per chunk: >= 4 chunks per worker over the sweep, 100 to ``CHUNK_CAP[kernel]``
    (1,000 for the Python kernel, 16,000 for the compiled one) matches each, and the chunks of a
    scenario of equal size (3,000 matches in chunks of 1,500, not 2,500 + 500)."""
    cap = CHUNK_CAP.get(kernel, CHUNK_CAP["python"])
    chunk = max(100, min(cap, math.ceil(n_scenarios * matches / (4 * workers))))
    return max(1, math.ceil(matches / math.ceil(matches / chunk)))

