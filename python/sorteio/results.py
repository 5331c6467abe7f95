"""What the engine reports: the obligations of a turn, each draw with its reason, choices, endings.

Every object has ``to_dict()`` giving plain JSON-safe data; those dicts are the wire format of the
Godot bridges and of ``--json`` CLI output, so their keys are part of the public API.
"""

from typing import Dict, List, NamedTuple, Optional

EMERGENCY = "emergency"  # emergência (§3.3.1)
ACTOR = "actor"  # ataque de ator Furioso (§3.3.2)
METER = "meter"  # carta ligada a medidor < limite (§3.3.3)

CATASTROPHE = "catastrophe"  # a meter reached 0 (§5 "Fim imediato")
END_OF_MANDATE = "end_of_mandate"  # the year-4 closing (§5, GDD 02)


class Obligation(NamedTuple):
    """One mandatory slot (§3.3): ``kind`` EMERGENCY/ACTOR/METER, ``target`` meter or actor id.

    ``card_id`` is the card reserved for it at turn start, or None when no eligible card could
    serve it (§5 "Nenhuma carta ligada elegível": the slot goes to the random draw). ``merged``
    lists the obligations this same card also serves (§5 "Mesma carta atende duas obrigações").
    """

    kind: str
    target: str
    card_id: Optional[str]
    merged: tuple = ()

    def to_dict(self) -> dict:
        return {
            "kind": self.kind,
            "target": self.target,
            "card_id": self.card_id,
            "merged": [{"kind": k, "target": t} for k, t in self.merged],
        }


class TurnStart(NamedTuple):
    """A turn's start (§3.3): the year (1-4) and its mandatory list in showing order."""

    year: int
    mandatory: List[Obligation]

    def to_dict(self) -> dict:
        return {"year": self.year, "mandatory": [ob.to_dict() for ob in self.mandatory]}


class Draw(NamedTuple):
    """A card shown. ``slot`` 1..N (0 for an impeachment-scene card, outside the N, §3.5).

    ``reason``: ``{"kind": "mandatory", "obligation", "target"}`` (plus ``"merged": [{"kind",
    "target"}]`` when the card also serves other needs than its own meter's, §5),
    ``{"kind": "random",
    "candidates": E, "mode_relaxed": bool, "replaces": obligation dict or None}`` (§3.4, §4), or
    ``{"kind": "scene"}``. ``option_order``: option indexes in display order (GDD 05 §3.4).
    """

    year: int
    slot: int
    card_id: str
    card: dict
    reason: dict
    option_order: List[int]

    def to_dict(self) -> dict:
        return {
            "year": self.year,
            "slot": self.slot,
            "card_id": self.card_id,
            "card": self.card,
            "reason": self.reason,
            "option_order": list(self.option_order),
        }


class Choice(NamedTuple):
    """An option applied: meters 0-100 and actors' satisfaction 0-100 and level afterwards."""

    card_id: str
    option: int
    meters: Dict[str, int]
    actors: Dict[str, dict]
    ended: bool

    def to_dict(self) -> dict:
        return dict(self._asdict())


class TurnEnd(NamedTuple):
    """A turn's closing (§5): ``cards`` shown in its slots, ``short`` when fewer than N."""

    year: int
    cards: int
    short: bool
    meters: Dict[str, int]

    def to_dict(self) -> dict:
        return dict(self._asdict())


class MatchEnd(NamedTuple):
    """How a match ended: CATASTROPHE (``zeroed`` meter) or END_OF_MANDATE after year 4.

    ``cards_played`` counts every card shown, scene cards included; ``short`` is true for a
    mandate that ended with fewer than 4 x N slot cards because eligible cards ran out (§5).
    """

    reason: str
    year: int
    cards_played: int
    short: bool
    meters: Dict[str, int]
    zeroed: Optional[str]

    def to_dict(self) -> dict:
        return dict(self._asdict())
