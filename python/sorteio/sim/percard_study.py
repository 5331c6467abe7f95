"""The per-card study (``sorteio simulate --per-card``, the editor's per-card job): as many
matches as a stated precision needs, then Benjamini-Hochberg over every card.

Rounds. The first plays ``first`` matches of the whole deck and of every deck without one card
(``percard``: same seeds, paired, keyed draw). With the keyed draw a match that did not pick
the card is its own match without the card, so each round plays the baseline first, keeping
each match's picked cards, then each card only on the matches that picked it (``replay_only``;
the other matches are the baseline's). After each round, each card whose 95% interval of Δ
catastrophe is still wider than ±``half_width_pp`` is given the matches its own variance says
it needs (n × (half-width now / target)², +5%, in steps of ``STEP``), up to ``max_matches``; the
baseline is played as far as the furthest card. Cards that reach the precision (or the cap)
stop. Stopping looks at the interval's width only, never at Δ itself, so it does not pick the
answer. Then every card's paired difference gets a p-value, and Benjamini-Hochberg keeps the
expected share of chance findings among the flagged cards at ``fdr`` (see docs/simulator.md for
why BH and not Holm).

``PerCardPlan`` is the bookkeeping alone (what to play next, what was measured): the CLI runs its
work on worker processes (``run_per_card``), the editor bridge a chunk at a time
(``bridge.designer``). The figures depend only on the deck, seed, player and the two limits:
never on workers, chunk sizes or completion order.
"""

import math
import operator
from concurrent.futures import Executor, Future, ProcessPoolExecutor
from concurrent.futures import wait as wait_futures
from concurrent.futures.process import BrokenProcessPool
from itertools import compress
from typing import Callable, Dict, List, NamedTuple, Optional, Tuple

from ..compiled import compile_deck
from ..deck import Deck
from .kernel import POLICIES, Tally
from .kernels import kernel_name
from .masks import fast_deck, popcount
from .outcomes import ScenarioResult
from .percard import (
    DEFAULT_HALF_WIDTH_PP,
    DEFAULT_MAX_MATCHES,
    DEFAULT_POLICY,
    DRAW,
    FDR,
    CardEffect,
    CardFigures,
    MeterSums,
    card_scenarios,
    paired_half_width,
    rank_effects,
)
from .spec import MAX_TOTAL_MATCHES, Scenario, SweepError
from .sweep import (
    _CtrlC,
    _deck_key,
    _InlineExecutor,
    _remember,
    _run_local_chunks,
    _share_deck,
    _start_worker,
    _stop_workers,
    default_jobs,
    max_jobs,
    run_chunks,
)

# _HAS_BIT[b]: bytes.translate table giving 1 for the bytes with bit b set, else 0.
_HAS_BIT = [bytes(x >> b & 1 for x in range(256)) for b in range(8)]

FIRST = 5_000  # matches of the first round (per card)
STEP = 1_000  # later rounds plan in multiples of this
CHUNK = 10_000  # matches per work unit on worker processes (a card replays ~40% of them)
BATCH_MATCHES = 20_000  # matches played per task: a few chunks each (run_chunks), ~50 ms
INLINE_MATCHES = 150_000  # a study at most this big (cap x scenarios) runs in this process

Work = Tuple[int, int, int]  # (scenario index, first match, count)


class Progress(NamedTuple):
    """Where a study is: matches played and planned so far (the plan grows after each round),
    cards settled (precise or capped) of ``cards``, and the round."""

    done: int
    planned: int
    settled: int
    cards: int
    round: int


