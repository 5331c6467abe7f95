"""The fast path of the draw: the same rules as ``engine.Engine`` (the oracle), on integer bitmasks.

Card sets (played, allowed this year, allowed by the actors' levels, linked to a meter, attack cards
of an actor, cards of a mode) are Python ints with bit ``c`` set for card position ``c``. A pool is
built with three or four ``&`` instead of a scan of every card, and "the k-th candidate in deck
order" (how the oracle picks, ``candidates[rng.below(len(candidates))]``) is the k-th set bit.

Two things live here, both proven equal to ``Engine`` card for card, option for option, ending for
ending by ``tests/test_fast*.py`` (differential tests over many random decks, seeds and states):

- ``FastEngine``: a drop-in ``Engine`` subclass (same state attributes, same results, same RNG
  calls in the same order, so save/load in ``state.py`` keeps working). The Godot handler can use
  it; ``FastEngine.from_state`` loads a saved match into one.
- ``play_matches``: a lean whole-match kernel for the simulator (GDD 06 §7 studies). It plays the
  reference match loop of ``match.play_match`` with no events or scene hooks, builds no ``Draw`` or
  ``Choice`` objects, and adds what the sweep reports into a ``Tally``.

RNG use, as in the oracle: per turn the reserved-card picks of the mandatory list (§3.3) in list
order, then per card one ``below`` for a random slot (§3.4, none for a mandatory card), then
``permutation(n_options)`` for the option sides (GDD 05 §3.4); the random player has its own
generator seeded ``seed ^ 0x5EED`` (``match.make_policy``).
"""

import copy
import operator
import random
from typing import Dict, Iterable, List, Optional

from .compiled import CompiledDeck
from .deck import Deck
from .engine import YEARS, Engine
from .results import EMERGENCY, Draw

# Popcount: ``int.bit_count`` where it exists (CPython 3.10+), else the portable ``bin().count``
# (godot-python embeds 3.8). Looked up by name so the core stays importable on 3.8.
_bit_count = getattr(int, "bit_count", None)


def _bin_count(x: int) -> int:
    return bin(x).count("1")


popcount = _bit_count if _bit_count is not None else _bin_count

_M64 = (1 << 64) - 1
_M32 = (1 << 32) - 1
_M16 = (1 << 16) - 1
_POP8 = [bin(i).count("1") for i in range(256)]
# _KTH8[b * 8 + k]: position of the k-th set bit of byte b (0 where it has fewer bits).
_KTH8 = [0] * 2048
for _b in range(256):
    _k = 0
    for _i in range(8):
        if _b >> _i & 1:
            _KTH8[_b * 8 + _k] = _i
            _k += 1


def kth_bit(x: int, k: int) -> int:
    """Position of the ``k``-th (0-based) set bit of ``x`` counting from bit 0; ``k`` < popcount.

    Deck order is bit order, so this is ``[c for c in cards if x >> c & 1][k]`` without the list.
    """
    pos = 0
    w = x & _M64
    c = popcount(w)
    while k >= c:  # skip whole 64-bit words
        k -= c
        x >>= 64
        pos += 64
        w = x & _M64
        c = popcount(w)
    lo = w & _M32
    c = popcount(lo)
    if k >= c:
        k -= c
        w >>= 32
        pos += 32
    else:
        w = lo
    lo = w & _M16
    c = popcount(lo)
    if k >= c:
        k -= c
        w >>= 16
        pos += 16
    else:
        w = lo
    lo = w & 255
    c = _POP8[lo]
    if k >= c:
        k -= c
        lo = w >> 8
        pos += 8
    return pos + _KTH8[lo * 8 + k]


def bits_of(x: int) -> List[int]:
    """Set-bit positions of ``x`` in increasing (deck) order."""
    out = []
    while x:
        low = x & -x
        out.append(low.bit_length() - 1)
        x ^= low
    return out


