"""``sorteio simulate --per-card``: each card left out, paired with the whole deck by seed."""

import json
import statistics
import subprocess
import sys

import pytest

from sorteio.compiled import CompiledDeck
from sorteio.deck import Deck, Parameters
from sorteio.loader import load_deck
from sorteio.sim import kernel
from sorteio.sim.masks import FastDeck
from sorteio.sim.percard import card_effects, card_scenarios, without_card
from sorteio.sim.stats import paired_difference
from sorteio.sim.sweep import run_sweep
from sorteio.synthetic import synthetic_deck
from test_kernel_differential import KERNELS, _oracle


def _removed(deck: Deck, card_id: str) -> Deck:
    data = deck.model_dump(mode="json")
    data["cartas"] = [c for c in data["cartas"] if c["id"] != card_id]
    return Deck.model_validate(data)


@pytest.mark.parametrize("name", sorted(KERNELS))
def test_a_card_left_out_plays_like_the_deck_without_it(name):
    """The masks with the card's bit cleared draw exactly what the oracle draws on the deck with
    the card deleted (card, option order, choice, ending), both kernels, shipped and synthetic
    decks, common and actor cards."""
    play = KERNELS[name]
    if name == "c":
        from sorteio.sim import ckernel

        if not ckernel.available():
            pytest.skip(ckernel.unavailable_reason())
    params = Parameters(limite_emergencia=24, limite_medidor=35, teto_obrigatorias=2)
    decks = [load_deck("padrao"),
             synthetic_deck(cards=25, modes=4, actors=3, seed=3).model_copy(
                 update={"parametros": params})]
    for deck in decks:
        ix = CompiledDeck(deck)
        fd = FastDeck(ix)
        playable = [c for c in range(len(ix.card_ids)) if ix.playable[c]]
        for c in playable[::7] + [i for i in playable if ix.actor[i] >= 0][:3]:
            smaller = _removed(deck, ix.card_ids[c])
            trace: list = []
            play(without_card(fd, c), range(4), "random", trace=trace)
            for seed, (steps, (reason, year, meters, zeroed)) in enumerate(trace):
                got = ([(ix.card_ids[k], order, opt, mand) for k, order, opt, mand in steps],
                       (reason, year, meters, None if zeroed < 0 else ix.meter_ids[zeroed]))
                assert got == _oracle(smaller, seed, "random"), (ix.card_ids[c], seed)


def test_card_scenarios_are_the_baseline_then_every_playable_card():
    deck = load_deck("curto")
    scenarios = card_scenarios(deck)
    assert scenarios[0].baseline and scenarios[0].without is None
    assert [s.without for s in scenarios[1:]] == [c.id for c in deck.cartas if c.playable]
    assert all(s.params == deck.parametros.model_dump() for s in scenarios)


def test_effects_are_paired_and_ranked():
    deck = load_deck("curto")
    result = run_sweep(deck, {}, matches=300, seed=2, jobs=1, scenarios=card_scenarios(deck),
                       keep_meters=True)
    effects = card_effects(result)
    assert len(effects) == len(result.scenarios) - 1 == sum(c.playable for c in deck.cartas)
    magnitudes = [abs(e.diff_pp[0]) for e in effects]
    assert magnitudes == sorted(magnitudes, reverse=True)
    base = result.baseline
    by_card = {r.scenario.without: r for r in result.scenarios[1:]}
    for e in effects:
        r = by_card[e.card_id]
        want = paired_difference(r.tally.catastrophe, base.tally.catastrophe)
        assert e.diff_pp == pytest.approx(tuple(100 * x for x in want))
        assert e.diff_pp[1] <= e.diff_pp[0] <= e.diff_pp[2]
        k = len(base.meter_ids)
        for i, (m, (d, lo, hi)) in enumerate(e.meters.items()):
            assert d == pytest.approx(r.meter_stats()[m][0] - base.meter_stats()[m][0])
            # paired: the interval of the mean per-match difference (same seeds)
            diffs = [x - y for x, y in zip(r.tally.end_meters[i::k], base.tally.end_meters[i::k])]
            sd = statistics.stdev(diffs)
            assert hi - lo == pytest.approx(2 * 1.959963984540054 * sd / len(diffs) ** 0.5)


def test_the_baseline_is_the_whole_deck_on_the_same_seeds():
    deck = load_deck("curto")
    fd = FastDeck(CompiledDeck(deck))
    result = run_sweep(deck, {}, matches=100, jobs=1, scenarios=card_scenarios(deck)[:2])
    assert vars(result.baseline.tally) == vars(kernel.play_matches(fd, range(100)))


def _cli(*args, code=0):
    proc = subprocess.run([sys.executable, "-m", "sorteio.cli", "simulate", *args],
                          capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == code, (proc.stdout, proc.stderr)
    return proc


def test_cli_per_card_json_and_table():
    data = json.loads(_cli("--deck", "curto", "--per-card", "--matches", "200", "--json").stdout)
    assert data["cards_total"] == len(data["cards"]) == 22
    assert data["kernel"] in ("c", "python")
    first = data["cards"][0]
    assert {"card", "diff_pp", "diff_ci95_low_pp", "diff_ci95_high_pp", "end_caixa_diff"} <= set(
        first)
    text = _cli("--deck", "curto", "--per-card", "--matches", "100").stdout
    assert "cartas por efeito na catástrofe" in text and "baseline (baralho inteiro)" in text


def test_cli_per_card_refuses_param():
    proc = _cli("--per-card", "--param", "teto_obrigatorias=2..4", code=2)
    assert "--per-card" in proc.stderr


@pytest.mark.plots
def test_cli_per_card_report_has_the_ranked_chart(tmp_path):
    _cli("--deck", "curto", "--per-card", "--matches", "100", "--out", str(tmp_path))
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 1
    assert "Cards ranked by their effect on the catastrophe rate" in page
    assert "<script" not in page and "src='http" not in page
    rows = (tmp_path / "percard.csv").read_text(encoding="utf-8").splitlines()
    assert len(rows) == 23  # header + 22 cards