class PerCardResult(NamedTuple):
    """A finished (or interrupted) study. ``effects``: ranked (``percard.rank_effects``), empty
    when not even the first round finished; ``baseline``: the whole deck over the most matches
    any card played."""

    effects: List[CardEffect]
    baseline: Optional[ScenarioResult]
    deck_name: str
    seed: int
    policy: str
    half_width_pp: float
    max_matches: int
    fdr: float
    matches_played: int
    rounds: int
    cards_total: int
    kernel: str = "python"
    workers: Optional[int] = None
    interrupted: bool = False
    stopped_by: Optional[int] = None
    matches_simulated: int = 0  # what the kernels played: the replays, not every pair (keyed)

    @property
    def flagged(self) -> List[CardEffect]:
        return [e for e in self.effects if e.flagged]

    def summary(self) -> str:
        """The answer in one Portuguese sentence."""
        k, m = len(self.flagged), len(self.effects)
        imprecise = sum(not e.precise for e in self.effects)
        text = (f"{k} de {m} cartas mudam a catástrofe além do acaso (Benjamini-Hochberg: no "
                f"máximo {100 * self.fdr:g}% de falsas descobertas esperadas entre elas); as "
                f"outras {m - k} não se distinguem do acaso com ±{self.half_width_pp:g} ponto de "
                f"precisão.")
        if imprecise:
            text += (f" {imprecise} carta(s) pararam no limite de {self.max_matches} partidas "
                     f"antes dessa precisão.")
        if self.baseline is not None and self.baseline.tally.catastrophes == 0:
            text += (f" Com o jogador {self.policy} nenhuma partida do baralho inteiro terminou "
                     f"em catástrofe, então nenhuma carta pode mudá-la: o jogador random (escolhe "
                     f"ao acaso) é o que põe o baralho à prova.")
        return text


