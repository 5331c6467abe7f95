"""Many matches in a row, summarised for designers (GDD 06 §7: "Simulação ... 3.000 partidas").

Match ``i`` of a run with seed ``s`` uses engine seed ``s * 1_000_000 + i``: every match is
reproducible on its own, and the whole run is reproducible from ``s``.
"""

from collections import Counter
from typing import Callable, Dict, List, NamedTuple, Optional

from ..deck import Deck
from ..match import MatchObserver, Step, play_match
from ..results import CATASTROPHE, TurnEnd, TurnStart

SEED_STRIDE = 1_000_000


class Summary(NamedTuple):
    """Aggregates over ``matches`` matches. Rates are fractions 0-1; counts are totals."""

    matches: int
    catastrophes: int
    cards_played: int
    turns: int
    short_turns: int
    mandatory_slots: int
    ending_meters_mean: Dict[str, float]
    card_draws: Dict[str, int]
    mode_draws: Dict[str, int]
    never_drawn: List[str]

    @property
    def catastrophe_rate(self) -> float:
        return self.catastrophes / self.matches if self.matches else 0.0

    @property
    def mandatory_per_turn(self) -> float:
        return self.mandatory_slots / self.turns if self.turns else 0.0

    def to_dict(self) -> dict:
        out = dict(self._asdict())
        out["catastrophe_rate"] = self.catastrophe_rate
        out["mandatory_per_turn"] = self.mandatory_per_turn
        return out


class _Tally(MatchObserver):
    def __init__(self) -> None:
        self.cards: Counter = Counter()
        self.modes: Counter = Counter()
        self.turns = 0
        self.short = 0
        self.mandatory = 0

    def turn_started(self, turn: TurnStart) -> None:
        self.turns += 1

    def card_played(self, step: Step) -> None:
        self.cards[step.draw.card_id] += 1
        self.modes[step.draw.card["modo"]] += 1
        if step.draw.reason["kind"] == "mandatory":
            self.mandatory += 1

    def turn_ended(self, end: TurnEnd) -> None:
        self.short += end.short


def simulate(deck: Deck, matches: int, seed: int = 0, policy: str = "random",
             progress: Optional[Callable[[int], None]] = None) -> Summary:
    """Play ``matches`` matches; ``progress(done)`` is called after each one."""
    tally = _Tally()
    catastrophes = cards = 0
    meter_sums: Counter = Counter()
    for i in range(matches):
        end = play_match(deck, seed * SEED_STRIDE + i, policy, observer=tally)
        catastrophes += end.reason == CATASTROPHE
        cards += end.cards_played
        meter_sums.update(end.meters)
        if progress is not None:
            progress(i + 1)
    ids = [c.id for c in deck.cartas if c.playable]
    return Summary(
        matches=matches,
        catastrophes=catastrophes,
        cards_played=cards,
        turns=tally.turns,
        short_turns=tally.short,
        mandatory_slots=tally.mandatory,
        ending_meters_mean={m.id: meter_sums[m.id] / matches if matches else 0.0
                            for m in deck.medidores},
        card_draws={c: tally.cards[c] for c in ids},
        mode_draws=dict(sorted(tally.modes.items())),
        never_drawn=[c for c in ids if not tally.cards[c]],
    )
