"""What a sweep reports: one ``ScenarioResult`` per scenario (its ``Tally`` and the figures read
from it) and the whole ``SweepResult``."""

import math
from typing import Dict, List, NamedTuple, Optional, Tuple

from ..compiled import CompiledDeck
from .kernel import Tally
from .spec import Scenario
from .stats import wilson

CATASTROPHE_TOLERANCE_PP = 4.0  # §7: N, T and the meter limit move the catastrophe rate <= 4 points


class ScenarioResult:
    """A finished scenario: its ``Tally`` and the figures the sweep reports."""

    def __init__(self, scenario: Scenario, tally: Tally, index: CompiledDeck) -> None:
        self.scenario = scenario
        self.tally = tally
        self.meter_ids = index.meter_ids
        self.card_ids = index.card_ids
        self.mode_names = index.mode_names
        self.card_mode = index.mode
        self.playable = index.playable
        self.diff: Optional[Tuple[float, float, float]] = None  # vs baseline, fractions

    @property
    def rate(self) -> float:
        t = self.tally
        return t.catastrophes / t.matches if t.matches else 0.0

    @property
    def interval(self) -> Tuple[float, float]:
        return wilson(self.tally.catastrophes, self.tally.matches)

    def meter_stats(self) -> Dict[str, Tuple[float, float]]:
        """Ending meters: ``{meter: (mean, standard deviation)}`` over the matches."""
        t = self.tally
        n = t.matches
        out = {}
        for m, ident in enumerate(self.meter_ids):
            mean = t.end_sum[m] / n if n else 0.0
            var = (t.end_sq[m] - n * mean * mean) / (n - 1) if n > 1 else 0.0
            out[ident] = (mean, math.sqrt(max(var, 0.0)))
        return out

    def trajectories(self) -> Dict[str, List[Tuple[float, float, int]]]:
        """Meters at each year's closing: ``{meter: [(mean, sd, matches) for year 1..4]}``, over
        the matches that reached that closing (a catastrophe ends a match before it)."""
        t = self.tally
        out: Dict[str, List[Tuple[float, float, int]]] = {}
        for m, ident in enumerate(self.meter_ids):
            rows = []
            for year in range(1, 5):
                n = t.close_n[year]
                mean = t.close_sum[year][m] / n if n else float("nan")
                var = (t.close_sq[year][m] - n * mean * mean) / (n - 1) if n > 1 else 0.0
                rows.append((mean, math.sqrt(max(var, 0.0)), n))
            out[ident] = rows
        return out

    @property
    def mandatory_per_turn(self) -> float:
        return self.tally.mandatory / self.tally.turns if self.tally.turns else 0.0

    @property
    def short_turn_share(self) -> float:
        """Share of closed turns that ended with fewer than N cards (§5)."""
        t = self.tally
        return t.short_turns / t.turns_closed if t.turns_closed else 0.0

    def never_drawn(self) -> List[str]:
        """Playable cards no match of this scenario showed."""
        return [c for i, c in enumerate(self.card_ids)
                if self.playable[i] and not self.tally.card_draws[i]]

    def card_frequency(self) -> Dict[str, float]:
        """Playable card -> draws per match."""
        n = self.tally.matches or 1
        return {c: self.tally.card_draws[i] / n for i, c in enumerate(self.card_ids)
                if self.playable[i]}

    def mode_frequency(self) -> Dict[str, float]:
        """Mode -> draws per match."""
        n = self.tally.matches or 1
        out = dict.fromkeys(self.mode_names, 0.0)
        for i, count in enumerate(self.tally.card_draws):
            out[self.mode_names[self.card_mode[i]]] += count / n
        return out

    @property
    def flagged(self) -> bool:
        """The catastrophe rate differs from the baseline's by more than §7's 4 points."""
        return self.diff is not None and abs(self.diff[0]) * 100 > CATASTROPHE_TOLERANCE_PP

    def row(self) -> Dict[str, object]:
        """One CSV row / JSON object: parameters, then figures (rates as percentages)."""
        t = self.tally
        lo, hi = self.interval
        row: Dict[str, object] = {"scenario": self.scenario.index,
                                  "baseline": int(self.scenario.baseline)}
        row.update(self.scenario.params)
        if self.scenario.without is not None:
            row["without_card"] = self.scenario.without
        row.update({
            "matches": t.matches,
            "catastrophes": t.catastrophes,
            "catastrophe_pct": round(100 * self.rate, 3),
            "catastrophe_ci95_low_pct": round(100 * lo, 3),
            "catastrophe_ci95_high_pct": round(100 * hi, 3),
            "diff_vs_baseline_pp": None if self.diff is None else round(100 * self.diff[0], 3),
            "diff_ci95_low_pp": None if self.diff is None else round(100 * self.diff[1], 3),
            "diff_ci95_high_pp": None if self.diff is None else round(100 * self.diff[2], 3),
            "flag_over_4pp": int(self.flagged),
            "mandatory_per_turn": round(self.mandatory_per_turn, 4),
            "short_turn_pct": round(100 * self.short_turn_share, 3),
            "cards_per_match": round(t.cards_played / t.matches, 3) if t.matches else 0.0,
        })
        for ident, (mean, sd) in self.meter_stats().items():
            row[f"end_{ident}_mean"] = round(mean, 3)
            row[f"end_{ident}_sd"] = round(sd, 3)
        for m, ident in enumerate(self.meter_ids):
            row[f"zeroed_{ident}"] = t.zeroed[m]
        never = self.never_drawn()
        row["never_drawn_count"] = len(never)
        row["never_drawn"] = ";".join(never)
        return row


class SweepResult(NamedTuple):
    """Finished scenarios in scenario order; ``interrupted`` when the run was stopped early."""

    scenarios: List[ScenarioResult]
    names: List[str]  # the parameters the sweep varies
    matches: int
    seed: int
    policy: str
    deck_name: str
    interrupted: bool
    total_scenarios: int
    workers: Optional[int] = None  # local processes used (1: this process); None: an executor
    kernel: str = "python"  # the kernel that played the matches: "c" or "python" (kernels.py)
    stopped_by: Optional[int] = None  # the signal that interrupted the sweep (SIGINT, SIGTERM)

    @property
    def baseline(self) -> Optional[ScenarioResult]:
        for r in self.scenarios:
            if r.scenario.baseline:
                return r
        return None
