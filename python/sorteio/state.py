"""Save and load a match at any point, mid-turn included (issue: determinism).

The saved JSON holds every counter and the RNG state (not the seed), so a loaded match continues
exactly as if it had never been saved. Ids, not positions, are stored: a save file is readable, and
``load_state`` checks it against the deck through the deck's fingerprint.
"""

from typing import Dict, List, Optional

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .deck import Deck
from .engine import AWAITING_CHOICE, DRAWING, ENDED, TURN_START, YEARS, Engine
from .errors import StateError
from .results import ACTOR, EMERGENCY, METER, Draw, MatchEnd, Obligation, TurnEnd, TurnStart

FORMAT = "sorteio-match/1"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SavedObligation(_Model):
    kind: str = Field(pattern=f"^({EMERGENCY}|{ACTOR}|{METER})$")
    target: str
    card_id: Optional[str]
    merged: List[Dict[str, str]] = Field(default_factory=list)


class SavedDraw(_Model):
    slot: int = Field(ge=0)
    card_id: str
    reason: dict
    option_order: List[int]


class SavedMatch(_Model):
    """The whole engine state. ``rng``: 625 Mersenne Twister words (see ``Rng.get_state``)."""

    format: str = Field(FORMAT, pattern=f"^{FORMAT}$")
    deck: str = Field(description="fingerprint of the deck the match was played with")
    year: int = Field(ge=1, le=YEARS)
    phase: str = Field(pattern=f"^({TURN_START}|{DRAWING}|{AWAITING_CHOICE}|{ENDED})$")
    slot: int = Field(ge=0)
    meters: Dict[str, int]
    satisfaction: Dict[str, int]
    played: List[str]
    emergency_spent: List[str]
    attacked: List[str]
    carried: List[str]
    last_closing: Optional[Dict[str, int]]
    pending: List[SavedObligation]
    turn_cards: List[str]
    current: Optional[SavedDraw]
    last_turn_start: Optional[dict]
    last_turn_end: Optional[dict]
    ending: Optional[dict]
    rng: List[int]


def save_state(engine: Engine) -> dict:
    """The engine's whole state as JSON-safe data (``SavedMatch`` shape)."""
    ix = engine.index
    cards, meters, actors = ix.card_ids, ix.meter_ids, ix.actor_ids
    current = engine.current
    return {
        "format": FORMAT,
        "deck": ix.fingerprint,
        "year": engine.year,
        "phase": engine.phase,
        "slot": engine.slot,
        "meters": engine.meter_values(),
        "satisfaction": dict(zip(actors, engine.satisfaction)),
        "played": [cards[c] for c in engine.played],
        "emergency_spent": [meters[m] for m, s in enumerate(engine.emergency_spent) if s],
        "attacked": [actors[a] for a, s in enumerate(engine.attacked) if s],
        "carried": [meters[m] for m in engine.carried],
        "last_closing": (None if engine.last_closing is None
                         else dict(zip(meters, engine.last_closing))),
        "pending": [engine._public(ob).to_dict() for ob in engine.pending],
        "turn_cards": [cards[c] for c in engine.turn_cards],
        "current": None if current is None else {
            "slot": current.slot, "card_id": current.card_id, "reason": current.reason,
            "option_order": list(current.option_order),
        },
        "last_turn_start": (None if engine.last_turn_start is None
                            else engine.last_turn_start.to_dict()),
        "last_turn_end": None if engine.last_turn_end is None else engine.last_turn_end.to_dict(),
        "ending": None if engine.ending is None else engine.ending.to_dict(),
        "rng": engine.rng.get_state(),
    }


