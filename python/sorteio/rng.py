"""The engine's one seeded random number generator.

Mersenne Twister (``random.Random``) gives the same bit stream on every platform and Python version;
integer choice is done here by rejection sampling on ``getrandbits`` so it is unbiased and does not
depend on how a given Python version implements ``randrange``. The full generator state (625 words)
is saved, not the seed, so a loaded match continues exactly (issue: determinism).
"""

import random
from typing import List


class Rng:
    """Seeded generator. ``seed``: any int >= 0."""

    __slots__ = ("_bits", "_random")

    def __init__(self, seed: int = 0) -> None:
        self._random = random.Random(seed)
        self._bits = self._random.getrandbits

    def below(self, n: int) -> int:
        """Uniform integer in ``[0, n)``; ``n`` >= 1. Unbiased (rejection sampling)."""
        if n <= 1:
            if n == 1:
                return 0
            raise ValueError(f"below() needs n >= 1, got {n}")
        k = n.bit_length()
        r = self._bits(k)
        while r >= n:
            r = self._bits(k)
        return r

    def permutation(self, n: int) -> List[int]:
        """A uniform permutation of ``range(n)`` (Fisher-Yates, from the top)."""
        order = list(range(n))
        for i in range(n - 1, 0, -1):
            j = self.below(i + 1)
            order[i], order[j] = order[j], order[i]
        return order

    def get_state(self) -> List[int]:
        """JSON-safe state: 624 MT words and the position index (625 ints)."""
        _version, words, _gauss = self._random.getstate()
        return list(words)

    def set_state(self, words: List[int]) -> None:
        """Restore a state from ``get_state``. Raises ValueError if it is malformed."""
        if len(words) != 625 or not all(isinstance(w, int) and 0 <= w < 2**32 for w in words):
            raise ValueError("RNG state must be 625 unsigned 32-bit integers")
        if not 0 <= words[-1] <= 624:
            raise ValueError("RNG state position must be 0-624")
        # Only the top bit of the first word and the other 623 words make the state; all zero,
        # Mersenne Twister gives 0 forever (no seed reaches it: seeding sets that top bit).
        if not words[0] & 0x80000000 and not any(words[1:624]):
            raise ValueError("RNG state is degenerate (all zero): not a state a seed reaches")
        self._random.setstate((3, tuple(words), None))