class FastDeck:
    """Bitmask view of a ``CompiledDeck`` (read-only; one per deck and parameter set)."""

    def __init__(self, index: CompiledDeck) -> None:
        ix = index
        self.index = ix
        n = len(ix.card_ids)
        self.n_cards = n
        self.n_meters = len(ix.meter_ids)
        self.n_actors = len(ix.actor_ids)
        self.n_modes = len(ix.mode_names)
        self.bit = [1 << c for c in range(n)]
        playable = sum(1 << c for c in range(n) if ix.playable[c])
        self.playable = playable
        # base[y]: playable cards whose ano_minimo <= y (§3.1.1, .3, .5); index 0 unused.
        self.base = [0] + [sum(1 << c for c in range(n) if ix.playable[c] and ix.year_min[c] <= y)
                           for y in range(1, YEARS + 1)]
        self.non_actor = sum(1 << c for c in range(n) if ix.actor[c] < 0)
        # actor_level[a][li]: cards of actor a whose function is level li's function (§3.1.4).
        self.actor_level = [
            [sum(1 << c for c in range(n) if ix.actor[c] == a and ix.function[c] == fn)
             for fn in ix.level_function]
            for a in range(self.n_actors)
        ]
        self.actor_all = [sum(1 << c for c in range(n) if ix.actor[c] == a)
                          for a in range(self.n_actors)]
        self.linked = [sum(1 << c for c in cards) for cards in ix.linked]
        self.attack = [sum(1 << c for c in cards) for cards in ix.attack_cards]
        self.mode_mask = [sum(1 << c for c in range(n) if ix.mode[c] == md)
                          for md in range(self.n_modes)]
        # links[c]: meters card c is linked to, as a meter bitmask (§3.2).
        self.links = [sum(1 << m for m in ms) for ms in ix.links]
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
        for a, s in enumerate(satisfaction):
            ok |= self.actor_level[a][ix.level_of[s]]
        return ok


class FastEngine(Engine):
    """``Engine`` with bitmask pools: same rules, same state attributes, same RNG calls.

    ``index``: an already compiled deck to share between engines (a simulator or a server
    starting many matches of one deck); compiled from ``deck`` when None.
    """

    def __init__(self, deck: Deck, seed: int = 0, index: Optional[CompiledDeck] = None,
                 fast: Optional[FastDeck] = None) -> None:
        self._given_index = index
        super().__init__(deck, seed)
        self.fast = fast if fast is not None and fast.index is self.index else FastDeck(self.index)
        self._played_mask = 0
        self._played_key = (-1, -1)

    def _compile(self, deck: Deck) -> CompiledDeck:
        given = self._given_index
        return given if given is not None else super()._compile(deck)

    @classmethod
    def from_engine(cls, engine: Engine) -> "FastEngine":
        """A FastEngine that takes over ``engine``'s state, RNG included (stop using ``engine``)."""
        fast = cls.__new__(cls)
        fast.__dict__.update(engine.__dict__)
        fast.fast = FastDeck(engine.index)
        fast._played_mask = 0
        fast._played_key = (-1, -1)
        fast._given_index = engine.index
        return fast

    @classmethod
    def from_state(cls, deck: Deck, data: object) -> "FastEngine":
        """Rebuild a saved match (``state.load_state``) as a FastEngine. Raises ``StateError``."""
        from .state import load_state

        return cls.from_engine(load_state(deck, data))

    # -- masks from the state attributes -----------------------------------------------------

    def _played(self) -> int:
        # ``played`` is the state (save/load and white-box tests edit it); the mask is a cache,
        # rebuilt when the list's length or last card is not the one it was built from.
        played = self.played
        key = (len(played), played[-1] if played else -1)
        if self._played_key != key:
            bit = self.fast.bit
            mask = 0
            for c in played:
                mask |= bit[c]
            self._played_mask = mask
            self._played_key = key
        return self._played_mask

    def eligible_mask(self) -> int:
        """§3.1 as a bitmask: playable, ano_minimo reached, not shown, actor level's function."""
        fd = self.fast
        return fd.base[self.year] & fd.actor_ok(self.satisfaction) & ~self._played()

    def eligible_cards(self) -> List[int]:
        return bits_of(self.eligible_mask())

    # -- §3.3 -------------------------------------------------------------------------------

    def _mandatory_list(self) -> list:
        ix, fd = self.index, self.fast
        rng = self.rng
        eligible = self.eligible_mask()
        obligations: list = []
        reserved = 0

        def linked(kind: str, m: int) -> bool:
            nonlocal reserved
            for ob in obligations:
                if (ob[0] != "actor" and ob[1] == m) or (ob[2] >= 0 and fd.links[ob[2]] >> m & 1):
                    ob[3] = (*ob[3], (kind, m))  # §5: same card serves both; counts once
                    return False
            obligations.append([kind, m, pick(fd.linked[m] & eligible & ~reserved), ()])
            return True

        def pick(candidates: int) -> int:
            nonlocal reserved
            if not candidates:
                return -1
            c = kth_bit(candidates, rng.below(popcount(candidates)))
            reserved |= 1 << c
            return c

        for m in self.pending_emergencies():
            linked(EMERGENCY, m)
        room = max(0, ix.cap - len(obligations))
        if room:
            level_of, furious, sat = ix.level_of, ix.furious, self.satisfaction
            actors = sorted(
                (a for a in range(fd.n_actors)
                 if level_of[sat[a]] == furious and not self.attacked[a]),
                key=lambda a: (sat[a], fd.actor_rank[a]),
            )
            meters = sorted((m for m in range(fd.n_meters) if self.meters[m] < ix.meter_limit),
                            key=lambda m: (self.meters[m], m))
            added = 0
            for a in actors:
                if added >= room:
                    break
                obligations.append(["actor", a, pick(fd.attack[a] & eligible & ~reserved), ()])
                added += 1
            for m in meters:
                if added >= room:
                    break
                if linked("meter", m):
                    added += 1
        return obligations

    # -- §3.4 -------------------------------------------------------------------------------

    def _draw_random(self, replaces: Optional[dict]) -> Optional[Draw]:
        ix, fd = self.index, self.fast
        reserved = 0
        counts: Dict[int, int] = {}
        mode = ix.mode
        for ob in self.pending:
            c = ob[2]
            if c >= 0:
                reserved |= 1 << c
                counts[mode[c]] = counts.get(mode[c], 0) + 1
        eligible = self.eligible_mask() & ~reserved
        if not eligible:
            return None
        for c in self.turn_cards:
            counts[mode[c]] = counts.get(mode[c], 0) + 1
        excluded = 0
        for md, n in counts.items():
            if n >= ix.mode_limit:
                excluded |= fd.mode_mask[md]
        fresh = eligible & ~excluded
        pool = fresh or eligible  # §3.4: without a card of a new mode, the rule is relaxed
        size = popcount(pool)
        card = kth_bit(pool, self.rng.below(size))
        reason = {"kind": "random", "candidates": size, "mode_relaxed": not fresh,
                  "replaces": replaces}
        return self._show(card, reason, None)

    def _show(self, card: int, reason: dict, ob: Optional[list]) -> Draw:
        known = self._played()  # in sync before the oracle appends to ``played``
        draw = super()._show(card, reason, ob)
        self._played_mask = known | (1 << card)
        self._played_key = (len(self.played), card)
        return draw


