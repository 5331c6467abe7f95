"""The compiled kernel (``sim/_ckernel.c``) against the oracle, beyond
tests/test_kernel_differential.py.

``test_kernel_differential.py`` runs every kernel differential test on both kernels; here: the RNG
stream itself
(CPython's MT19937 seeding and ``getrandbits`` for k <= 32 and k > 32, ``Rng.below``), decks far
larger than the hypothesis ones (500+ cards, 100+ meters), cards with 1 to 5 options, how the
kernel is chosen (``SORTEIO_KERNEL``) and that ``sorteio simulate`` gives the same numbers and says
which kernel ran.
"""

import json
import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sorteio.compiled import CompiledDeck
from sorteio.deck import Deck, Parameters
from sorteio.errors import SorteioError
from sorteio.rng import Rng
from sorteio.sim import ckernel, kernel, kernels
from sorteio.sim.masks import FastDeck
from sorteio.synthetic import synthetic_deck
from test_kernel_differential import _kernel, _oracle, _oracle_tally, both_selects  # noqa: F401

pytestmark = pytest.mark.usefixtures("both_selects")  # pdep and portable select, every test
MUST_BUILD = bool(os.environ.get("CI") or os.environ.get("SORTEIO_REQUIRE_CKERNEL"))


@pytest.fixture
def c_kernel():
    if not ckernel.available():
        message = f"compiled kernel not available: {ckernel.unavailable_reason()}"
        if MUST_BUILD:
            pytest.fail(message)
        pytest.skip(message)
    return ckernel._ckernel


# -- the RNG, bit for bit ----------------------------------------------------------------------

SEEDS = [0, 1, 7, 0x5EED, 2**31 - 1, 2**32 - 1, 2**32, 2**40 + 3, 2**63 - 1, 2**64 + 5,
         2**200 + 12345, 3**500]  # one to many 32-bit words in init_by_array


@pytest.mark.parametrize("seed", SEEDS)
def test_mt19937_seeding_and_getrandbits_equal_cpython(c_kernel, seed):
    # 1-32 bits take the top bits of one word; 33-64 fill two words, least significant first.
    ks = [1, 2, 3, 5, 8, 13, 31, 32, 33, 40, 63, 64] * 120  # > 624 words: a new generation
    r = random.Random(seed)
    assert c_kernel.getrandbits(seed, ks) == [r.getrandbits(k) for k in ks]


@given(st.integers(0, 2**70), st.lists(st.integers(1, 2**64 - 1), min_size=1, max_size=300))
@settings(max_examples=60, deadline=None)
def test_below_equals_rng_below(seed, ns):
    if not ckernel.available():
        pytest.skip("compiled kernel not available")
    rng = Rng(seed)
    assert ckernel._ckernel.below(seed, ns) == [rng.below(n) for n in ns]


def test_generators_seeded_32_at_a_time_equal_the_oracle_in_every_lane(c_kernel):
    """The kernel seeds 32 generators side by side (16 matches' engine and player, or 32 engines)
    and regenerates and tempers their first 128 words together; a call of 70 matches mixing one-,
    two- and many-word seeds fills two and a half batches with keys of every length in the same
    batch. Every match equals the oracle's (`_oracle`: engine.Engine and match.make_policy)."""
    from sorteio.loader import load_deck
    deck = load_deck("padrao")
    seeds = [s for s in SEEDS] + list(range(2**32 - 20, 2**32 + 20)) + list(range(100, 118))
    assert len(seeds) == 70
    for policy in ("random", "protect"):
        want = [_oracle(deck, s, policy) for s in seeds]
        assert _kernel(ckernel.play_matches, deck, seeds, policy) == want, policy


# -- big decks and odd option counts -------------------------------------------------------------

def _with_option_counts(deck: Deck, seed: int) -> Deck:
    """``deck`` with cards of 1 to 5 options (synthetic decks have 2): Fisher-Yates over more
    than two sides, and the random player's pick over 1..5."""
    rng = random.Random(seed)
    data = deck.model_dump(mode="json")
    for card in data["cartas"]:
        n = rng.randint(1, 5)
        card["opcoes"] = [dict(card["opcoes"][i % 2], texto=f"opção {i}") for i in range(n)]
    return Deck.model_validate(data)


