"""The per-card study's statistics and rounds (issue 15, "per-card answers that are not noise"):
Benjamini-Hochberg against the paper's worked example, the paired figures, the adaptive plan, and
two seeds agreeing on padrao at the stated precision."""

import json
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sorteio.compiled import CompiledDeck
from sorteio.deck import Deck
from sorteio.loader import load_deck
from sorteio.sim import ckernel, kernel
from sorteio.sim.masks import FastDeck
from sorteio.sim.percard import (
    DEFAULT_HALF_WIDTH_PP,
    benjamini_hochberg,
    jaccard,
    paired_counts,
    paired_half_width,
    pearson,
    spearman,
    two_sided_p,
    without_card,
)
from sorteio.sim.percard_study import STEP, PerCardPlan, run_per_card
from sorteio.sim.stats import Z95, paired_difference
from test_kernel_differential import both_selects  # noqa: F401

# Benjamini & Hochberg (1995), J. R. Statist. Soc. B 57(1), section 4: 15 p-values of a
# clinical trial. At q = 0.05 the step-up procedure rejects the 4 smallest (0.0095 <= 4/15 *
# 0.05 = 0.0133; 0.0201 > 5/15 * 0.05 = 0.0167 and no larger one passes its line), where
# Bonferroni rejects 3 (0.05 / 15 = 0.0033).
BH_EXAMPLE = [0.0201, 0.0001, 0.0004, 0.0019, 0.0095, 0.0278, 0.0298, 0.0344, 0.0459, 0.3240,
              0.4262, 0.5719, 0.6528, 0.7590, 1.0000]  # the paper's, first one moved: order-free


def test_benjamini_hochberg_on_the_papers_worked_example():
    q = benjamini_hochberg(BH_EXAMPLE)
    assert sorted(p for p, adj in zip(BH_EXAMPLE, q) if adj <= 0.05) == [
        0.0001, 0.0004, 0.0019, 0.0095]
    # Adjusted values by hand: p_(i) * 15 / i, then the running minimum from the largest.
    by_p = dict(zip(BH_EXAMPLE, q))
    assert by_p[0.0001] == pytest.approx(0.0015)
    assert by_p[0.0004] == pytest.approx(0.003)
    assert by_p[0.0019] == pytest.approx(0.0095)
    assert by_p[0.0095] == pytest.approx(0.0095 * 15 / 4)
    assert by_p[0.0201] == pytest.approx(0.0201 * 15 / 5)
    assert by_p[0.0278] == by_p[0.0298] == pytest.approx(0.0298 * 15 / 7)  # step-up minimum
    assert by_p[1.0] == 1.0
    assert benjamini_hochberg([]) == []


@settings(max_examples=200, deadline=None)
@given(st.lists(st.floats(0, 1), min_size=1, max_size=60), st.sampled_from([0.01, 0.05, 0.2]))
def test_benjamini_hochberg_is_the_step_up_rule(ps, q):
    """Adjusted value <= q exactly for the step-up procedure's discoveries: every p at or below
    the largest p_(k) with p_(k) m / k <= q. The line is written p m / k <= q, as the adjusted
    value is computed, not p <= k q / m: the two differ by a rounding for a p on the line
    (p = 6 * 0.2 / 18 gives p * 18 / 6 = 0.20000000000000004 > 0.2), which hypothesis finds."""
    m = len(ps)
    ranked = sorted(ps)
    passing = [ranked[k - 1] for k in range(1, m + 1) if ranked[k - 1] * m / k <= q]
    cut = max(passing) if passing else -1.0
    adjusted = benjamini_hochberg(ps)
    assert [a <= q for a in adjusted] == [p <= cut for p in ps]
    assert all(p <= a * (1 + 1e-12) and a <= 1 for p, a in zip(ps, adjusted))


def test_paired_counts_are_the_paired_difference():
    rng = random.Random(4)
    for n in (2, 10, 1000):
        a = bytes(int(rng.random() < 0.1) for _ in range(n))
        b = bytes(int(rng.random() < 0.07) for _ in range(n))
        up = sum(x > y for x, y in zip(a, b))
        down = sum(x < y for x, y in zip(a, b))
        mean, se = paired_counts(up, down, n)
        want = paired_difference(a, b)
        assert mean == pytest.approx(want[0])
        assert Z95 * se == pytest.approx(want[2] - want[0])
        if up + down:
            assert paired_half_width(up, down, n) == pytest.approx(Z95 * se)
    assert paired_half_width(0, 0, 3000) == 3 / 3000  # the rule of three, not ±0


