"""A deck compiled to integer indexes, so the draw never touches pydantic on its hot path.

Cards, meters and actors become positions in deck order (the GDD 01 table order for meters), which
is also the order every candidate list is kept in: the draw never depends on set or dict iteration.
"""

import hashlib
import json
from typing import Dict, List, Tuple

from .deck import ATTACK_FUNCTION, CardType, Deck

Effects = Tuple[Tuple[int, int], ...]


class CompiledDeck:
    """Read-only index of a ``Deck``. All lists are indexed by card, meter or actor position."""

    def __init__(self, deck: Deck) -> None:
        self.deck = deck
        params = deck.parametros
        self.n_slots = params.cartas_por_turno
        self.cap = params.teto_obrigatorias
        self.meter_limit = params.limite_medidor
        self.emergency_limit = params.limite_emergencia
        self.mode_limit = params.limite_por_modo

        self.card_ids = [c.id for c in deck.cartas]
        self.card_index = {ident: i for i, ident in enumerate(self.card_ids)}
        self.meter_ids = [m.id for m in deck.medidores]
        self.meter_index = {ident: i for i, ident in enumerate(self.meter_ids)}
        self.actor_ids = [a.id for a in deck.atores]
        self.actor_index = {ident: i for i, ident in enumerate(self.actor_ids)}

        modes: Dict[str, int] = {}
        self.mode = [modes.setdefault(c.modo, len(modes)) for c in deck.cartas]
        self.mode_names = list(modes)
        self.playable = [c.playable for c in deck.cartas]
        self.is_scene = [c.tipo == CardType.IMPEACHMENT for c in deck.cartas]
        self.year_min = [c.pre_requisitos.ano_minimo for c in deck.cartas]
        self.actor = [self.actor_index[c.ator] if c.ator else -1 for c in deck.cartas]
        self.function = [c.funcao for c in deck.cartas]
        self.is_attack = [c.funcao == ATTACK_FUNCTION for c in deck.cartas]

        # §3.2: a card is linked to a meter when some option has a positive effect on it.
        self.linked = [
            [i for i, c in enumerate(deck.cartas) if self.playable[i] and c.linked_to(m)]
            for m in self.meter_ids
        ]
        self.links = [
            tuple(m for m, ident in enumerate(self.meter_ids) if c.linked_to(ident))
            for c in deck.cartas
        ]
        self.attack_cards = [
            [i for i in range(len(self.card_ids)) if self.playable[i] and self.is_attack[i]
             and self.actor[i] == a]
            for a in range(len(self.actor_ids))
        ]
        self.meter_effects: List[List[Effects]] = [
            [tuple((self.meter_index[k], v) for k, v in o.efeitos.items()) for o in c.opcoes]
            for c in deck.cartas
        ]
        self.actor_effects: List[List[Effects]] = [
            [tuple((self.actor_index[k], v) for k, v in o.efeitos_atores.items()) for o in c.opcoes]
            for c in deck.cartas
        ]
        self.n_options = [len(c.opcoes) for c in deck.cartas]

        # Satisfaction 0-100 -> level position, and each level's card function (GDD 07 §3.2).
        self.level_ids = [lv.id for lv in deck.niveis]
        self.level_function = [lv.funcao for lv in deck.niveis]
        self.level_of = [0] * 101
        for li, lv in enumerate(deck.niveis):
            for s in range(lv.minimo, lv.maximo + 1):
                self.level_of[s] = li
        self.furious = self.level_function.index(ATTACK_FUNCTION)

        self.initial_meters = [m.inicial for m in deck.medidores]
        self.initial_satisfaction = [a.satisfacao_inicial for a in deck.atores]
        self.fingerprint = deck_fingerprint(deck)
        self._card_json: List[object] = [None] * len(self.card_ids)

    def card_json(self, c: int) -> dict:
        """The card as a JSON-safe dict (cached; callers must not mutate it)."""
        cached = self._card_json[c]
        if cached is None:
            cached = self.deck.cartas[c].model_dump(mode="json")
            self._card_json[c] = cached
        return cached  # type: ignore[return-value]


def deck_fingerprint(deck: Deck) -> str:
    """SHA-256 (16 hex digits) of the deck's canonical JSON: ties a saved match to its deck."""
    data = deck.model_dump(mode="json")
    if not data["modos"]:  # a deck without mode names keeps the fingerprint it had before them
        del data["modos"]
    text = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
