"""Sweep specifications: which §7 parameter sets a sweep plays (GDD 06 §7, "Faixa segura").

``--param NAME=VALUES`` texts are parsed and checked against the safe ranges of
``deck.Parameters`` before any range is expanded; ``build_scenarios`` makes the cartesian product,
the deck's own parameters first (the baseline). Size limits live here too.
"""

import itertools
import math
from typing import Dict, List, NamedTuple, Optional, Sequence, Tuple

from ..deck import Deck, Parameters
from ..errors import SorteioError
from ..i18n import _
from ..validation_text import error_text

PARAM_NAMES = list(Parameters.model_fields)  # the §7 parameters a sweep may vary
MAX_VALUES = 10_000  # values per parameter (a §7 safe range has at most 25)
MAX_SCENARIOS = 10_000  # §7's study is 99; more is a typo, not a study
MAX_MATCHES = 10_000_000  # per scenario: the paired comparison keeps one byte per match
MAX_TOTAL_MATCHES = 100_000_000  # scenarios x matches: ~100 MB of per-match outcomes kept


class SweepError(SorteioError, ValueError):
    """A bad sweep specification (unknown parameter, bad value list, value outside its range)."""


def param_bounds(name: str) -> Tuple[Optional[int], Optional[int]]:
    """The safe range (§7) of a ``Parameters`` field, read from its constraints: ``(low, high)``
    inclusive, ``None`` for an open end."""
    low: Optional[int] = None
    high: Optional[int] = None
    for item in Parameters.model_fields[name].metadata:
        if getattr(item, "ge", None) is not None:
            low = item.ge
        if getattr(item, "gt", None) is not None:
            low = item.gt + 1
        if getattr(item, "le", None) is not None:
            high = item.le
        if getattr(item, "lt", None) is not None:
            high = item.lt - 1
    return low, high


def _spans(text: str) -> List[Tuple[int, int]]:
    """``"25..27,30"`` -> ``[(25, 27), (30, 30)]``, without expanding anything."""
    spans: List[Tuple[int, int]] = []
    for part in text.split(","):
        part = part.strip()
        try:
            if ".." in part:
                lo_text, hi_text = part.split("..", 1)
                lo, hi = int(lo_text), int(hi_text)
            else:
                lo = hi = int(part)
        except ValueError:
            raise SweepError(_("'{part}' is not an integer or a range like 2..4").format(
                part=part)) from None
        if hi < lo:
            raise SweepError(_("range '{part}' goes down ({lo} > {hi})").format(
                part=part, lo=lo, hi=hi))
        spans.append((lo, hi))
    return spans


def parse_values(text: str, bounds: Tuple[Optional[int], Optional[int]] = (None, None),
                 what: str = "") -> List[int]:
    """``"6,7,8"``, ``"2..4"`` (inclusive) or a mix like ``"25..27,30"`` -> sorted unique ints.

    Every range is checked against ``bounds`` (inclusive, ``None`` = open) and its size against
    ``MAX_VALUES`` *before* it is expanded, so ``1..1000000000`` is refused at once instead of
    filling the memory. ``what`` names the parameter in the messages."""
    low, high = bounds
    spans = _spans(text)
    prefix = f"{what}=" if what else ""
    for lo, hi in spans:
        shown = f"{lo}..{hi}" if lo != hi else str(lo)
        if (low is not None and lo < low) or (high is not None and hi > high):
            raise SweepError(prefix + _("{shown}: outside the §7 safe range {low}..{high}").format(
                shown=shown, low="" if low is None else low, high="" if high is None else high))
        if hi - lo + 1 > MAX_VALUES:
            raise SweepError(prefix + _("{shown}: {count:,} values, more than the {most:,} a "
                                        "sweep may take per parameter").format(
                shown=shown, count=hi - lo + 1, most=MAX_VALUES))
    values = set()
    for lo, hi in spans:
        values.update(range(lo, hi + 1))
        if len(values) > MAX_VALUES:
            raise SweepError(prefix + _("{shown}: more than the {most:,} values a sweep may take "
                                        "per parameter").format(shown=text.strip(),
                                                                most=MAX_VALUES))
    return sorted(values)