def test_p_values_pearson_spearman_jaccard():
    assert two_sided_p(1.959963984540054, 1.0) == pytest.approx(0.05)
    assert two_sided_p(0.0, 0.0) == 1.0 and two_sided_p(0.1, 0.0) == 0.0
    # by hand: Sxy = 10.75, Sxx = 5, Syy = 23.1875
    assert pearson([1, 2, 3, 4], [2, 4, 6, 8.5]) == pytest.approx(10.75 / math.sqrt(5 * 23.1875))
    # Ties share their average rank: ranks [1, 2.5, 2.5, 4] vs [1, 2, 3, 4].
    assert spearman([1, 2, 2, 3], [10, 20, 30, 40]) == pytest.approx(
        pearson([1, 2.5, 2.5, 4], [1, 2, 3, 4]))
    assert spearman([3, 1, 2], [30, 10, 20]) == pytest.approx(1.0)
    assert jaccard({"a", "b"}, {"b", "c"}) == pytest.approx(1 / 3) and jaccard(set(), set()) == 1


# -- the plan ------------------------------------------------------------------------------------

SMALL = dict(half_width_pp=0.6, max_matches=8000, first=2000)  # padrao: 2-3 rounds, ~0.5 M


@pytest.fixture(scope="module")
def small():
    return run_per_card(load_deck("padrao"), seed=3, jobs=1, **SMALL)


def test_every_card_reaches_the_precision_or_the_cap(small):
    assert len(small.effects) == small.cards_total == 95 and not small.interrupted
    assert small.rounds >= 2  # the first round alone does not reach ±0.6 for every card
    for e in small.effects:
        half = (e.diff_pp[2] - e.diff_pp[1]) / 2
        assert e.matches % STEP == 0 and 2000 <= e.matches <= 8000
        assert (e.precise and half <= 0.6) or (not e.precise and e.matches == 8000)
    assert small.baseline.tally.matches == max(e.matches for e in small.effects)
    assert small.matches_played == small.baseline.tally.matches + sum(
        e.matches for e in small.effects)


@pytest.mark.usefixtures("both_selects")
def test_effects_are_the_paired_comparison_on_the_same_matches(small):
    """Each card's figures, recomputed from scratch: the kernel (keyed draw) on the deck without
    the card and on the whole deck, every match played, over the card's own number of matches
    (seeds 3e6 + i)."""
    deck = load_deck("padrao")
    ix = CompiledDeck(deck)
    fd = FastDeck(ix)
    play = ckernel.play_matches if ckernel.available() else kernel.play_matches
    by_card = {e.card_id: e for e in small.effects}
    for card_id in ("sau-02", "pol-01", ix.card_ids[-1] if ix.playable[-1] else "eco-01"):
        e = by_card[card_id]
        seeds = range(3_000_000, 3_000_000 + e.matches)
        without = play(without_card(fd, ix.card_index[card_id]), seeds, draw="keyed")
        whole = play(fd, seeds, draw="keyed")
        want = paired_difference(without.catastrophe, whole.catastrophe)
        assert e.diff_pp == pytest.approx(tuple(100 * x for x in want))
        assert e.catastrophe_pct == pytest.approx(100 * without.catastrophes / e.matches)
        for m, ident in enumerate(ix.meter_ids):
            mean = (without.end_sum[m] - whole.end_sum[m]) / e.matches
            assert e.meters[ident][0] == pytest.approx(mean)
    ranked = [abs(e.diff_pp[0]) for e in small.effects]
    assert ranked == sorted(ranked, reverse=True)
    assert small.baseline.tally.catastrophe == play(
        fd, range(3_000_000, 3_000_000 + small.baseline.tally.matches), draw="keyed").catastrophe


