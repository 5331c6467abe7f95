"""The keyed draw: a draw *strategy* for paired studies (``sim/percard_study.py``), not a rule.

The GDD's draw (§3.4: equal weight among the eligible cards) asks for a uniform pick; how the
uniform number is made is free. The standard draw (``rng.Rng``, what ``sorteio play --seed``,
saves and sweeps use) takes ``candidates[below(len(candidates))]`` from one Mersenne Twister
stream, so removing one card from a deck shifts every later pick: two matches of the same seed,
with and without a card, part ways at the first pick that saw it. The keyed draw makes each pick
from its own stream instead, fixed by (match seed, pick, card) alone:

- every pick has a *family*: ``(year, kind, target)`` with kind ``EMERGENCY``, ``ACTOR`` or
  ``METER`` for an obligation's card (§3.3; target = the meter or actor) and ``SLOT`` for a
  random slot (§3.4; target = the slot, 0-based, cards shown in the turn before it). A family is
  used at most once per match;
- the family's stream is splitmix64 from ``family_key``: proposal ``j`` (1, 2, ...) is deck
  position ``(mix64(key + j * GOLDEN) * n_cards) >> 64`` of the *whole* deck; the pick is the
  first proposal in the pool. Each proposal is uniform over the deck and independent of the
  pool, so the first one in the pool is uniform over the pool (rejection sampling; the pool is
  never empty when a pick is made): the GDD's equal weight. A one-card pool needs no proposal.
- the option sides (GDD 05 §3.4) and the coin-flip player's choice (``match.random_policy``) are
  per (match, card): ``sides`` and ``player_choice``.

Why this helps: a card that is not the first proposal in the pool changes nothing, so the
matches with and without a card stay identical until that card would be drawn, and where they
part (one card in place of another) the later picks still read the same streams and mostly agree
again. The marginal distribution of every match is the GDD's (``tests/test_keyed.py`` compares
the catastrophe rates of both draws). A keyed match is not the match ``play --seed`` replays.

Both kernels (``sim/kernel.py``, ``sim/_ckernel.c``) and the oracle (``Engine(picker=...)`` with
``KeyedPicker``) use these functions' arithmetic, bit for bit (64-bit unsigned, wrapping).
"""

from typing import List, Optional, Sequence

M64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15  # splitmix64's increment
MATCH_TAG = 0x5EEDC0DE5EEDC0DE  # keeps keyed streams apart from any other use of the seed

EMERGENCY, ACTOR, METER, SLOT, SIDES, PLAYER = range(6)  # kinds of family
KIND_OF = {"emergency": EMERGENCY, "actor": ACTOR, "meter": METER}  # results.py's obligation kinds


def mix64(x: int) -> int:
    """splitmix64's finalizer: a bijection of 64-bit integers (``x`` in 0..2**64-1)."""
    x ^= x >> 30
    x = (x * 0xBF58476D1CE4E5B9) & M64
    x ^= x >> 27
    x = (x * 0x94D049BB133111EB) & M64
    return x ^ (x >> 31)


def match_key(seed: int) -> int:
    """A match's key from its seed (an int >= 0; only its low 64 bits count)."""
    return mix64((seed & M64) ^ MATCH_TAG)


def family_key(mk: int, year: int, kind: int, target: int) -> int:
    """The key of one family of a match: ``year`` 0-4, ``kind`` 0-5, ``target`` 0-65535."""
    return mix64(mk ^ (((((year * 8 + kind) << 16) | target) * GOLDEN) & M64))


def first_in(pool: int, key: int, n_cards: int) -> int:
    """The first proposal of ``key``'s stream that is in ``pool`` (a non-empty bit set of deck
    positions below ``n_cards``): the keyed pick."""
    if not pool & (pool - 1):
        return pool.bit_length() - 1
    j = key
    while True:
        j = (j + GOLDEN) & M64
        c = (mix64(j) * n_cards) >> 64
        if pool >> c & 1:
            return c


def below(key: int, i: int, n: int) -> int:
    """The ``i``-th uniform integer in ``[0, n)`` of ``key``'s stream (i >= 1)."""
    return (mix64((key + i * GOLDEN) & M64) * n) >> 64


def sides(mk: int, card: int, n_options: int) -> List[int]:
    """The options' order for ``card`` (deck position) in match ``mk``: Fisher-Yates from the top
    (as ``Rng.permutation``), the swap for position ``i`` from ``below(key, i, i + 1)``."""
    key = family_key(mk, 0, SIDES, card)
    order = list(range(n_options))
    for i in range(n_options - 1, 0, -1):
        j = below(key, i, i + 1)
        order[i], order[j] = order[j], order[i]
    return order


def player_choice(mk: int, card: int, n_options: int) -> int:
    """The coin-flip player's index into the shown order for ``card`` in match ``mk``."""
    return below(family_key(mk, 0, PLAYER, card), 1, n_options)


class KeyedPicker:
    """The keyed draw for the oracle (``Engine(deck, seed, picker=KeyedPicker(seed))``): used by
    tests and by nothing a player runs. ``universe``: the card ids whose positions the streams
    propose (default: the engine's own deck); a study of the deck without card *c* gives the
    whole deck's ids, so both decks read the same streams."""

    def __init__(self, seed: int, universe: Optional[Sequence[str]] = None) -> None:
        self.mk = match_key(seed)
        self.universe = list(universe) if universe is not None else None

    def _positions(self, engine) -> List[int]:
        ids = engine.index.card_ids
        if self.universe is None:
            return list(range(len(ids)))
        where = {cid: i for i, cid in enumerate(self.universe)}
        return [where[cid] for cid in ids]

    def pick(self, engine, kind: int, target: int, candidates: Sequence[int]) -> int:
        """The card (engine position) drawn among ``candidates`` for family (engine.year,
        ``kind``, ``target``)."""
        pos = self._positions(engine)
        n = len(self.universe) if self.universe is not None else len(pos)
        pool = 0
        back = {}
        for c in candidates:
            pool |= 1 << pos[c]
            back[pos[c]] = c
        return back[first_in(pool, family_key(self.mk, engine.year, kind, target), n)]

    def sides(self, engine, card: int) -> List[int]:
        return sides(self.mk, self._positions(engine)[card], engine.index.n_options[card])

    def player_choice(self, engine, card: int) -> int:
        """The coin-flip player's option (original index) for ``card`` shown now."""
        order = engine.current.option_order
        return order[player_choice(self.mk, self._positions(engine)[card], len(order))]