def load_state(deck: Deck, data: object) -> Engine:
    """Rebuild an engine from ``save_state`` output. Raises ``StateError`` naming the problem."""
    try:
        saved = SavedMatch.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "(state)"
        raise StateError(f"saved match: {where}: {first['msg']}") from None
    engine = Engine(deck)
    ix = engine.index
    if saved.deck != ix.fingerprint:
        raise StateError(
            f"saved match was played with another deck (fingerprint {saved.deck}, "
            f"this deck is {ix.fingerprint})"
        )
    try:
        _restore(engine, saved)
    except (KeyError, ValueError, TypeError) as exc:
        raise StateError(f"saved match does not fit this deck: {exc}") from None
    return engine


def _restore(engine: Engine, saved: SavedMatch) -> None:
    ix = engine.index

    def lookup(table: Dict[str, int], ident: str, what: str) -> int:
        if ident not in table:
            raise KeyError(f"unknown {what} '{ident}'")
        return table[ident]

    def values(given: Dict[str, int], table: Dict[str, int], what: str) -> List[int]:
        if set(given) != set(table):
            raise ValueError(f"{what} must list exactly the deck's ids")
        if any(not 0 <= v <= 100 for v in given.values()):
            raise ValueError(f"{what} values must be 0-100")
        return [given[k] for k in table]

    card, meter, actor = ix.card_index, ix.meter_index, ix.actor_index
    engine.year, engine.phase, engine.slot = saved.year, saved.phase, saved.slot
    engine.meters = values(saved.meters, meter, "meters")
    engine.satisfaction = values(saved.satisfaction, actor, "satisfaction")
    engine.played = [lookup(card, c, "card") for c in saved.played]
    if len(set(engine.played)) != len(engine.played):
        raise ValueError("a card is listed twice in 'played'")
    for c in engine.played:
        engine.is_played[c] = True
    for m in saved.emergency_spent:
        engine.emergency_spent[lookup(meter, m, "meter")] = True
    for a in saved.attacked:
        engine.attacked[lookup(actor, a, "actor")] = True
    engine.carried = [lookup(meter, m, "meter") for m in saved.carried]
    engine.last_closing = (None if saved.last_closing is None
                           else values(saved.last_closing, meter, "last_closing"))
    engine.pending = []
    for ob in saved.pending:
        table = actor if ob.kind == ACTOR else meter
        c = -1 if ob.card_id is None else lookup(card, ob.card_id, "card")
        merged = tuple((m["kind"], lookup(meter, m["target"], "meter")) for m in ob.merged)
        engine.pending.append([ob.kind, lookup(table, ob.target, ob.kind), c, merged])
    engine.turn_cards = [lookup(card, c, "card") for c in saved.turn_cards]
    if saved.current is not None:
        if saved.phase != AWAITING_CHOICE:
            raise ValueError("a current card is saved outside phase 'awaiting_choice'")
        c = lookup(card, saved.current.card_id, "card")
        if sorted(saved.current.option_order) != list(range(ix.n_options[c])):
            raise ValueError("current.option_order is not a permutation of the card's options")
        engine.current_card = c
        engine.current = Draw(saved.year, saved.current.slot, ix.card_ids[c], ix.card_json(c),
                              saved.current.reason, saved.current.option_order)
    elif saved.phase == AWAITING_CHOICE:
        raise ValueError("phase 'awaiting_choice' needs a current card")
    if saved.last_turn_start is not None:
        engine.last_turn_start = _turn_start(saved.last_turn_start)
    engine.last_turn_end = None if saved.last_turn_end is None else TurnEnd(**saved.last_turn_end)
    engine.ending = None if saved.ending is None else MatchEnd(**saved.ending)
    if (saved.phase == ENDED) != (engine.ending is not None):
        raise ValueError("phase 'ended' and 'ending' must go together")
    engine.rng.set_state(saved.rng)


def _turn_start(data: dict) -> TurnStart:
    return TurnStart(
        data["year"],
        [Obligation(o["kind"], o["target"], o["card_id"],
                    tuple((m["kind"], m["target"]) for m in o.get("merged", [])))
         for o in data["mandatory"]],
    )
