"""The simulation kernel: whole matches on the bitmask deck of ``masks.py`` (GDD 06 §7 studies).

``play_matches`` plays the reference match loop of ``match.play_match`` (no events or scene hooks;
players ``random``, ``protect`` and ``lookahead``) without building ``Draw`` or ``Choice`` objects,
and adds what the sweep reports into a ``Tally``. Its hot loop inlines ``Rng.below``, the k-th set
bit and the player's pick, but every ``getrandbits`` call is still the oracle's, in the oracle's
order: ``tests/test_kernel_differential.py`` checks it card for card against ``engine.Engine``.
``_ckernel.c`` is
the same kernel in C (``ckernel.py``; ``kernels.py`` picks one).
"""

import operator
import random
from typing import Iterable, List, Optional

from .. import keyed as _keyed
from ..engine import YEARS
from .masks import KTH8, MASK16, MASK32, MASK64, POP8, FastDeck, kth_bit, mask_of, popcount

_EM, _ACT, _MET = 0, 1, 2


class Tally:
    """What ``play_matches`` adds up over a run of matches of one deck and parameter set.

    Lists are indexed by card, meter, year (1-4; index 0 unused) or match (``catastrophe``: one
    byte 0/1 per match in seed order, kept so two scenarios can be compared match by match).
    ``end_meters``: empty, or (``keep_meters``) every match's ending meters, one byte (0-100)
    per meter, match after match in seed order, for paired comparisons of meters.
    ``picked``: empty, or (``keep_picked``) every match's cards drawn or reserved for an
    obligation, a bit set of ``8 * (n_cards // 64 + 1)`` bytes a match (little-endian, bit c =
    card position c): the keyed study replays only the matches that picked its card.
    """

    def __init__(self, n_cards: int, n_meters: int) -> None:
        self.matches = 0
        self.catastrophes = 0
        self.catastrophe = bytearray()
        self.end_meters = bytearray()
        self.picked = bytearray()
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
        self.end_meters += other.end_meters
        self.picked += other.picked
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


POLICIES = ("random", "protect", "lookahead")  # match.POLICIES, in the kernels
DRAWS = ("standard", "keyed")  # the oracle's Rng stream, or keyed.py's streams (paired studies)


def _floor_after(after: List[int], ranked: List[int], effects) -> int:
    """``min`` of ``after`` with ``effects`` applied (clamped), ``ranked`` = meter positions by
    ascending value: only the touched meters and the lowest untouched one are read."""
    touched = [m for m, _ in effects]
    v = 101
    for m in ranked:
        if m not in touched:
            v = after[m]
            break
    for m, d in effects:
        w = after[m] + d
        w = 0 if w < 0 else (100 if w > 100 else w)
        if w < v:
            v = w
    return v


def _lookahead(meters: List[int], meter_eff, effects, order: List[int], upcoming: int,
               n_meters: int) -> int:
    """``match.lookahead_policy``'s pick: the highest (worst best reply over the cards that
    could come next, floor after the option); ties: first shown. ``upcoming``: the eligible
    cards as a bitmask (this card already shown)."""
    replies = []
    while upcoming:
        low = upcoming & -upcoming
        replies.append(meter_eff[low.bit_length() - 1])
        upcoming ^= low
    option, best = order[0], (-1, -1)
    for o in order:
        after = list(meters)
        for m, d in effects[o]:
            v = after[m] + d
            after[m] = 0 if v < 0 else (100 if v > 100 else v)
        floor = min(after)
        score = floor
        if floor > 0 and replies:
            ranked = sorted(range(n_meters), key=after.__getitem__)
            score = 101
            for reply in replies:
                best_reply = -1
                for eff in reply:
                    f = _floor_after(after, ranked, eff)
                    if f > best_reply:
                        best_reply = f
                        if f >= score:
                            break  # this card cannot lower the worst case any more
                if best_reply < score:
                    score = best_reply
                    if score == 0:
                        break
        if (score, floor) > best:
            option, best = o, (score, floor)
    return option


_ORDER_01 = [0, 1]  # option_order of a two-option card when below(2) gives 1 (no swap)
_ORDER_10 = [1, 0]  # ... and when it gives 0 (swap)


