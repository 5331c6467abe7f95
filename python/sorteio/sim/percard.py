"""Per-card analysis (``sorteio simulate --per-card``): what each card does to the match.

For every playable card, the deck without that card plays the same matches as the whole deck
(same seeds: match ``i`` uses engine seed ``seed * 1,000,000 + i`` in both), and its catastrophe
rate and ending meters are compared with the baseline's:

- catastrophe: the paired per-match difference (``stats.paired_difference``: same seed, one
  0/1 outcome each), in points, with its 95% normal interval;
- each ending meter: the mean of the per-match differences (same seed, ending meter without the
  card minus with it) with its 95% normal interval; the sweep keeps every match's ending meters
  for this (``keep_meters``, one byte per meter per match).

Cards are ranked by how much their absence moves the catastrophe rate (largest |Δ| first). A
positive Δ means the match goes worse without the card (it protects); negative, better.

"Without the card" is the card made unplayable (its bit cleared in every card set of the
``FastDeck``): the draw then sees exactly the deck with the card removed (positions of the other
cards, their order and every candidate list are unchanged; ``tests/test_percard.py`` checks it
against the oracle on the deck without the card).
"""

import copy
import math
from typing import Dict, List, NamedTuple, Tuple

from ..deck import Deck
from .masks import FastDeck, MaskTable
from .outcomes import ScenarioResult, SweepResult
from .spec import Scenario
from .stats import Z95


def _drop(table: MaskTable, c: int, n_cards: int) -> MaskTable:
    return MaskTable([[x for x in group if x != c] for group in table.cards], n_cards)


def without_card(fd: FastDeck, c: int) -> FastDeck:
    """``fd`` with card position ``c`` never eligible (§3.1): a deck without that card."""
    keep = ~(1 << c)
    out = copy.copy(fd)
    out.playable = fd.playable & keep
    out.base = [b & keep for b in fd.base]
    out.non_actor = fd.non_actor & keep
    out.actor_level = _drop(fd.actor_level, c, fd.n_cards)
    out.actor_all = _drop(fd.actor_all, c, fd.n_cards)
    out.linked = _drop(fd.linked, c, fd.n_cards)
    out.attack = _drop(fd.attack, c, fd.n_cards)
    out.mode_mask = _drop(fd.mode_mask, c, fd.n_cards)
    out._c_decks = {}  # the compiled kernel's tables of this card set, not the whole deck's
    return out


def card_scenarios(deck: Deck) -> List[Scenario]:
    """The baseline (whole deck, its own parameters), then one scenario per playable card
    (§3.1.1, §3.1.5: drafts and impeachment cards are never drawn, so never analysed)."""
    params = deck.parametros.model_dump()
    out = [Scenario(0, params, True)]
    for card in deck.cartas:
        if card.playable:
            out.append(Scenario(len(out), params, False, card.id))
    return out


class CardEffect(NamedTuple):
    """What removing one card changes, against the baseline. Points are percentage points;
    meters map id -> (Δ mean, CI low, CI high)."""

    card_id: str
    mode: str
    catastrophe_pct: float
    diff_pp: Tuple[float, float, float]
    meters: Dict[str, Tuple[float, float, float]]
    draws_per_match: float  # how often the baseline showed the card

    def row(self) -> Dict[str, object]:
        out: Dict[str, object] = {
            "card": self.card_id, "mode": self.mode,
            "catastrophe_without_pct": round(self.catastrophe_pct, 3),
            "diff_pp": round(self.diff_pp[0], 3), "diff_ci95_low_pp": round(self.diff_pp[1], 3),
            "diff_ci95_high_pp": round(self.diff_pp[2], 3),
            "baseline_draws_per_match": round(self.draws_per_match, 4),
        }
        for m, (d, lo, hi) in self.meters.items():
            out[f"end_{m}_diff"] = round(d, 3)
            out[f"end_{m}_ci95_low"] = round(lo, 3)
            out[f"end_{m}_ci95_high"] = round(hi, 3)
        return out


def _meter_diffs(r: ScenarioResult, base: ScenarioResult) -> Dict[str, Tuple[float, float, float]]:
    n_meters = len(r.meter_ids)
    a_all, b_all = r.tally.end_meters, base.tally.end_meters
    n = r.tally.matches
    if n > 1 and len(a_all) == len(b_all) == n * n_meters and base.tally.matches == n:
        # Paired: the mean of the per-match differences, with the normal interval of that mean.
        out = {}
        for m, ident in enumerate(r.meter_ids):
            diffs = [x - y for x, y in zip(a_all[m::n_meters], b_all[m::n_meters])]
            mean = sum(diffs) / n
            var = sum((x - mean) ** 2 for x in diffs) / (n - 1)
            half = Z95 * math.sqrt(var / n)
            out[ident] = (mean, mean - half, mean + half)
        return out
    # Without per-match meters: the two samples' variances (gives the pairing no credit).
    a, b = r.meter_stats(), base.meter_stats()
    n_a, n_b = r.tally.matches, base.tally.matches
    out = {}
    for m in a:
        (mean_a, sd_a), (mean_b, sd_b) = a[m], b[m]
        half = Z95 * math.sqrt(sd_a ** 2 / max(n_a, 1) + sd_b ** 2 / max(n_b, 1))
        d = mean_a - mean_b
        out[m] = (d, d - half, d + half)
    return out


def card_effects(result: SweepResult) -> List[CardEffect]:
    """One ``CardEffect`` per finished card scenario, ranked: largest |Δ catastrophe| first
    (ties: deck order). Empty without a finished baseline."""
    base = result.baseline
    if base is None:
        return []
    draws = base.card_frequency()
    modes = {c: base.mode_names[base.card_mode[i]] for i, c in enumerate(base.card_ids)}
    effects = []
    for r in result.scenarios:
        card = r.scenario.without
        if card is None or r.diff is None:
            continue
        diff = tuple(100 * x for x in r.diff)
        effects.append(CardEffect(card, modes[card], 100 * r.rate, diff,  # type: ignore[arg-type]
                                  _meter_diffs(r, base), draws.get(card, 0.0)))
    order = {c: i for i, c in enumerate(base.card_ids)}
    effects.sort(key=lambda e: (-abs(e.diff_pp[0]), order[e.card_id]))
    return effects