def test_flags_are_benjamini_hochberg_over_every_card(small):
    qs = benjamini_hochberg([e.p_value for e in small.effects])
    assert [e.q_value for e in small.effects] == pytest.approx(qs)
    assert [e.flagged for e in small.effects] == [q <= small.fdr for q in qs]
    for e in small.effects:
        mean, lo, hi = e.diff_pp
        assert e.p_value == pytest.approx(two_sided_p(mean, (hi - lo) / 2 / Z95), rel=1e-6) \
            or e.discordant == 0
        if e.flagged:  # a flagged card's own interval excludes 0, and its sentence says how
            assert lo > 0 or hi < 0
            assert e.verdict().startswith("Without this card catastrophe")
        else:
            assert e.verdict().startswith(("This card's effect cannot be told from chance",
                                           "No effect seen"))
            # An interval that leaves 0 out is not called "what the draw alone produces" (the
            # panel showed -1.77 to -0.23 beside that sentence; QA pass 15): it says why.
            if e.discordant:
                assert ("which the draw alone produces" in e.verdict()) == (lo <= 0 <= hi)


def test_the_figures_do_not_depend_on_workers_or_chunks(small):
    deck = load_deck("padrao")
    two = run_per_card(deck, seed=3, jobs=2, chunk=700, **SMALL)
    assert two.effects == small.effects and two.rounds == small.rounds
    plan = PerCardPlan(deck, seed=3, chunk=333, **SMALL)
    from sorteio.sim.sweep import run_chunk

    json_deck = deck.model_dump_json()
    while not plan.finished:
        for item in reversed(plan.work()):  # any completion order
            s, start, count = item
            plan.add(item, run_chunk(json_deck, plan.scenarios[s].params, "random", 3, start,
                                     count, None, plan.scenarios[s].without,
                                     **plan.chunk_options(item)))
        plan.end_round()
    assert plan.result().effects == small.effects


def test_a_bad_study_is_refused():
    from sorteio.sim.spec import SweepError

    deck = load_deck("curto")
    for kwargs in ({"half_width_pp": -1}, {"half_width_pp": math.nan}, {"max_matches": 0},
                   {"policy": "lazy"}, {"fdr": 1.5}, {"max_matches": 10**7}):
        with pytest.raises(SweepError):
            PerCardPlan(deck, **kwargs)


# -- the answer holds ------------------------------------------------------------------------------


@pytest.mark.skipif(not ckernel.available(), reason="~9 M matches: the compiled kernel's job")
def test_two_seeds_agree_on_padrao_at_the_stated_precision():
    """Seeds 1 and 2, default precision (±0.07 points per card, keyed draw) and player (random):
    the effect estimates correlate strongly and the two seeds flag nearly the same cards.

    Bounds, from the distribution of this study: a Monte Carlo of it from the measured effects
    (``bench_percard.py --agreement``, ``monte_carlo``: 400 pairs of studies whose true effects
    are the two seeds' mean estimates shrunk to the true spread, each estimate with normal noise
    of its card's measured standard error, flags by Benjamini-Hochberg at 5%) gives Pearson
    0.982 (1st percentile 0.974), Spearman 0.942 (1st percentile 0.909) and Jaccard 0.78 (10th
    percentile 0.72, 1st 0.67). The bounds: Pearson >= 0.97 and Spearman >= 0.90 (below the 1st
    percentiles), Jaccard >= 0.72 (the 10th percentile, as chance near the detection line
    allows). Seeds 1 and 2 give 0.982, 0.947 and 0.81 (59 and 55 cards flagged, 51 in common).
    A card flagged by both seeds has the same sign in both; every card reaches the precision
    (the cap is 400,000). The same seeds at a fixed 3,000 matches per card fail these bounds
    (Pearson 0.64 measured; expected ~0.55 from the noise, se ≈ 0.22 points, against the
    cards' spread): the test can fail.
    """
    deck = load_deck("padrao")
    runs = [run_per_card(deck, seed=s) for s in (1, 2)]
    assert all(r.half_width_pp == DEFAULT_HALF_WIDTH_PP == 0.07 and r.policy == "random"
               for r in runs)
    est = [{e.card_id: e.diff_pp[0] for e in r.effects} for r in runs]
    cards = sorted(est[0])
    a, b = [est[0][c] for c in cards], [est[1][c] for c in cards]
    flagged = [{e.card_id for e in r.flagged} for r in runs]
    assert pearson(a, b) >= 0.97
    assert spearman(a, b) >= 0.90
    assert jaccard(*flagged) >= 0.72
    assert all(est[0][c] * est[1][c] > 0 for c in flagged[0] & flagged[1])
    assert all(e.precise for r in runs for e in r.effects)
    old = [run_per_card(deck, seed=s, first=3000, max_matches=3000) for s in (1, 2)]
    est = [{e.card_id: e.diff_pp[0] for e in r.effects} for r in old]
    assert pearson([est[0][c] for c in cards], [est[1][c] for c in cards]) < 0.9