def play_matches(fd: FastDeck, seeds: Iterable[int], policy: str = "random",
                 tally: Optional[Tally] = None, trace: Optional[list] = None,
                 keep_meters: bool = False, draw: str = "standard",
                 keep_picked: bool = False) -> Tally:
    """Play one whole match per seed, as ``match.play_match(deck, seed, policy)`` would (no events,
    no scene), and add it to ``tally`` (a new one when None). ``policy``: random, protect or
    lookahead. ``draw``: ``standard`` (the oracle's ``Rng``: the match ``sorteio play --seed``
    plays) or ``keyed`` (``keyed.py``: the same rules and distribution, each pick from its own
    stream, for the per-card study's pairs; the oracle with ``keyed.KeyedPicker``).
    ``keep_picked``: record each match's cards drawn or reserved (``Tally.picked``).

    ``trace`` (tests): when a list, gets one ``(steps, ending)`` per match, ``steps`` a list of
    ``(card, option_order, option, mandatory)`` and ``ending`` ``(reason, year, meters, zeroed)``
    with positions for cards and meters.

    One long function on purpose: locals are the fast variables in CPython, and this loop is what
    the simulator's matches/s figure measures (see docs/simulator.md, "What made the difference").
    ``Rng.below`` is inlined (``k = n.bit_length(); r = bits(k)`` until ``r < n``) so every
    ``getrandbits`` call is the oracle's, in the oracle's order.
    """
    if policy not in POLICIES:
        raise ValueError(f"unknown policy '{policy}' (choose from: {', '.join(POLICIES)})")
    if draw not in DRAWS:
        raise ValueError(f"unknown draw '{draw}' (choose from: {', '.join(DRAWS)})")
    keyed = draw == "keyed"
    first_in, family_key, n_all = _keyed.first_in, _keyed.family_key, fd.n_cards
    k_em, k_act, k_met, k_slot = _keyed.EMERGENCY, _keyed.ACTOR, _keyed.METER, _keyed.SLOT
    mk = 0
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
    linked_mask, attack_mask, links = fd.linked, fd.attack, fd.links
    # Bit sets of small groups are built when needed (masks.MaskTable): ``dense[g] or mask_of(..)``.
    mode_dense, mode_cards = fd.mode_mask.dense, fd.mode_mask.cards
    level_dense, level_cards, n_levels = actor_level.dense, actor_level.cards, fd.n_levels
    mode_of, actor_of, is_attack = ix.mode, ix.actor, ix.is_attack
    n_options, meter_eff, actor_eff = ix.n_options, ix.meter_effects, ix.actor_effects
    actor_rank = fd.actor_rank
    init_meters, init_sat = ix.initial_meters, ix.initial_satisfaction
    init_ok = non_actor  # cards allowed by the actors' starting levels (§3.1.4)
    for a in actor_range:
        init_ok |= actor_level[a * n_levels + level_of[init_sat[a]]]
    bit_len = [n.bit_length() for n in range(fd.n_cards + 2)]
    card_draws, card_mandatory = t.card_draws, t.card_mandatory
    close_sum, close_sq, close_n = t.close_sum, t.close_sq, t.close_n
    end_sum, end_sq, end_year, zeroed_count = t.end_sum, t.end_sq, t.end_year, t.zeroed
    outcome = t.catastrophe
    protect = policy == "protect"
    lookahead = policy == "lookahead"
    pc = popcount
    M64, M32, M16, P8, K8 = MASK64, MASK32, MASK16, POP8, KTH8
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
        if keyed:
            mk = _keyed.match_key(seed)
        else:
            seed_gen(seed)
            if policy == "random":
                seed_player(seed ^ 0x5EED)
        meters = list(init_meters)
        sat = list(init_sat)
        ok = init_ok
        played = 0
        picked = 0  # cards reserved for an obligation (keep_picked)
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
            # §3.3: the mandatory list, as [kind, target, card or -1, merged emergencies]; every
            # obligation a reserved card already serves counts once (§5), whatever the kinds.
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
                            c = (first_in(cand, family_key(mk, year, k_em, m), n_all) if keyed
                                 else _pick(cand, bits))
                            reserved |= 1 << c
                            picked |= 1 << c
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
                    cand = attack_mask[a]
                    if reserved & cand:
                        continue  # §5: a reserved card is its attack card; counts once
                    cand &= eligible
                    c = -1
                    if cand:
                        c = (first_in(cand, family_key(mk, year, k_act, a), n_all) if keyed
                             else _pick(cand, bits))
                        reserved |= 1 << c
                        picked |= 1 << c
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
                            c = (first_in(cand, family_key(mk, year, k_met, m), n_all) if keyed
                                 else _pick(cand, bits))
                            reserved |= 1 << c
                            picked |= 1 << c
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
                        excluded |= mode_dense[md] or mask_of(mode_cards[md])
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
                                excluded &= ~(mode_dense[md] or mask_of(mode_cards[md]))
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
                    if keyed:
                        card = first_in(pool, family_key(mk, year, k_slot, slot), n_all)
                    elif n > 1:
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
                        c = P8[lo]
                        if r >= c:
                            r -= c
                            lo = w >> 8
                            pos += 8
                        card = pos + K8[lo * 8 + r]
                    else:
                        card = pool.bit_length() - 1
                    md = mode_of[card]
                    mcount[md] += 1
                    if mcount[md] >= mode_limit:
                        excluded |= mode_dense[md] or mask_of(mode_cards[md])
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
                if keyed:
                    order = _keyed.sides(mk, card, n_opt)
                elif n_opt == 2:
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
                elif lookahead:
                    option = _lookahead(meters, meter_eff, meter_eff[card], order,
                                        base & ok & ~played, n_meters)
                elif keyed:
                    option = order[_keyed.player_choice(mk, card, n_opt)]
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
                        was, now = a * n_levels + level_of[old], a * n_levels + lv
                        ok = ((ok & ~(level_dense[was] or mask_of(level_cards[was])))
                              | (level_dense[now] or mask_of(level_cards[now])))
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
        if keep_meters:
            t.end_meters += bytes(meters)
        if keep_picked:
            t.picked += (picked | played).to_bytes(8 * (n_all // 64 + 1), "little")

    t.matches += matches
    t.catastrophes += catastrophes
    t.cards_played += cards_total
    t.turns += turns
    t.turns_closed += closed
    t.short_turns += short
    t.mandatory += mandatory
    return t