def test_kernels_equal_the_oracle_on_a_500_card_100_meter_deck(c_kernel):
    deck = synthetic_deck(cards=520, modes=40, actors=12, meters=110, seed=5)
    deck = deck.model_copy(update={"parametros": Parameters(limite_emergencia=24,
                                                            limite_medidor=35)})
    seeds = list(range(6))
    for policy in ("random", "protect", "lookahead"):
        want = [_oracle(deck, s, policy) for s in seeds]
        assert _kernel(ckernel.play_matches, deck, seeds, policy) == want
        assert _kernel(kernel.play_matches, deck, seeds, policy) == want


def test_kernels_equal_the_oracle_with_1_to_5_options(c_kernel):
    for i in range(12):
        deck = _with_option_counts(synthetic_deck(cards=30 + 5 * i, modes=1 + i, actors=i % 5,
                                                  seed=i), i)
        seeds = [i, 10 * i + 1]
        for policy in ("random", "protect", "lookahead"):
            want = [_oracle(deck, s, policy) for s in seeds]
            assert _kernel(ckernel.play_matches, deck, seeds, policy) == want, (i, policy)
            assert _kernel(kernel.play_matches, deck, seeds, policy) == want, (i, policy)


def test_compiled_tally_equals_oracle_tally_on_a_big_deck(c_kernel):
    deck = synthetic_deck(cards=600, modes=25, actors=8, meters=8, seed=2)
    seeds = range(2**33, 2**33 + 8)  # two-word seeds
    got = ckernel.play_matches(FastDeck(CompiledDeck(deck)), seeds, "random")
    assert vars(got) == vars(_oracle_tally(deck, seeds, "random"))


def test_a_deck_compiled_under_other_parameters_is_its_own(c_kernel):
    # with_parameters copies share one cache of C tables: each parameter set gets its own.
    fd = FastDeck(CompiledDeck(synthetic_deck(cards=40, seed=1)))
    params = dict(cartas_por_turno=6, teto_obrigatorias=2, limite_medidor=35,
                  limite_emergencia=20, limite_por_modo=2)
    other = fd.with_parameters(params)
    a = ckernel.play_matches(other, range(50))
    b = kernel.play_matches(other, range(50))
    assert vars(a) == vars(b)
    assert vars(ckernel.play_matches(fd, range(50))) == vars(kernel.play_matches(fd, range(50)))


# -- choosing the kernel ---------------------------------------------------------------------------

def test_kernel_choice_follows_the_environment(monkeypatch):
    monkeypatch.setenv(kernels.KERNEL_ENV, "python")
    assert kernels.kernel_name() == "python"
    monkeypatch.setenv(kernels.KERNEL_ENV, "fortran")
    with pytest.raises(SorteioError, match="SORTEIO_KERNEL='fortran'"):
        kernels.kernel_name()
    monkeypatch.delenv(kernels.KERNEL_ENV)
    assert kernels.kernel_name() == ("c" if ckernel.available() else "python")


def test_kernel_c_is_an_error_when_not_built(monkeypatch):
    monkeypatch.setattr(ckernel, "_ckernel", None)
    monkeypatch.setattr(ckernel, "_import_error", "No module named '_ckernel'", raising=False)
    assert not ckernel.available()
    assert kernels.kernel_name("auto") == "python"  # the fallback
    with pytest.raises(SorteioError, match="not available"):
        kernels.kernel_name("c")


def test_a_stale_build_is_not_used(monkeypatch, tmp_path, c_kernel):
    # In a checkout whose _ckernel.c changed since the build, the old binary must not run.
    changed = tmp_path / "_ckernel.c"
    changed.write_bytes(ckernel.SOURCE.read_bytes() + b"\n/* edited */\n")
    monkeypatch.setattr(ckernel, "SOURCE", changed)
    assert not ckernel.available()
    assert "pip install -e ." in ckernel.unavailable_reason()