def parse_param(text: str) -> Tuple[str, List[int]]:
    """``"name=values"`` (see ``parse_values``) -> (name, values), checked against the name's
    safe range (``Parameters``) before any range is expanded. Raises ``SweepError``."""
    if "=" not in text:
        raise SweepError(_("'{text}': expected NAME=VALUES, e.g. teto_obrigatorias=2..4").format(
            text=text))
    name, _sep, values = text.partition("=")
    name = name.strip()
    if name not in PARAM_NAMES:
        raise SweepError(_("unknown parameter '{name}' (§7 parameters: {names})").format(
            name=name, names=", ".join(PARAM_NAMES)))
    return name, parse_values(values, param_bounds(name), name)


def count_scenarios(grid: Dict[str, List[int]]) -> int:
    """Combinations in ``grid`` (the baseline, when not among them, adds one more)."""
    return math.prod(len(v) for v in grid.values()) if grid else 1


class Scenario(NamedTuple):
    """One parameter set. ``params``: every §7 parameter; ``baseline``: the deck's own;
    ``without``: a card id left out of the deck (``percard.card_scenarios``), or None."""

    index: int
    params: Dict[str, int]
    baseline: bool
    without: Optional[str] = None

    def label(self, names: Sequence[str]) -> str:
        if self.without is not None:
            return f"sem {self.without}"
        return " ".join(f"{n}={self.params[n]}" for n in names) or "baseline"


def build_scenarios(deck: Deck, grid: Dict[str, List[int]]) -> List[Scenario]:
    """Cartesian product of ``grid`` over the deck's parameters, baseline first (added when the
    grid does not contain it). Raises ``SweepError`` for a value outside its safe range (§7)."""
    base = deck.parametros.model_dump()
    names = list(grid)
    count = count_scenarios(grid)
    if count > MAX_SCENARIOS:
        raise SweepError(_("{count:,} scenarios ({sizes}), more than the {most:,} a sweep may "
                           "run").format(count=count, most=MAX_SCENARIOS,
                                         sizes=" x ".join(str(len(v)) for v in grid.values())))
    combos = [dict(base, **dict(zip(names, values)))
              for values in itertools.product(*(grid[n] for n in names))]
    for combo in combos:
        try:
            Parameters(**combo)
        except ValueError as exc:
            first = exc.errors()[0] if hasattr(exc, "errors") else {"loc": ("?",), "msg": str(exc)}
            field = first["loc"][0]
            raise SweepError(f"{field}={combo[field]}: " + _("{error} (§7 safe range)").format(
                error=error_text(first))) from None
    out = [Scenario(0, base, True)]
    for combo in combos:
        if combo != base:
            out.append(Scenario(len(out), combo, False))
    return out


def check_size(n_scenarios: int, matches: int) -> None:
    """Refuse a sweep too large to keep in memory (``SweepError``): ``matches`` per scenario up
    to ``MAX_MATCHES``, scenarios x matches up to ``MAX_TOTAL_MATCHES``."""
    if matches < 1:
        raise SweepError(_("matches must be >= 1"))
    if matches > MAX_MATCHES:
        raise SweepError(_("{matches:,} matches per scenario, more than the {most:,} a sweep may "
                           "run (it keeps one outcome per match for the paired comparison)"
                           ).format(matches=matches, most=MAX_MATCHES))
    if n_scenarios * matches > MAX_TOTAL_MATCHES:
        raise SweepError(_("{scenarios:,} scenarios x {matches:,} matches = {total:,} matches, "
                           "more than the {most:,} a sweep may run (it keeps one outcome per "
                           "match for the paired comparison); use fewer matches or scenarios"
                           ).format(scenarios=n_scenarios, matches=matches,
                                    total=n_scenarios * matches, most=MAX_TOTAL_MATCHES))