def _fake_tally(n_cards, n_meters, count, rate, rng):
    from sorteio.sim.kernel import Tally

    t = Tally(n_cards, n_meters)
    t.matches = count
    t.catastrophe = bytearray(int(rng.random() < rate) for _ in range(count))
    t.catastrophes = sum(t.catastrophe)
    t.end_meters = bytearray(n_meters * count)
    # every card picked in every match: the keyed study replays each card's whole chunk
    t.picked = bytearray(b"\xff" * (8 * (n_cards // 64 + 1) * count))
    return t


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32), st.floats(0.3, 3.0), st.integers(500, 6000))
def test_the_plan_always_plays_forward_to_every_target(seed, precision, cap):
    """The planner alone, fed chunks of made-up outcomes (each card its own catastrophe rate,
    0-30%): every chunk plays at least one new match, the baseline never falls behind a card,
    and the study ends with every card precise or at the cap."""
    deck = load_deck("curto")
    rng = random.Random(seed)
    plan = PerCardPlan(deck, half_width_pp=precision, max_matches=cap, first=400, chunk=350)
    rates = [0.1] + [rng.random() * 0.3 for _ in plan.scenarios[1:]]
    n_cards, n_meters = len(plan.index.card_ids), len(plan.index.meter_ids)
    while not plan.finished:
        for item in plan.work():
            s, start, count = item
            assert count > 0 and start == plan.cards[s].played + sum(
                t.matches for t in plan.cards[s].pieces.values())
            plan.add(item, _fake_tally(n_cards, n_meters, count, rates[s], rng))
        plan.end_round()
        assert plan.base.played >= max(c.played for c in plan.cards[1:])
    for e in plan.result().effects:
        half = (e.diff_pp[2] - e.diff_pp[1]) / 2
        assert (e.precise and half <= precision + 1e-9) or e.matches == cap


def test_a_planted_harmful_card_is_flagged_by_both_seeds():
    """Known truth: padrao with one card made ruinous (both options take 25 from Caixa). Without
    it the match ends in catastrophe ~4-5 points less often (baseline ~12%), so two seeds, even
    at a fixed 2,000 matches per card (interval ±1.7 points), both flag it, first, with Δ < 0,
    and the sentence says it puts the mandate at risk."""
    data = json.loads(load_deck("padrao").model_dump_json())
    card = next(c for c in data["cartas"] if c["id"] == "eco-05")
    for option in card["opcoes"]:
        option["efeitos"] = {"caixa": -25}
    deck = Deck.model_validate(data)
    for seed in (1, 2):
        result = run_per_card(deck, seed=seed, first=2000, max_matches=2000)
        top = result.effects[0]
        assert top.card_id == "eco-05" and top.flagged and top.diff_pp[2] < 0, top
        assert "puts the mandate at risk" in top.verdict()


@pytest.mark.usefixtures("both_selects")
def test_replaying_only_the_picked_matches_gives_the_figures_of_every_pair(monkeypatch):
    """The keyed study plays a card's match only where the baseline picked the card (the other
    matches are the baseline's, tests/test_keyed.py); every figure equals the study that plays
    every pair, on padrao at ±1 point, with far fewer matches simulated."""
    deck = load_deck("padrao")
    fast = run_per_card(deck, seed=4, half_width_pp=1.0, jobs=1)
    original = PerCardPlan.__init__

    def every_pair(self, *args, **kwargs):
        original(self, *args, **kwargs)
        self.replay_only = False
        self._awaiting_cards = False
        self._plan_work()

    monkeypatch.setattr(PerCardPlan, "__init__", every_pair)
    full = run_per_card(deck, seed=4, half_width_pp=1.0, jobs=1)
    assert fast.effects == full.effects and fast.matches_played == full.matches_played
    assert full.matches_simulated == full.matches_played
    assert fast.matches_simulated < full.matches_played / 2
