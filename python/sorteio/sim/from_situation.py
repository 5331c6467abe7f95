"""Matches simulated from a designer's situation (``sorteio simulate --situation``, the panel's
``simulate_start`` with ``situation``; see ``sorteio.situation``).

The simulation kernels play whole matches from the start; a situation starts mid-match, so its
matches are played by the oracle ``Engine`` itself (no rule is written here: this module only
adds up what the engine reports, into the kernels' ``Tally``, so the figures, intervals and
reports are the ones ``simulate`` gives). Match ``i`` of a run with seed ``s`` uses seed
``s * SEED_STRIDE + i`` for the draw and the player, as every simulation does. The oracle plays
~1,000-2,000 matches a second from year 3 (README "Speed"), fast enough for a few thousand.
"""

from typing import Callable, Iterable, Optional

from ..compiled import compile_deck
from ..deck import Deck
from ..match import MatchObserver, Step, play_match
from ..results import CATASTROPHE, TurnEnd, TurnStart
from ..situation import Situation, situation_engine
from .kernel import Tally
from .outcomes import ScenarioResult, SweepResult
from .simulate import SEED_STRIDE
from .spec import Scenario


class _Adder(MatchObserver):
    """Adds one match's turns and cards to a ``Tally`` (the kernels' meaning of each field)."""

    def __init__(self, tally: Tally, index) -> None:
        self.t, self.ix = tally, index

    def turn_started(self, turn: TurnStart) -> None:
        self.t.turns += 1

    def card_played(self, step: Step) -> None:
        c = self.ix.card_index[step.draw.card_id]
        self.t.card_draws[c] += 1
        if step.draw.reason["kind"] == "mandatory":
            self.t.mandatory += 1
            self.t.card_mandatory[c] += 1

    def turn_ended(self, end: TurnEnd) -> None:
        t = self.t
        t.turns_closed += 1
        t.short_turns += end.short
        t.close_n[end.year] += 1
        for m, value in enumerate(end.meters.values()):
            t.close_sum[end.year][m] += value
            t.close_sq[end.year][m] += value * value


def situation_tally(deck: Deck, situation: Situation, seeds: Iterable[int],
                    policy: str) -> Tally:
    """Play one match from ``situation`` per seed; their ``Tally``. ``cards_played`` counts the
    cards drawn from the situation on, not those it lists as already played."""
    ix = compile_deck(deck)
    tally = Tally(len(ix.card_ids), len(ix.meter_ids))
    adder = _Adder(tally, ix)
    for seed in seeds:
        engine = situation_engine(deck, situation, seed)
        end = play_match(deck, seed, policy, observer=adder, engine=engine)
        tally.matches += 1
        tally.cards_played += end.cards_played - len(situation.cartas_jogadas)
        tally.end_year[end.year] += 1
        meters = list(end.meters.values())
        for m, value in enumerate(meters):
            tally.end_sum[m] += value
            tally.end_sq[m] += value * value
        if end.reason == CATASTROPHE:
            tally.catastrophes += 1
            tally.zeroed[ix.meter_index[end.zeroed]] += 1
        tally.catastrophe.append(end.reason == CATASTROPHE)
    return tally


def situation_result(deck: Deck, situation: Situation, tally: Tally, matches: int, seed: int,
                     policy: str) -> SweepResult:
    """The one-scenario ``SweepResult`` of a finished run (what the reports take)."""
    scenario = Scenario(0, deck.parametros.model_dump(), True)
    result = ScenarioResult(scenario, tally, compile_deck(deck))
    return SweepResult([result], [], matches, seed, policy, deck.nome, False, 1, 1,
                       kernel="oracle")


def simulate_situation(deck: Deck, situation: Situation, matches: int, seed: int = 0,
                       policy: str = "random", chunk: int = 50,
                       progress: Optional[Callable[[int], None]] = None) -> SweepResult:
    """``matches`` matches from ``situation``, ``progress(done)`` after each chunk."""
    tally = Tally(0, 0)
    base = seed * SEED_STRIDE
    for start in range(0, matches, chunk):
        part = situation_tally(deck, situation, range(base + start,
                                                      base + min(matches, start + chunk)), policy)
        if start == 0:
            tally = part
        else:
            tally.merge(part)
        if progress is not None:
            progress(min(matches, start + chunk))
    return situation_result(deck, situation, tally, matches, seed, policy)