def _simulate(env_kernel):
    env = dict(os.environ, SORTEIO_KERNEL=env_kernel)
    proc = subprocess.run(
        [sys.executable, "-m", "sorteio.cli", "simulate", "--matches", "400", "--jobs", "1",
         "--param", "teto_obrigatorias=2..4", "--json"],
        capture_output=True, text=True, encoding="utf-8", timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    data.pop("seconds")
    return data


def test_simulate_gives_the_same_numbers_with_either_kernel_and_says_which(c_kernel, pt_br):
    c, py = _simulate("c"), _simulate("python")
    assert c.pop("kernel") == "c" and py.pop("kernel") == "python"
    assert c == py
    env = dict(os.environ, SORTEIO_KERNEL="python", COLUMNS="200")
    proc = subprocess.run([sys.executable, "-m", "sorteio.cli", "simulate", "--matches", "50"],
                          capture_output=True, text=True, encoding="utf-8", timeout=300, env=env)
    assert "kernel Python (forçado por SORTEIO_KERNEL=python)" in proc.stdout


def test_the_kernels_know_every_player_of_the_oracle():
    from sorteio.match import POLICIES

    assert tuple(POLICIES) == kernel.POLICIES
    assert set(ckernel._POLICY_CODES) == set(POLICIES)


def test_lookahead_sees_the_next_card_where_protect_does_not():
    """Meters a=50, b=50. Card X: option 0 takes a to 20, option 1 takes b to 15. The only other
    card, Y, takes a down 25 whatever is chosen. protect keeps the higher floor now (option 0,
    then Y zeroes a); lookahead weighs Y's best reply (a at 0 after option 0, 15 after option 1)
    and picks option 1. The kernels agree with the oracle on both players."""
    from sorteio.engine import Engine
    from sorteio.match import make_policy
    from sorteio.synthetic import LEVELS

    def card(ident, options):
        return {"id": ident, "titulo": ident, "modo": "m",
                "opcoes": [{"texto": "o", "efeitos": e} for e in options]}

    deck = Deck.model_validate({
        "medidores": [{"id": "a", "nome": "a", "inicial": 50},
                      {"id": "b", "nome": "b", "inicial": 50}],
        "niveis": LEVELS,
        "cartas": [card("X", [{"a": -30}, {"b": -35}]), card("Y", [{"a": -25}, {"a": -25}])],
    })
    for seed in range(50):
        engine = Engine(deck, seed)
        engine.start_turn()
        draw = engine.draw()
        if draw.card_id == "X":
            break
    picks = {p: make_policy(p, seed)(engine, draw) for p in ("protect", "lookahead")}
    assert picks == {"protect": 0, "lookahead": 1}
    for name in ("protect", "lookahead"):
        want = _oracle(deck, seed, name)
        assert want[0][0][0] == "X" and want[0][0][2] == picks[name]
        assert _kernel(kernel.play_matches, deck, [seed], name) == [want]
        if ckernel.available():
            assert _kernel(ckernel.play_matches, deck, [seed], name) == [want]


def test_kept_ending_meters_are_each_matchs_in_seed_order_on_both_kernels(c_kernel):
    deck = synthetic_deck(cards=50, modes=6, actors=3, meters=9, seed=4)
    fd = FastDeck(CompiledDeck(deck))
    trace: list = []
    kernel.play_matches(fd, range(40), "random", trace=trace)
    want = b"".join(bytes(meters) for _, (_, _, meters, _) in trace)
    for play in (kernel.play_matches, ckernel.play_matches):
        whole = play(fd, range(40), "random", keep_meters=True)
        assert bytes(whole.end_meters) == want
        parts = play(fd, range(15), "random", keep_meters=True)
        parts.merge(play(fd, range(15, 40), "random", keep_meters=True))
        assert vars(parts) == vars(whole)
        assert play(fd, range(5)).end_meters == bytearray()  # not kept unless asked
