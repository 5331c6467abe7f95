"""The reference match loop: the draw played end to end (stand-in for GDD systems 08 and 10).

A match is 4 turns (years). Before each turn's draw the events hook runs (GDD 08; no-op by default),
then the engine's mandatory list, then one card at a time until the turn closes. An optional scene
hook may show impeachment cards between slots (GDD 03; §3.5 "fora das 7"). A player policy picks
each option. Same deck + seed + policy = same match.
"""

from typing import Callable, Dict, List, NamedTuple, Optional

from .deck import Deck
from .engine import DRAWING, ENDED, Engine
from .results import Choice, Draw, MatchEnd, TurnEnd, TurnStart
from .rng import Rng

Policy = Callable[[Engine, Draw], int]
EventsHook = Callable[[Engine], None]
SceneHook = Callable[[Engine], Optional[str]]


class Step(NamedTuple):
    """One card of a match: the draw and the option chosen after it."""

    draw: Draw
    choice: Choice


class MatchObserver:
    """Override what you need: called in play order (the CLI prints from these)."""

    def turn_started(self, turn: TurnStart) -> None: ...

    def card_played(self, step: Step) -> None: ...

    def turn_ended(self, end: TurnEnd) -> None: ...


def random_policy(seed: int) -> Policy:
    """A player who picks each option with equal chance; its own RNG, seeded from ``seed``."""
    rng = Rng(seed)

    def choose(engine: Engine, draw: Draw) -> int:
        return draw.option_order[rng.below(len(draw.option_order))]

    return choose


def protect_weakest_policy(seed: int = 0) -> Policy:
    """A player who picks the option leaving the lowest meter highest (ties: first shown)."""

    def choose(engine: Engine, draw: Draw) -> int:
        effects = engine.index.meter_effects[engine.current_card]
        best, best_floor = draw.option_order[0], -1
        for option in draw.option_order:
            after = list(engine.meters)
            for m, delta in effects[option]:
                after[m] = min(100, max(0, after[m] + delta))
            floor = min(after)
            if floor > best_floor:
                best, best_floor = option, floor
        return best

    return choose


def _after(meters: List[int], effects) -> List[int]:
    out = list(meters)
    for m, delta in effects:
        out[m] = min(100, max(0, out[m] + delta))
    return out


def lookahead_policy(seed: int = 0) -> Policy:
    """A careful player who looks one card ahead (maximin over the next card).

    For each option (in the order shown): the meters after it, and their lowest value
    (``floor``). Then, for every card that could be shown next — the cards eligible now
    (§3.1; this one is already shown, years and actor levels as they are before the option) —
    the best reply: the option of that card leaving the lowest meter highest. The option's score
    is the worst best reply over those cards (just ``floor`` when it ends the match or no card is
    left). It picks the highest ``(score, floor)``; ties: the option shown first. No randomness.
    """

    def choose(engine: Engine, draw: Draw) -> int:
        ix = engine.index
        effects = ix.meter_effects[engine.current_card]
        upcoming = engine.eligible_cards()
        best, best_key = draw.option_order[0], (-1, -1)
        for option in draw.option_order:
            after = _after(engine.meters, effects[option])
            floor = min(after)
            score = floor
            if floor > 0 and upcoming:
                score = min(max(min(_after(after, reply)) for reply in ix.meter_effects[c])
                            for c in upcoming)
            if (score, floor) > best_key:
                best, best_key = option, (score, floor)
        return best

    return choose


POLICIES: Dict[str, Callable[[int], Policy]] = {
    "random": random_policy,
    "protect": protect_weakest_policy,
    "lookahead": lookahead_policy,
}


def make_policy(name: str, seed: int) -> Policy:
    """A policy by name (``random``, ``protect`` or ``lookahead``). Raises ValueError for an
    unknown name."""
    if name not in POLICIES:
        raise ValueError(f"unknown policy '{name}' (choose from: {', '.join(POLICIES)})")
    # The player's RNG is derived from the match seed but separate from the engine's.
    return POLICIES[name](seed ^ 0x5EED)


def play_turn(engine: Engine, policy: Policy, observer: Optional[MatchObserver] = None,
              scene: Optional[SceneHook] = None) -> List[Step]:
    """Play the current turn to its closing (or to a catastrophe). Phase must be ``drawing``."""
    steps: List[Step] = []
    while engine.phase == DRAWING:
        scene_card = scene(engine) if scene is not None else None
        draw = engine.show_scene_card(scene_card) if scene_card else engine.draw()
        if draw is None:
            if observer is not None and engine.last_turn_end is not None:
                observer.turn_ended(engine.last_turn_end)
            break
        step = Step(draw, engine.choose(policy(engine, draw)))
        steps.append(step)
        if observer is not None:
            observer.card_played(step)
    return steps


def play_match(deck: Deck, seed: int = 0, policy: str = "random",
               observer: Optional[MatchObserver] = None, events: Optional[EventsHook] = None,
               scene: Optional[SceneHook] = None, engine: Optional[Engine] = None) -> MatchEnd:
    """Play a whole match (or continue ``engine``, e.g. a loaded one) and return how it ended."""
    engine = engine if engine is not None else Engine(deck, seed)
    chooser = make_policy(policy, seed)
    while engine.phase != ENDED:
        if engine.phase == "turn_start":
            if events is not None:
                events(engine)
            turn = engine.start_turn()
            if observer is not None and engine.phase == DRAWING:
                observer.turn_started(turn)
        elif engine.phase == "awaiting_choice":
            assert engine.current is not None
            step = Step(engine.current, engine.choose(chooser(engine, engine.current)))
            if observer is not None:
                observer.card_played(step)
        else:
            play_turn(engine, chooser, observer, scene)
    assert engine.ending is not None
    return engine.ending