# -- the simulation kernel --------------------------------------------------------------------

_EM, _ACT, _MET = 0, 1, 2


class Tally:
    """What ``play_matches`` adds up over a run of matches of one deck and parameter set.

    Lists are indexed by card, meter, year (1-4; index 0 unused) or match (``catastrophe``: one
    byte 0/1 per match in seed order, kept so two scenarios can be compared match by match).
    """

    def __init__(self, n_cards: int, n_meters: int) -> None:
        self.matches = 0
        self.catastrophes = 0
        self.catastrophe = bytearray()
        self.cards_played = 0
        self.turns = 0  # turns started
        self.turns_closed = 0
        self.short_turns = 0
        self.mandatory = 0  # cards shown in a mandatory slot
        self.card_draws = [0] * n_cards
        self.card_mandatory = [0] * n_cards
        self.end_sum = [0] * n_meters
        self.end_sq = [0] * n_meters
        self.zeroed = [0] * n_meters  # catastrophes per meter
        self.end_year = [0] * (YEARS + 1)  # matches ended in each year
        self.close_n = [0] * (YEARS + 1)
        self.close_sum = [[0] * n_meters for _ in range(YEARS + 1)]
        self.close_sq = [[0] * n_meters for _ in range(YEARS + 1)]

    def merge(self, other: "Tally") -> None:
        """Add ``other`` (the matches right after this tally's, for ``catastrophe``)."""
        for name in ("matches", "catastrophes", "cards_played", "turns", "turns_closed",
                     "short_turns", "mandatory"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.catastrophe += other.catastrophe
        for name in ("card_draws", "card_mandatory", "end_sum", "end_sq", "zeroed", "end_year",
                     "close_n"):
            mine, theirs = getattr(self, name), getattr(other, name)
            for i, v in enumerate(theirs):
                mine[i] += v
        for mine_rows, their_rows in ((self.close_sum, other.close_sum),
                                      (self.close_sq, other.close_sq)):
            for mine, theirs in zip(mine_rows, their_rows):
                for i, v in enumerate(theirs):
                    mine[i] += v


def _pick(candidates: int, bits) -> int:
    """``candidates[rng.below(len(candidates))]`` in deck order (``Rng.below`` inlined)."""
    n = popcount(candidates)
    if n == 1:
        return candidates.bit_length() - 1  # below(1) is 0 and draws no bits
    k = n.bit_length()
    r = bits(k)
    while r >= n:
        r = bits(k)
    return kth_bit(candidates, r)


_ORDER_01 = [0, 1]  # option_order of a two-option card when below(2) gives 1 (no swap)
_ORDER_10 = [1, 0]  # ... and when it gives 0 (swap)


def play_matches(fd: FastDeck, seeds: Iterable[int], policy: str = "random",
                 tally: Optional[Tally] = None, trace: Optional[list] = None) -> Tally:
    """Play one whole match per seed, as ``match.play_match(deck, seed, policy)`` would (no events,
    no scene), and add it to ``tally`` (a new one when None). ``policy``: random or protect.

    ``trace`` (tests): when a list, gets one ``(steps, ending)`` per match, ``steps`` a list of
    ``(card, option_order, option, mandatory)`` and ``ending`` ``(reason, year, meters, zeroed)``
    with positions for cards and meters.

    One long function on purpose: locals are the fast variables in CPython, and this loop is what
    the simulator's matches/s figure measures (see docs/simulator.md, "What made the difference").
    ``Rng.below`` is inlined (``k = n.bit_length(); r = bits(k)`` until ``r < n``) so every
    ``getrandbits`` call is the oracle's, in the oracle's order.
    """
    if policy not in ("random", "protect"):
        raise ValueError(f"unknown policy '{policy}' (choose from: random, protect)")
    ix = fd.index
    t = tally if tally is not None else Tally(fd.n_cards, fd.n_meters)
    n_slots, cap, meter_limit = ix.n_slots, ix.cap, ix.meter_limit
    em_limit, mode_limit = ix.emergency_limit, ix.mode_limit
    n_meters, n_actors, n_modes = fd.n_meters, fd.n_actors, fd.n_modes
    meter_range, actor_range = range(n_meters), range(n_actors)
    level_of, furious = ix.level_of, ix.furious
    # Highest satisfaction at the Furioso level: no actor at or below it, no Furioso actor.
    furious_max = max(s for s in range(101) if level_of[s] == furious)
    base_by_year, non_actor, actor_level = fd.base, fd.non_actor, fd.actor_level
    linked_mask, attack_mask, links, mode_mask = fd.linked, fd.attack, fd.links, fd.mode_mask
    mode_of, actor_of, is_attack = ix.mode, ix.actor, ix.is_attack
    n_options, meter_eff, actor_eff = ix.n_options, ix.meter_effects, ix.actor_effects
    actor_rank = fd.actor_rank
    init_meters, init_sat = ix.initial_meters, ix.initial_satisfaction
    init_ok = non_actor  # cards allowed by the actors' starting levels (§3.1.4)
    for a in actor_range:
        init_ok |= actor_level[a][level_of[init_sat[a]]]
    bit_len = [n.bit_length() for n in range(fd.n_cards + 2)]
    card_draws, card_mandatory = t.card_draws, t.card_mandatory
    close_sum, close_sq, close_n = t.close_sum, t.close_sq, t.close_n
    end_sum, end_sq, end_year, zeroed_count = t.end_sum, t.end_sq, t.end_year, t.zeroed
    outcome = t.catastrophe
    protect = policy == "protect"
    pc = popcount
    M64, M32, M16, POP8, KTH8 = _M64, _M32, _M16, _POP8, _KTH8
    order_01, order_10 = _ORDER_01, _ORDER_10
    add, mul = operator.add, operator.mul
    gen = random.Random(0)
    player = random.Random(0)
    # random.Random.seed(int) only forwards to the C seed (and resets gauss, unused here): call it
    # directly, the same state for a fraction of the cost.
    seed_gen = super(random.Random, gen).seed
    seed_player = super(random.Random, player).seed
    bits = gen.getrandbits
    pbits = player.getrandbits
    turns = closed = short = mandatory = cards_total = catastrophes = matches = 0

    for seed in seeds:
        seed_gen(seed)
        if not protect:
            seed_player(seed ^ 0x5EED)
        meters = list(init_meters)
        sat = list(init_sat)
        ok = init_ok
        played = 0
        spent = 0  # meters whose emergency was served (bitmask)
        attacked = 0  # actors whose attack card was shown (bitmask)
        carried: List[int] = []
        last_closing: Optional[List[int]] = None
        year = 1
        zeroed = -1
        steps: list = []
        while True:  # one turn per pass (§3.3 start, §3.4 slots, §5 closing)
            turns += 1
            base = base_by_year[year]
            eligible = base & ok & ~played
            # §3.3: the mandatory list, as [kind, target, card or -1, merged emergencies].
            obs: list = []
            reserved = 0
            if carried or (last_closing is not None and min(last_closing) <= em_limit):
                emergencies = list(carried)
                for m in meter_range:
                    if last_closing[m] <= em_limit and not spent >> m & 1 and (
                        m not in emergencies
                    ):
                        emergencies.append(m)
                for m in emergencies:  # §3.3.1: they ignore the cap
                    for ob in obs:
                        c = ob[2]
                        if ob[1] == m or (c >= 0 and links[c] >> m & 1):
                            ob[3].append(m)  # §5: the same card serves both; counts once
                            break
                    else:
                        cand = linked_mask[m] & eligible & ~reserved
                        c = -1
                        if cand:
                            c = _pick(cand, bits)
                            reserved |= 1 << c
                        obs.append([_EM, m, c, []])
            room = cap - len(obs)
            if room > 0:
                # Quick C-level checks first: most turns have no Furious actor and no low meter.
                fur = [a for a in actor_range
                       if level_of[sat[a]] == furious and not attacked >> a & 1
                       ] if n_actors and min(sat) <= furious_max else []
                low = [m for m in meter_range
                       if meters[m] < meter_limit] if min(meters) < meter_limit else []
                if len(fur) > 1:
                    fur.sort(key=lambda a: (sat[a], actor_rank[a]))
                if len(low) > 1:
                    low.sort(key=lambda m: (meters[m], m))
                added = 0
                for a in fur:  # §3.3.2
                    if added >= room:
                        break
                    cand = attack_mask[a] & eligible & ~reserved
                    c = -1
                    if cand:
                        c = _pick(cand, bits)
                        reserved |= 1 << c
                    obs.append([_ACT, a, c, []])
                    added += 1
                for m in low:  # §3.3.3
                    if added >= room:
                        break  # the surplus is dropped and checked again next turn
                    for ob in obs:
                        c = ob[2]
                        if (ob[0] != _ACT and ob[1] == m) or (c >= 0 and links[c] >> m & 1):
                            break  # merged: counts once
                    else:
                        cand = linked_mask[m] & eligible & ~reserved
                        c = -1
                        if cand:
                            c = _pick(cand, bits)
                            reserved |= 1 << c
                        obs.append([_MET, m, c, []])
                        added += 1
            # Modes in the turn (§3.4): reserved cards count; excluded = modes at the limit.
            mcount = [0] * n_modes
            excluded = 0
            for ob in obs:
                c = ob[2]
                if c >= 0:
                    md = mode_of[c]
                    mcount[md] += 1
                    if mcount[md] >= mode_limit:
                        excluded |= mode_mask[md]
            n_obs = len(obs)
            pi = 0
            slot = 0
            while slot < n_slots:
                card = -1
                ob = None
                if pi < n_obs:
                    ob = obs[pi]
                    pi += 1
                    c = ob[2]
                    if c >= 0:
                        reserved &= ~(1 << c)
                        if (base & ok & ~played) >> c & 1:  # checked again at display (§5)
                            card = c
                        else:
                            md = mode_of[c]
                            mcount[md] -= 1
                            if mcount[md] < mode_limit:
                                excluded &= ~mode_mask[md]
                if card < 0:  # a random slot (§3.4), or one given up by an obligation (§5)
                    pool = base & ok & ~played & ~reserved
                    if not pool:
                        if ob is not None:
                            continue  # later obligations may still be served
                        break  # §5: fewer eligible cards than slots; the turn ends short
                    fresh = pool & ~excluded
                    if fresh:
                        pool = fresh
                    n = pc(pool)
                    if n > 1:
                        k = bit_len[n]
                        r = bits(k)
                        while r >= n:
                            r = bits(k)
                        # The r-th set bit of pool (kth_bit, inlined).
                        pos = 0
                        w = pool & M64
                        c = pc(w)
                        while r >= c:
                            r -= c
                            pool >>= 64
                            pos += 64
                            w = pool & M64
                            c = pc(w)
                        lo = w & M32
                        c = pc(lo)
                        if r >= c:
                            r -= c
                            w >>= 32
                            pos += 32
                        else:
                            w = lo
                        lo = w & M16
                        c = pc(lo)
                        if r >= c:
                            r -= c
                            w >>= 16
                            pos += 16
                        else:
                            w = lo
                        lo = w & 255
                        c = POP8[lo]
                        if r >= c:
                            r -= c
                            lo = w >> 8
                            pos += 8
                        card = pos + KTH8[lo * 8 + r]
                    else:
                        card = pool.bit_length() - 1
                    md = mode_of[card]
                    mcount[md] += 1
                    if mcount[md] >= mode_limit:
                        excluded |= mode_mask[md]
                    ob = None
                else:
                    mandatory += 1
                    card_mandatory[card] += 1
                    if ob[0] == _EM:
                        spent |= 1 << ob[1]
                    for m in ob[3]:
                        spent |= 1 << m
                # Shown.
                if is_attack[card]:
                    attacked |= 1 << actor_of[card]
                played |= 1 << card
                slot += 1
                card_draws[card] += 1
                # Option sides (GDD 05 §3.4): Rng.permutation, Fisher-Yates from the top.
                n_opt = n_options[card]
                if n_opt == 2:
                    j = bits(2)
                    while j >= 2:
                        j = bits(2)
                    order = order_01 if j else order_10
                else:
                    order = list(range(n_opt))
                    for i in range(n_opt - 1, 0, -1):
                        n = i + 1
                        k = n.bit_length()
                        j = bits(k)
                        while j >= n:
                            j = bits(k)
                        order[i], order[j] = order[j], order[i]
                # The player (match.random_policy / protect_weakest_policy).
                if protect:
                    effects = meter_eff[card]
                    option, best_floor = order[0], -1
                    for o in order:
                        after = list(meters)
                        for m, d in effects[o]:
                            v = after[m] + d
                            after[m] = 0 if v < 0 else (100 if v > 100 else v)
                        floor = min(after)
                        if floor > best_floor:
                            option, best_floor = o, floor
                elif n_opt == 2:
                    r = pbits(2)
                    while r >= 2:
                        r = pbits(2)
                    option = order[r]
                elif n_opt > 1:
                    k = n_opt.bit_length()
                    r = pbits(k)
                    while r >= n_opt:
                        r = pbits(k)
                    option = order[r]
                else:
                    option = 0
                if trace is not None:
                    steps.append((card, list(order), option, ob is not None))
                # Engine.choose: clamp to 0-100; a meter at 0 ends the match (§5).
                for m, d in meter_eff[card][option]:
                    v = meters[m] + d
                    if v <= 0:
                        meters[m] = 0
                        if zeroed < 0 or m < zeroed:
                            zeroed = m
                    elif v > 100:
                        meters[m] = 100
                    else:
                        meters[m] = v
                for a, d in actor_eff[card][option]:
                    old = sat[a]
                    v = old + d
                    if v < 0:
                        v = 0
                    elif v > 100:
                        v = 100
                    sat[a] = v
                    lv = level_of[v]
                    if lv != level_of[old]:
                        ok = (ok & ~actor_level[a][level_of[old]]) | actor_level[a][lv]
                if zeroed >= 0:
                    break
            if zeroed >= 0:
                break
            # Closing (§5).
            closed += 1
            if slot < n_slots:
                short += 1
            carried = [ob[1] for ob in obs[pi:] if ob[0] == _EM]
            last_closing = list(meters)
            close_n[year] += 1
            close_sum[year] = list(map(add, close_sum[year], meters))
            close_sq[year] = list(map(add, close_sq[year], map(mul, meters, meters)))
            if year >= YEARS:
                break  # end of mandate; no emergency after the year-4 closing
            year += 1
        matches += 1
        if trace is not None:
            reason = "catastrophe" if zeroed >= 0 else "end_of_mandate"
            trace.append((steps, (reason, year, list(meters), zeroed)))
        cards_total += pc(played)
        end_year[year] += 1
        if zeroed >= 0:
            catastrophes += 1
            zeroed_count[zeroed] += 1
            outcome.append(1)
        else:
            outcome.append(0)
        end_sum[:] = map(add, end_sum, meters)
        end_sq[:] = map(add, end_sq, map(mul, meters, meters))

    t.matches += matches
    t.catastrophes += catastrophes
    t.cards_played += cards_total
    t.turns += turns
    t.turns_closed += closed
    t.short_turns += short
    t.mandatory += mandatory
    return t
