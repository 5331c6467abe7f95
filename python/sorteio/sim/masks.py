"""The simulation kernels' deck: a ``CompiledDeck`` as integer bitmasks (GDD 06 rules stay in
``engine.Engine``, the oracle; the kernels that use these tables are proven equal to it by
``tests/test_kernel_differential.py``).

Card sets (played, allowed this year, allowed by the actors' levels, linked to a meter, attack cards
of an actor, cards of a mode) are Python ints with bit ``c`` set for card position ``c``. A pool is
built with three or four ``&`` instead of a scan of every card, and "the k-th candidate in deck
order" (how the oracle picks, ``candidates[rng.below(len(candidates))]``) is the k-th set bit.
"""

import copy
from typing import Dict, List, Sequence

from ..compiled import CompiledDeck, paused_gc
from ..engine import YEARS

# Popcount: ``int.bit_count`` where it exists (CPython 3.10+), else the portable ``bin().count``
# (godot-python embeds 3.8). Looked up by name so the core stays importable on 3.8.
_bit_count = getattr(int, "bit_count", None)


def _bin_count(x: int) -> int:
    return bin(x).count("1")


popcount = _bit_count if _bit_count is not None else _bin_count

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1
MASK16 = (1 << 16) - 1
POP8 = [bin(i).count("1") for i in range(256)]
# KTH8[b * 8 + k]: position of the k-th set bit of byte b (0 where it has fewer bits).
KTH8 = [0] * 2048
for _b in range(256):
    _k = 0
    for _i in range(8):
        if _b >> _i & 1:
            KTH8[_b * 8 + _k] = _i
            _k += 1


def kth_bit(x: int, k: int) -> int:
    """Position of the ``k``-th (0-based) set bit of ``x`` counting from bit 0; ``k`` < popcount.

    Deck order is bit order, so this is ``[c for c in cards if x >> c & 1][k]`` without the list.
    """
    pos = 0
    w = x & MASK64
    c = popcount(w)
    while k >= c:  # skip whole 64-bit words
        k -= c
        x >>= 64
        pos += 64
        w = x & MASK64
        c = popcount(w)
    lo = w & MASK32
    c = popcount(lo)
    if k >= c:
        k -= c
        w >>= 32
        pos += 32
    else:
        w = lo
    lo = w & MASK16
    c = popcount(lo)
    if k >= c:
        k -= c
        w >>= 16
        pos += 16
    else:
        w = lo
    lo = w & 255
    c = POP8[lo]
    if k >= c:
        k -= c
        lo = w >> 8
        pos += 8
    return pos + KTH8[lo * 8 + k]


def bits_of(x: int) -> List[int]:
    """Set-bit positions of ``x`` in increasing (deck) order."""
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


def mask_of(positions: Sequence[int]) -> int:
    """The bit set of card ``positions`` (any order), in O(len + highest position / 8): summing
    ``1 << c`` instead would copy a growing int at every step (quadratic in the deck)."""
    if len(positions) <= 8:
        x = 0
        for c in positions:
            x |= 1 << c
        return x
    buf = bytearray((max(positions) >> 3) + 1)
    for c in positions:
        buf[c >> 3] |= 1 << (c & 7)
    return int.from_bytes(buf, "little")


class MaskTable:
    """Bit sets of groups of cards (one per mode, per meter, per actor...), linear in memory.

    A bit set costs about n_cards / 8 bytes whatever it holds, so one per group would cost
    groups x cards (1,000 modes of a 30k-card deck: 3.7 MB; of a 100k-card one, 125 MB). Only the
    ``KEEP`` largest groups, and any group of at least n_cards / 64 cards (at most 64 such groups
    when the groups are disjoint), keep their bit set in ``dense``; every other group keeps only
    its positions in ``cards`` (``dense`` holds 0) and ``table[g]`` builds its bit set when asked,
    about as cheap as one bit-set operation. Hot loops read ``dense[g] or mask_of(cards[g])``.
    """

    __slots__ = ("cards", "dense")
    KEEP = 64

    def __init__(self, groups: List[List[int]], n_cards: int) -> None:
        self.cards = groups  # shared, read-only: positions in deck order
        largest = set(sorted(range(len(groups)), key=lambda g: -len(groups[g]))[:self.KEEP])
        self.dense = [mask_of(g) if g and (i in largest or len(g) * 64 >= n_cards) else 0
                      for i, g in enumerate(groups)]

    def __getitem__(self, g: int) -> int:
        return self.dense[g] or mask_of(self.cards[g])

    def __len__(self) -> int:
        return len(self.cards)


