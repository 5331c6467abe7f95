"""Differential tests: the simulation kernels (``sim/kernel.py``, ``sim/_ckernel.c``) against the
oracle (``sorteio.engine``).

Both ``play_matches`` kernels must draw exactly the cards ``Engine`` draws for the
same seed — same obligations (§3.3), same random picks (§3.4), same option order (GDD 05 §3.4),
same choices, same ending (§5) — over many random decks, parameters (§7), seeds, both player
policies and events that move meters and moods (GDD 08).
"""

import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sorteio.compiled import CompiledDeck
from sorteio.deck import Parameters
from sorteio.engine import Engine
from sorteio.loader import load_deck
from sorteio.match import MatchObserver, play_match
from sorteio.results import CATASTROPHE
from sorteio.sim import ckernel, kernel
from sorteio.sim.kernel import Tally
from sorteio.sim.masks import FastDeck, bits_of, kth_bit, popcount
from sorteio.synthetic import synthetic_deck
from strategies import decks, overlapping


# Every kernel test runs on both kernels: the pure-Python one (kernel.py) and the compiled one
# (ckernel.py + _ckernel.c). Where sorteio was built without a C compiler the compiled runs are
# skipped, except in CI (CI=true) or with SORTEIO_REQUIRE_CKERNEL=1, where they fail: the build
# there must produce it.
# The compiled kernel runs twice: with pdep where it is fast (this CPU permitting), and with the
# portable select every CPU has (c-portable); both must play the oracle's matches.
def _portable(play):
    def run(*args, **kwargs):
        old = ckernel.set_portable(True)
        try:
            return play(*args, **kwargs)
        finally:
            ckernel.set_portable(old)

    return run


KERNELS = {"python": kernel.play_matches, "c": ckernel.play_matches,
           "c-portable": _portable(ckernel.play_matches)}
MUST_BUILD = bool(os.environ.get("CI") or os.environ.get("SORTEIO_REQUIRE_CKERNEL"))


@pytest.fixture(params=["pdep", "portable"])
def both_selects(request):
    """The whole test with the compiled kernel's pdep select (where fast), then its portable one
    (for modules that call ckernel directly: pytestmark = usefixtures("both_selects"))."""
    old = ckernel.set_portable(request.param == "portable")
    yield request.param
    ckernel.set_portable(old)


@pytest.fixture(params=list(KERNELS))
def play_matches(request):
    if request.param.startswith("c") and not ckernel.available():
        message = f"compiled kernel not available: {ckernel.unavailable_reason()}"
        if MUST_BUILD:
            pytest.fail(message)
        pytest.skip(message)
    return KERNELS[request.param]


class _Recorder(MatchObserver):
    def __init__(self) -> None:
        self.steps: list = []

    def card_played(self, step) -> None:
        draw = step.draw
        self.steps.append((draw.card_id, list(draw.option_order), step.choice.option,
                           draw.reason["kind"] == "mandatory"))


def _oracle(deck, seed, policy, cls=Engine):
    rec = _Recorder()
    end = play_match(deck, seed, policy, observer=rec, engine=cls(deck, seed))
    return rec.steps, (end.reason, end.year, list(end.meters.values()), end.zeroed)


def _kernel(play_matches, deck, seeds, policy):
    ix = CompiledDeck(deck)
    trace: list = []
    play_matches(FastDeck(ix), seeds, policy, trace=trace)
    out = []
    for steps, (reason, year, meters, zeroed) in trace:
        out.append(([(ix.card_ids[c], order, option, mand) for c, order, option, mand in steps],
                    (reason, year, meters, None if zeroed < 0 else ix.meter_ids[zeroed])))
    return out


# -- bit helpers --------------------------------------------------------------------------------