class _Card:
    """One scenario's state: the matches merged so far, the paired counts, the next target."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        self.tally: Optional[Tally] = None
        self.up = self.down = 0
        self.target = 0
        self.settled = False
        self.precise = False
        self.pieces: Dict[int, Tally] = {}

    @property
    def played(self) -> int:
        return self.tally.matches if self.tally is not None else 0


class PerCardPlan:
    """The study's bookkeeping (see the module docstring). ``work()`` lists the current round's
    chunks; ``add`` takes each played chunk (any order); ``end_round`` merges them and plans the
    next round (or finishes). Raises ``SweepError`` for a bad policy, precision or cap."""

    def __init__(self, deck: Deck, seed: int = 0, policy: str = DEFAULT_POLICY,
                 half_width_pp: float = DEFAULT_HALF_WIDTH_PP,
                 max_matches: int = DEFAULT_MAX_MATCHES, first: int = FIRST,
                 chunk: int = CHUNK, fdr: float = FDR) -> None:
        if policy not in POLICIES:
            raise SweepError(f"unknown policy '{policy}' (choose from: {', '.join(POLICIES)})")
        if not (half_width_pp >= 0 and math.isfinite(half_width_pp)):
            raise SweepError(f"precision {half_width_pp}: give a half-width in points >= 0")
        if max_matches < 1:
            raise SweepError("the cap of matches per card must be >= 1")
        if not 0 < fdr < 1:
            raise SweepError(f"false discovery rate {fdr}: give a value between 0 and 1")
        self.deck, self.seed, self.policy = deck, seed, policy
        self.half_width_pp, self.max_matches, self.fdr = half_width_pp, max_matches, fdr
        self.chunk = max(1, chunk)
        self.scenarios = card_scenarios(deck)
        if len(self.scenarios) * max_matches > MAX_TOTAL_MATCHES:
            raise SweepError(f"{len(self.scenarios) - 1} cards x {max_matches:,} matches is more "
                             f"than the {MAX_TOTAL_MATCHES:,} a study may play (one byte per "
                             "match is kept); lower the cap")
        self.index = compile_deck(deck)
        self.draw = DRAW  # every scenario, baseline included: the pairs read the same streams
        # With the keyed draw a match without card c is the baseline's match, card for card,
        # unless the baseline picked c (drew it or reserved it for an obligation): then only
        # those matches are played without c, the others are the baseline's (tests/test_keyed.py
        # checks the identity). Not for lookahead, whose choice reads the eligible cards.
        self.replay_only = self.draw == "keyed" and policy != "lookahead"
        self._awaiting_cards = False
        self._only: Dict[Work, Tuple[int, ...]] = {}
        self._replayed: Dict[Work, int] = {}  # handed-out replay chunks: matches they play
        self.simulated = 0
        self.cards = [_Card(sc) for sc in self.scenarios]
        self.base = self.cards[0]
        self.round = 0
        self.done = 0
        self.finished = len(self.cards) == 1  # a deck without playable cards: nothing to do
        self._work: List[Work] = []
        for card in self.cards:
            card.target = min(max(1, first), max_matches)
        self._plan_work()

    # -- the round ---------------------------------------------------------------------------

    def work(self) -> List[Work]:
        """The chunks of the current round not handed out yet (empty when finished)."""
        out, self._work = self._work, []
        return out

    def chunk_options(self, item: Work) -> Dict[str, object]:
        """``sweep.run_chunk``'s keyword arguments for a chunk of ``work()``: the draw, what the
        baseline keeps, and (replays) the only matches a card's chunk plays."""
        s_index = item[0]
        out: Dict[str, object] = {"keep_meters": self.keep_meters(s_index), "draw": self.draw}
        if self.replay_only:
            if s_index == 0:
                out["keep_picked"] = True
            else:  # the worker completes the chunk from the baseline's outcomes (run_chunk)
                _, start, count = item
                b, k = self.base.tally, len(self.index.meter_ids)
                assert b is not None
                out["only"] = self._only.pop(item)
                self._replayed[item] = len(out["only"])  # type: ignore[arg-type]
                out["baseline"] = (bytes(b.catastrophe[start:start + count]),
                                   bytes(b.end_meters[start * k:(start + count) * k]))
        return out

    def add(self, item: Work, tally: Tally) -> None:
        """A played chunk of the current round."""
        s_index, start, count = item
        # A card's replayed chunk comes back whole (run_chunk's baseline): count what was played.
        self.simulated += self._replayed.pop(item) if item in self._replayed else tally.matches
        self.cards[s_index].pieces[start] = tally
        self.done += count

    def _replays(self, item: Work) -> Tuple[int, ...]:
        """The matches of ``item`` (a card's chunk) whose baseline picked the card."""
        s_index, start, count = item
        t = self.base.tally
        assert t is not None and self.scenarios[s_index].without is not None
        c = self.index.card_index[self.scenarios[s_index].without]
        nb = 8 * (len(self.index.card_ids) // 64 + 1)
        column = t.picked[start * nb + c // 8:(start + count) * nb:nb]
        return tuple(compress(range(start, start + count), column.translate(_HAS_BIT[c % 8])))

    def progress(self) -> Progress:
        planned = sum(max(c.target, c.played) for c in self.cards)
        settled = sum(c.settled for c in self.cards[1:])
        return Progress(self.done, planned, settled, len(self.cards) - 1, self.round)

    def end_round(self) -> None:
        """Merge the round's chunks (all must have been added), measure, plan the next. With
        replays a round has two steps: the baseline first (its picks say what the cards
        replay), then the cards; the first call after the baseline's chunks plans the cards."""
        base = self.base
        self._merge(base)
        if self._awaiting_cards:
            self._awaiting_cards = False
            self._plan_work(cards=True)
            return
        for card in self.cards[1:]:
            if card.settled:
                continue
            old = card.played
            self._merge(card)
            new = card.played
            a = int.from_bytes(bytes(card.tally.catastrophe[old:new]), "little")
            b = int.from_bytes(bytes(base.tally.catastrophe[old:new]), "little")
            both = popcount(a & b)  # bytes are 0/1: one set bit per catastrophe
            card.up += popcount(a) - both
            card.down += popcount(b) - both
            self._settle(card)
        self.round += 1
        if all(c.settled for c in self.cards[1:]):
            self.finished = True
            return
        # The baseline as far as the furthest card (never less than it has played already).
        base.target = max(base.played, *(c.target for c in self.cards[1:]))
        self._plan_work()

    def _merge(self, card: _Card) -> None:
        start = card.played
        while start in card.pieces:
            piece = card.pieces.pop(start)
            if card.tally is None:
                card.tally = piece
            else:
                card.tally.merge(piece)
            start = card.played
        if card.pieces or card.played < card.target:
            raise RuntimeError(f"round {self.round}: scenario {card.scenario.index} has "
                               f"{card.played} of {card.target} matches")  # a driver's bug

    def _settle(self, card: _Card) -> None:
        n = card.played
        half = 100 * paired_half_width(card.up, card.down, n)
        if half <= self.half_width_pp:
            card.settled = card.precise = True
        elif n >= self.max_matches:
            card.settled = True
        else:
            need = n * (half / self.half_width_pp) ** 2 * 1.05 if self.half_width_pp else math.inf
            need = min(need, 16.0 * n)  # an early variance estimate may be far off
            target = max(n + STEP, STEP * math.ceil(need / STEP))
            card.target = min(self.max_matches, target)

    def _plan_work(self, cards: bool = False) -> None:
        """Chunks from each scenario's played matches to its target (with replays: the
        baseline's alone, then, with ``cards``, the cards')."""
        work: List[Work] = []
        if self.replay_only and not cards:
            self._awaiting_cards = True
        for i, card in enumerate(self.cards):
            if card.settled or card.played >= card.target:
                continue
            if self.replay_only and (i == 0) == cards:
                continue
            stops = set(range(card.played + self.chunk, card.target, self.chunk))
            stops.add(card.target)
            start = card.played
            for stop in sorted(stops):
                item = (card.scenario.index, start, stop - start)
                if self.replay_only and i:
                    self._only[item] = self._replays(item)
                work.append(item)
                start = stop
        self._work = work

    def keep_meters(self, s_index: int) -> bool:
        """Whether chunks of scenario ``s_index`` keep every match's ending meters: the
        baseline's only (8 bytes a match on padrao), to sum them over each card's matches."""
        return s_index == 0

    # -- the answer ----------------------------------------------------------------------------

    def _base_sums(self) -> Dict[int, MeterSums]:
        """The baseline's ending meters summed over its first n matches, for every card's n."""
        t = self.base.tally
        assert t is not None
        k = len(self.index.meter_ids)
        total, squares = [0] * k, [0] * k
        out, last = {}, 0
        for n in sorted({c.played for c in self.cards[1:]}):
            for m in range(k):
                part = t.end_meters[last * k + m:n * k:k]
                total[m] += sum(part)
                squares[m] += sum(map(operator.mul, part, part))
            out[n], last = MeterSums(n, tuple(total), tuple(squares)), n
        return out

    def result(self, kernel: str = "python", workers: Optional[int] = None,
               interrupted: bool = False, stopped_by: Optional[int] = None) -> PerCardResult:
        """The effects measured over the finished rounds."""
        index = self.index
        base = self.base
        effects: List[CardEffect] = []
        baseline = None
        if base.tally is not None and self.round:
            baseline = ScenarioResult(base.scenario, base.tally, index)
            draws = baseline.card_frequency()
            modes = {c: index.mode_names[index.mode[i]] for i, c in enumerate(index.card_ids)}
            figures = []
            base_sums = self._base_sums()
            for card in self.cards[1:]:
                t, cid = card.tally, card.scenario.without
                assert t is not None and cid is not None
                mine = MeterSums(t.matches, tuple(t.end_sum), tuple(t.end_sq))
                if self.replay_only:  # the replays' changes (sweep.complete_replays)
                    theirs = base_sums[t.matches]
                    mine = MeterSums(t.matches,
                                     tuple(map(operator.add, mine.end_sum, theirs.end_sum)),
                                     tuple(map(operator.add, mine.end_sq, theirs.end_sq)))
                figures.append(CardFigures(
                    cid, modes[cid], t.matches, t.catastrophes, card.up, card.down, mine,
                    base_sums[t.matches], draws.get(cid, 0.0), card.precise))
            order = {c: i for i, c in enumerate(index.card_ids)}
            effects = rank_effects(figures, index.meter_ids, self.fdr, order)
        return PerCardResult(effects, baseline, self.deck.nome, self.seed, self.policy,
                             self.half_width_pp, self.max_matches, self.fdr,
                             sum(c.played for c in self.cards), self.round,
                             len(self.cards) - 1, kernel, workers, interrupted, stopped_by,
                             self.simulated)


# -- running on processes -------------------------------------------------------------------------

_POLL = 0.2


def run_per_card(deck: Deck, seed: int = 0, policy: str = DEFAULT_POLICY,
                 half_width_pp: float = DEFAULT_HALF_WIDTH_PP,
                 max_matches: int = DEFAULT_MAX_MATCHES, first: int = FIRST,
                 jobs: Optional[int] = None, executor: Optional[Executor] = None,
                 on_progress: Optional[Callable[[Progress], None]] = None,
                 chunk: int = CHUNK, fdr: float = FDR) -> PerCardResult:
    """The whole study (``PerCardPlan``) on ``jobs`` local processes (default: every core; this
    process alone when the study is at most ``INLINE_MATCHES``), or on ``executor``.
    ``on_progress(Progress)`` after each chunk. Ctrl-C / SIGTERM stop it and keep the finished
    rounds (``interrupted``). Raises ``SweepError`` for bad limits or a dead worker."""
    plan = PerCardPlan(deck, seed, policy, half_width_pp, max_matches, first, chunk, fdr)
    kernel = kernel_name()
    deck_json = deck.model_dump_json()
    key = _deck_key(deck_json)
    own = executor is None
    if jobs is not None and jobs < 1:
        raise SweepError("jobs must be >= 1")
    workers = jobs or default_jobs()
    if own and jobs is None and len(plan.cards) * max_matches <= INLINE_MATCHES:
        workers = 1
    if own:
        workers = min(workers, max_jobs())
        # Forked workers find the masks built (as run_sweep does).
        _remember(deck_json, fast_deck(plan.index))
        # Our own workers get the deck once and know it by its key (as run_sweep's): a chunk
        # carries 16 characters, not the deck's JSON to pickle and compare (~70 KB for padrao).
        _share_deck(key, deck_json)
        executor = (_InlineExecutor() if workers == 1 else
                    ProcessPoolExecutor(max_workers=workers, initializer=_start_worker,
                                        initargs=(key, deck_json)))
    assert executor is not None
    limit = 3 * workers
    futures: Dict[Future, List[Work]] = {}
    params = plan.scenarios[0].params
    interrupted = False

    def batches(items: List[Work]):
        """The round's chunks, a few per task (``run_chunks``): ~BATCH_MATCHES matches played
        a task, and at least 4 tasks per worker so none waits for the others."""
        calls = []
        for item in items:
            s_index, start, count = item
            options = plan.chunk_options(item)
            only = options.get("only")
            calls.append((item, len(only) if only is not None else count,  # type: ignore[arg-type]
                          ((params, policy, seed, start, count, kernel,
                            plan.scenarios[s_index].without), options)))
        size = max(1, min(BATCH_MATCHES, sum(c[1] for c in calls) // (4 * workers)))
        batch: list = []
        weight = 0
        for item, played, call in calls:
            batch.append((item, call))
            weight += played
            if weight >= size:
                yield batch
                batch, weight = [], 0
        if batch:
            yield batch

    def finish(fut: Future) -> None:
        for item, tally in zip(futures.pop(fut), fut.result()):
            plan.add(item, tally)
        if on_progress is not None:
            on_progress(plan.progress())

    def collect() -> None:
        finished, _ = wait_futures(list(futures), timeout=_POLL, return_when="FIRST_COMPLETED")
        for fut in finished:
            finish(fut)

    with _CtrlC() as ctrl_c:
        try:
            while not plan.finished:
                for batch in batches(plan.work()):
                    while len(futures) >= limit and not ctrl_c.pressed:
                        collect()
                    if ctrl_c.pressed:
                        raise KeyboardInterrupt
                    fut = executor.submit(_run_local_chunks if own else run_chunks,
                                          key if own else deck_json, [c for _, c in batch])
                    futures[fut] = [item for item, _ in batch]
                    if fut.done():
                        finish(fut)
                while futures and not ctrl_c.pressed:
                    collect()
                if ctrl_c.pressed:
                    raise KeyboardInterrupt
                plan.end_round()
                if on_progress is not None:
                    on_progress(plan.progress())
        except KeyboardInterrupt:
            interrupted = True
            for fut in futures:
                fut.cancel()
            if own and workers > 1:
                _stop_workers(executor)
        except BrokenProcessPool:
            if not ctrl_c.pressed:
                raise SweepError("a worker process died before finishing its matches (killed? "
                                 "out of memory?); run again, or with fewer --jobs") from None
            interrupted = True
        except BaseException:
            for fut in futures:
                fut.cancel()
            raise
        finally:
            if own:
                executor.shutdown(wait=True)
    return plan.result(kernel, workers if own else None, interrupted,
                       ctrl_c.signum if interrupted else None)
