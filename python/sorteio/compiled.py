"""A deck compiled to integer indexes, so the draw never touches pydantic on its hot path.

Cards, meters and actors become positions in deck order (the GDD 01 table order for meters), which
is also the order every candidate list is kept in: the draw never depends on set or dict iteration.

``compile_deck(deck)`` compiles a deck once per ``Deck`` object and returns the same index on
every later call: engines, lint, checks and sweeps of one deck share it. Every step is linear in
the size of the deck file (cards x options x effects).
"""

import gc
import hashlib
import json
import weakref
from contextlib import contextmanager
from typing import Dict, Iterator, List, Optional, Tuple

from .deck import ATTACK_FUNCTION, CardType, Deck

Effects = Tuple[Tuple[int, int], ...]
# Where compile_deck keeps a deck's index: an attribute outside the pydantic fields, so it is not
# part of the deck's data (not dumped, not compared). A copy of the deck (``model_copy``) carries
# the attribute along, so it is trusted only when the index was built from this very object.
# The index refers back to its deck weakly: no reference cycle, so a deck that is no longer used
# is freed at once with its index (a bridge replacing a 30k-card deck does not wait for the GC).
_CACHE_ATTR = "_sorteio_compiled"


@contextmanager
def paused_gc() -> Iterator[None]:
    """Run a bulk build (parsing, validating, compiling a deck) without the cyclic garbage
    collector: it would rescan the young objects of a big deck again and again (2-3x the time of
    a 10k-card build), and a build makes no garbage cycles. Restores the previous state."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def compile_deck(deck: Deck) -> "CompiledDeck":
    """The deck's ``CompiledDeck``, built on the first call for this ``Deck`` object and shared
    afterwards (a deck is treated as immutable: its models are frozen, do not edit its lists)."""
    cached: Optional[CompiledDeck] = deck.__dict__.get(_CACHE_ATTR)
    if cached is not None and cached._deck() is deck:
        return cached
    with paused_gc():
        index = CompiledDeck(deck)
    object.__setattr__(deck, _CACHE_ATTR, index)
    return index


class CompiledDeck:
    """Read-only index of a ``Deck``. All lists are indexed by card, meter or actor position."""

    def __init__(self, deck: Deck) -> None:
        self._deck = weakref.ref(deck)
        self._cards = deck.cartas  # card_json needs them even if the deck object is gone
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

        # §3.2: a card is linked to a meter when some option has a positive effect on it. One pass
        # over the effects (not meters x cards): links[c] in meter order, linked[m] in deck order.
        meter_index = self.meter_index
        self.links: List[Tuple[int, ...]] = []
        self.linked: List[List[int]] = [[] for _ in self.meter_ids]
        self.attack_cards: List[List[int]] = [[] for _ in self.actor_ids]
        for i, c in enumerate(deck.cartas):
            raised = tuple(sorted({meter_index[k] for o in c.opcoes
                                   for k, v in o.efeitos.items() if v > 0}))
            self.links.append(raised)
            if self.playable[i]:
                for m in raised:
                    self.linked[m].append(i)
                if self.is_attack[i]:
                    self.attack_cards[self.actor[i]].append(i)
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
        self._fingerprint: Optional[str] = None
        self._card_json: List[object] = [None] * len(self.card_ids)

    @property
    def deck(self) -> Deck:
        """The ``Deck`` this index was compiled from. Engines keep it alive (``Engine.deck``);
        raises ``ReferenceError`` when nothing does any more."""
        deck = self._deck()
        if deck is None:
            raise ReferenceError("the deck this index was compiled from is no longer in use")
        return deck

    @property
    def fingerprint(self) -> str:
        """``deck_fingerprint`` of the deck, computed on first use (saves and loads need it;
        lint and checks do not)."""
        if self._fingerprint is None:
            self._fingerprint = deck_fingerprint(self.deck)
        return self._fingerprint

    def card_json(self, c: int) -> dict:
        """The card as a JSON-safe dict (cached; callers must not mutate it)."""
        cached = self._card_json[c]
        if cached is None:
            cached = self._cards[c].model_dump(mode="json")
            self._card_json[c] = cached
        return cached  # type: ignore[return-value]


def deck_fingerprint(deck: Deck) -> str:
    """SHA-256 (16 hex digits) of the deck's canonical JSON: ties a saved match to its deck."""
    with paused_gc():  # the dump is a bulk build too (a million objects for 30,000 cards)
        data = deck.model_dump(mode="json")
        if not data["modos"]:  # a deck without mode names keeps the fingerprint it had before
            del data["modos"]
        text = json.dumps(data, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