@given(st.integers(1, 2**600))
def test_kth_bit_is_the_kth_candidate_in_deck_order(x):
    positions = [i for i in range(x.bit_length()) if x >> i & 1]
    assert bits_of(x) == positions
    assert popcount(x) == len(positions)
    for k in {0, len(positions) // 2, len(positions) - 1}:
        assert kth_bit(x, k) == positions[k]


# -- the kernel ---------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["padrao", "curto"])
@pytest.mark.parametrize("policy", ["random", "protect", "lookahead"])
def test_kernel_matches_the_oracle_on_shipped_decks(play_matches, name, policy):
    deck = load_deck(name)
    seeds = list(range(40))
    got = _kernel(play_matches, deck, seeds, policy)
    for seed, kernel_match in zip(seeds, got):
        assert kernel_match == _oracle(deck, seed, policy), f"seed {seed}"


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(decks(), st.integers(0, 2**40), st.sampled_from(["random", "protect", "lookahead"]))
def test_kernel_matches_the_oracle_on_random_decks(play_matches, deck, seed, policy):
    seeds = [seed, seed + 1, seed + 2]
    for s, kernel_match in zip(seeds, _kernel(play_matches, deck, seeds, policy)):
        assert kernel_match == _oracle(deck, s, policy)


def test_differential_runs_reach_the_rare_rules():
    """The random decks above do exercise emergencies (§3.3.1), attacks (§3.3.2), short turns and
    catastrophes (§5): otherwise the equality would prove little. Fixed seeds, counted here."""
    reasons = set()
    emergencies = short = 0
    rng = random.Random(7)
    for i in range(30):
        deck = synthetic_deck(cards=rng.randint(5, 60), modes=rng.randint(1, 10),
                              actors=rng.randint(1, 5), seed=i)
        deck = deck.model_copy(update={"parametros": Parameters(limite_emergencia=24)})
        for seed in range(5):
            engine = Engine(deck, seed)
            play_match(deck, seed, "random", engine=engine)
            reasons.add(engine.ending.reason)
            emergencies += sum(engine.emergency_spent)
            short += engine.ending.short
    assert reasons == {"catastrophe", "end_of_mandate"}
    assert emergencies > 0 and short > 0


def test_differential_runs_reach_cards_serving_two_obligations_of_every_pair_of_kinds(
        play_matches):
    """§5 "Mesma carta atende duas obrigações — conta uma vez; entra a próxima candidata": on
    ``overlapping`` decks (the generator ``decks()`` uses), fixed seeds, the kernels
    equal the oracle in turns where it matters: a card reserved for an earlier obligation serves a
    later one while the cap T is full, so counting the later one once lets the next candidate in.
    Every pair of kinds (in list order) happens; T = 2 and few cards make it frequent."""
    binding = {}
    rng = random.Random(10)

    class Turns(MatchObserver):
        def turn_started(self, turn):
            em = sum(ob.kind == "emergency" for ob in turn.mandatory)
            room = max(0, 2 - em)
            if room and len(turn.mandatory) - em == room:
                for ob in turn.mandatory:
                    for kind, _ in ob.merged:
                        binding[ob.kind, kind] = binding.get((ob.kind, kind), 0) + 1

    params = Parameters(teto_obrigatorias=2, limite_medidor=35, limite_emergencia=24)
    for i in range(60):
        deck = synthetic_deck(cards=rng.randint(0, 20), modes=rng.randint(2, 10),
                              actors=rng.randint(1, 5), seed=i)
        deck = overlapping(deck, i, 0.6).model_copy(update={"parametros": params})
        seeds = [0, 1, 2]
        got = _kernel(play_matches, deck, seeds, "random")
        for seed in seeds:
            play_match(deck, seed, "random", observer=Turns())
            want = _oracle(deck, seed, "random")
            assert got[seed] == want, (i, seed)
    for pair in [("emergency", "emergency"), ("emergency", "actor"), ("emergency", "meter"),
                 ("actor", "meter"), ("meter", "meter")]:
        assert binding.get(pair, 0) > 0, (pair, binding)


def _oracle_tally(deck, seeds, policy) -> Tally:
    """The ``Tally`` the kernel should produce, built from ``Engine`` + ``play_match``."""
    ix = CompiledDeck(deck)
    t = Tally(len(ix.card_ids), len(ix.meter_ids))

    class Obs(MatchObserver):
        def turn_started(self, turn):
            t.turns += 1

        def card_played(self, step):
            c = ix.card_index[step.draw.card_id]
            t.card_draws[c] += 1
            if step.draw.reason["kind"] == "mandatory":
                t.mandatory += 1
                t.card_mandatory[c] += 1

        def turn_ended(self, end):
            t.turns_closed += 1
            t.short_turns += end.short
            t.close_n[end.year] += 1
            for m, v in enumerate(end.meters.values()):
                t.close_sum[end.year][m] += v
                t.close_sq[end.year][m] += v * v

    for seed in seeds:
        end = play_match(deck, seed, policy, observer=Obs())
        t.matches += 1
        t.cards_played += end.cards_played
        t.end_year[end.year] += 1
        cat = end.reason == CATASTROPHE
        t.catastrophes += cat
        t.catastrophe.append(int(cat))
        if cat:
            t.zeroed[ix.meter_index[end.zeroed]] += 1
        for m, v in enumerate(end.meters.values()):
            t.end_sum[m] += v
            t.end_sq[m] += v * v
    return t


@pytest.mark.parametrize("policy", ["random", "protect", "lookahead"])
def test_kernel_tally_equals_oracle_tally(play_matches, policy):
    deck = synthetic_deck(cards=40, modes=6, actors=4, seed=3)
    seeds = range(1000, 1060)
    got = play_matches(FastDeck(CompiledDeck(deck)), seeds, policy)
    assert vars(got) == vars(_oracle_tally(deck, seeds, policy))


def test_tallies_merge_like_one_run(play_matches):
    fd = FastDeck(CompiledDeck(load_deck("curto")))
    whole = play_matches(fd, range(30))
    parts = play_matches(fd, range(12))
    parts.merge(play_matches(fd, range(12, 30)))
    assert vars(parts) == vars(whole)


def test_kernel_rejects_unknown_policy(play_matches):
    with pytest.raises(ValueError, match="unknown policy"):
        play_matches(FastDeck(CompiledDeck(load_deck("curto"))), [0], "greedy")


def test_kernel_matches_the_oracle_when_reserved_cards_lapse(play_matches):
    """§5 "Obrigatória deixa de ser elegível antes de aparecer": an actor changes level mid-turn,
    its reserved card lapses and the slot goes to the random draw, so the modes of the turn are
    recounted. Fixed decks and seeds where that happens, with both mode limits (§7)."""
    rng = random.Random(1)
    lapsed = {1: 0, 2: 0}

    class Lapses(MatchObserver):
        def card_played(self, step):
            replaces = step.draw.reason.get("replaces")
            if replaces and replaces["card_id"]:
                lapsed[limit] += 1

    for i in range(150):
        deck = synthetic_deck(cards=rng.randint(0, 70), modes=rng.randint(1, 12),
                              actors=rng.randint(0, 5), seed=i)
        params = Parameters(cartas_por_turno=rng.randint(6, 8),
                            teto_obrigatorias=rng.randint(2, 4),
                            limite_medidor=rng.randint(25, 35),
                            limite_emergencia=rng.randint(0, 24),
                            limite_por_modo=rng.randint(1, 2))
        deck = deck.model_copy(update={"parametros": params})
        limit = params.limite_por_modo
        got = _kernel(play_matches, deck, [0, 1, 2], "random")
        for seed in range(3):
            play_match(deck, seed, "random", observer=Lapses())
            assert got[seed] == _oracle(deck, seed, "random"), (i, seed)
    assert lapsed[1] > 0 and lapsed[2] > 0
