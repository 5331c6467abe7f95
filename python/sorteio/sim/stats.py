"""Statistics of the sweep figures: intervals for catastrophe rates and paired differences."""

import math
from typing import Tuple

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson(successes: int, n: int, z: float = Z95) -> Tuple[float, float]:
    """Wilson score interval for a proportion (good near 0 and with small n)."""
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes == 0 else max(0.0, min(p, centre - half))
    hi = 1.0 if successes == n else min(1.0, max(p, centre + half))
    return (lo, hi)


def paired_difference(a: bytes, b: bytes, z: float = Z95) -> Tuple[float, float, float]:
    """Mean of ``a[i] - b[i]`` (0/1 outcomes of the same matches) with a normal 95% interval."""
    n = min(len(a), len(b))
    if n == 0:
        return (0.0, 0.0, 0.0)
    up, down = _ups_and_downs(bytes(a[:n]), bytes(b[:n]))
    mean = (up - down) / n
    var = ((up + down) / n - mean * mean) * n / (n - 1) if n > 1 else 0.0
    half = z * math.sqrt(max(var, 0.0) / n)
    return (mean, mean - half, mean + half)


def _ups_and_downs(a: bytes, b: bytes) -> Tuple[int, int]:
    """How many ``i`` have ``a[i] > b[i]`` and ``a[i] < b[i]`` (equal lengths). For 0/1 bytes,
    the sweep's case, as bit operations on two big integers (byte i's low bit is bit 8i): ~100x
    faster than a Python loop, which a 99-scenario sweep of 3,000 matches felt (~0.1 s)."""
    if a.translate(None, b"\x00\x01") or b.translate(None, b"\x00\x01"):  # not all 0/1
        return (sum(1 for x, y in zip(a, b) if x > y), sum(1 for x, y in zip(a, b) if x < y))
    x, y = int.from_bytes(a, "little"), int.from_bytes(b, "little")
    return (_popcount(x & ~y), _popcount(y & ~x))


def _popcount(x: int) -> int:
    return bin(x).count("1")  # int.bit_count() is Python 3.10+; the core runs on 3.8