class FastDeck:
    """Bitmask view of a ``CompiledDeck`` (read-only; one per deck and parameter set, see
    ``fast_deck``). Built in time and memory linear in the deck: no per-card bit list, no scan of
    every card per mode, meter or actor."""

    def __init__(self, index: CompiledDeck) -> None:
        ix = index
        self.index = ix
        n = len(ix.card_ids)
        self.n_cards = n
        self.n_meters = len(ix.meter_ids)
        self.n_actors = len(ix.actor_ids)
        self.n_modes = len(ix.mode_names)
        n_levels = len(ix.level_function)
        playable = [c for c in range(n) if ix.playable[c]]
        self.playable = mask_of(playable)
        # base[y]: playable cards whose ano_minimo <= y (§3.1.1, .3, .5); index 0 unused.
        self.base = [0] + [mask_of([c for c in playable if ix.year_min[c] <= y])
                           for y in range(1, YEARS + 1)]
        self.non_actor = mask_of([c for c in range(n) if ix.actor[c] < 0])
        # actor_level[a * n_levels + li]: cards of actor a whose function is level li's function
        # (§3.1.4); one table for all actors, so its kept bit sets are bounded like the others.
        fn_levels: Dict[object, List[int]] = {}
        for li, fn in enumerate(ix.level_function):
            fn_levels.setdefault(fn, []).append(li)
        by_level: List[List[List[int]]] = [[[] for _ in range(n_levels)]
                                           for _ in range(self.n_actors)]
        by_actor: List[List[int]] = [[] for _ in range(self.n_actors)]
        by_mode: List[List[int]] = [[] for _ in range(self.n_modes)]
        for c in range(n):
            by_mode[ix.mode[c]].append(c)
            a = ix.actor[c]
            if a >= 0:
                by_actor[a].append(c)
                for li in fn_levels.get(ix.function[c], ()):
                    by_level[a][li].append(c)
        self.n_levels = n_levels
        self.actor_level = MaskTable([g for groups in by_level for g in groups], n)
        self.actor_all = MaskTable(by_actor, n)
        self.linked = MaskTable(ix.linked, n)
        self.attack = MaskTable(ix.attack_cards, n)
        self.mode_mask = MaskTable(by_mode, n)
        # links[c]: meters card c is linked to, as a meter bitmask (§3.2).
        self.links = [mask_of(ms) for ms in ix.links]
        order = sorted(range(self.n_actors), key=lambda a: ix.actor_ids[a])
        self.actor_rank = [0] * self.n_actors
        for r, a in enumerate(order):
            self.actor_rank[a] = r

    def with_parameters(self, params: Dict[str, int]) -> "FastDeck":
        """This deck under other §7 parameters (``Parameters`` field names), sharing every mask.

        Only the five parameter attributes of the compiled index change, so a sweep builds the
        masks once per deck instead of once per scenario. ``params`` must be valid
        (``deck.Parameters(**params)``); the fingerprint stays the deck file's.
        """
        ix = copy.copy(self.index)
        ix.n_slots = params["cartas_por_turno"]
        ix.cap = params["teto_obrigatorias"]
        ix.meter_limit = params["limite_medidor"]
        ix.emergency_limit = params["limite_emergencia"]
        ix.mode_limit = params["limite_por_modo"]
        fd = copy.copy(self)
        fd.index = ix
        return fd

    def actor_ok(self, satisfaction: List[int]) -> int:
        """Cards allowed by the actors' current levels: non-actor cards plus each actor's cards
        whose function is the one its level calls for (§3.1.4)."""
        ix = self.index
        ok = self.non_actor
        levels, table = self.n_levels, self.actor_level
        for a, s in enumerate(satisfaction):
            ok |= table[a * levels + ix.level_of[s]]
        return ok


_FAST_ATTR = "_sorteio_fast"


def fast_deck(index: CompiledDeck) -> FastDeck:
    """The ``FastDeck`` of ``index``, built once per compiled deck and shared afterwards.

    Kept on the deck object beside its index (like ``compiled.compile_deck``), not on the index,
    so that no reference cycle keeps a deck alive; an index whose deck is gone gets a new one."""
    deck = index._deck()
    cached = None if deck is None else deck.__dict__.get(_FAST_ATTR)
    if cached is None or cached.index is not index:
        with paused_gc():
            cached = FastDeck(index)
        if deck is not None:
            object.__setattr__(deck, _FAST_ATTR, cached)
    return cached
