"""The §7 balancing sweep (``sorteio.sim.sweep``) and the ``sorteio simulate`` command.

Small --matches everywhere: speed is measured by benchmarks/, never here.
"""

import csv
import json
import math
import os
import random
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import pytest

from sorteio.deck import Parameters
from sorteio.loader import load_deck
from sorteio.sim import sweep as sweep_module
from sorteio.sim.simulate import simulate
from sorteio.sim.sweep import (
    SweepError,
    build_scenarios,
    default_chunk,
    paired_difference,
    parse_param,
    parse_values,
    run_sweep,
    wilson,
)
from sorteio.synthetic import synthetic_deck


def sorteio(*args, check_code=0, env=None):
    proc = subprocess.run([sys.executable, "-m", "sorteio.cli", *args], capture_output=True,
                          text=True, encoding="utf-8", timeout=300, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == check_code, (proc.returncode, proc.stdout, proc.stderr)
    return proc


# -- specification ------------------------------------------------------------------------------

@pytest.mark.parametrize("text,values", [
    ("6,7,8", [6, 7, 8]),
    ("2..4", [2, 3, 4]),
    ("25..27,30", [25, 26, 27, 30]),
    ("8,6,6", [6, 8]),
    (" 3 ", [3]),
])
def test_parse_values(text, values):
    assert parse_values(text) == values


@pytest.mark.parametrize("text", ["4..2", "x", "1..", "", "2.5"])
def test_parse_values_rejects(text):
    with pytest.raises(SweepError):
        parse_values(text)


def test_parse_param_names_the_section_7_parameters():
    assert parse_param("teto_obrigatorias=2..4") == ("teto_obrigatorias", [2, 3, 4])
    with pytest.raises(SweepError, match="unknown parameter 'teto'"):
        parse_param("teto=2")
    with pytest.raises(SweepError, match="NAME=VALUES"):
        parse_param("teto_obrigatorias")


def test_scenarios_are_the_product_with_the_baseline_first():
    deck = load_deck("padrao")
    grid = {"cartas_por_turno": [6, 7, 8], "teto_obrigatorias": [2, 3, 4],
            "limite_medidor": list(range(25, 36))}
    scenarios = build_scenarios(deck, grid)
    assert len(scenarios) == 99  # §7's study: 3 x 3 x 11, the baseline (7, 3, 30) among them
    assert scenarios[0].baseline and scenarios[0].params == deck.parametros.model_dump()
    assert [s.index for s in scenarios] == list(range(99))
    assert len({tuple(sorted(s.params.items())) for s in scenarios}) == 99
    # A grid without the deck's own parameters gets the baseline added in front.
    assert len(build_scenarios(deck, {"cartas_por_turno": [6, 8]})) == 3


def test_values_outside_the_safe_range_are_refused():
    with pytest.raises(SweepError, match=r"limite_medidor=24.*safe range"):
        build_scenarios(load_deck("padrao"), {"limite_medidor": [24, 25]})


# -- statistics ---------------------------------------------------------------------------------

def test_wilson_interval_known_values():
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(1.959964**2 / (10 + 1.959964**2), rel=1e-6)
    assert wilson(0, 500)[0] == 0.0 and wilson(500, 500)[1] == 1.0  # exact ends, no rounding
    lo, hi = wilson(50, 100)
    assert (lo + hi) / 2 == pytest.approx(0.5) and hi - lo == pytest.approx(0.1918, abs=1e-3)


def test_wilson_interval_covers_95_percent():
    """Bernoulli(0.07) samples of 300 (a §7-like catastrophe rate), 400 replications, fixed seed.
    The coverage estimate has sd sqrt(.95 x .05 / 400) = 1.09 points; 3 sd below 95% is 91.7%."""
    rng = random.Random(2026)
    p, n, reps = 0.07, 300, 400
    covered = 0
    for _ in range(reps):
        k = sum(rng.random() < p for _ in range(n))
        lo, hi = wilson(k, n)
        covered += lo <= p <= hi
    assert covered / reps >= 0.917


def test_paired_difference():
    assert paired_difference(b"\x01\x00\x00\x00", b"\x00\x00\x00\x00")[0] == 0.25
    mean, lo, hi = paired_difference(bytes([1, 0] * 50), bytes([0, 0] * 50))
    assert mean == 0.5 and lo < 0.5 < hi
    assert paired_difference(b"\x01\x01", b"\x01\x01") == (0.0, 0.0, 0.0)


@pytest.mark.parametrize("values", [(0, 1), (0, 1, 2, 255)])
def test_paired_difference_counts_like_the_per_match_loop(values):
    """The bit-operation count (0/1 outcomes) and the fallback (any other bytes) give the
    per-match loop's counts, on random outcomes of unequal lengths (the shorter one decides)."""
    rng = random.Random(16)
    for n in (0, 1, 7, 64, 3001):
        a = bytes(rng.choice(values) for _ in range(n))
        b = bytes(rng.choice(values) for _ in range(n + 3))
        up = sum(1 for x, y in zip(a, b) if x > y)
        down = sum(1 for x, y in zip(a, b) if x < y)
        mean = (up - down) / n if n else 0.0
        assert paired_difference(a, b)[0] == pytest.approx(mean)
        assert paired_difference(bytearray(a), b) == paired_difference(a, b)


# -- the sweep ----------------------------------------------------------------------------------

def _rows(result):
    return [r.row() for r in result.scenarios]


def test_sweep_equals_the_oracle_simulator():
    """Every scenario's figures are those of simulate.simulate, which plays Engine (the oracle)
    through match.play_match, on the deck with that scenario's parameters and the same seeds."""
    deck = load_deck("curto")
    result = run_sweep(deck, {"teto_obrigatorias": [2, 4], "limite_por_modo": [2]}, matches=25,
                       seed=3, policy="protect", jobs=1)
    assert len(result.scenarios) == 3
    for r in result.scenarios:
        variant = deck.model_copy(update={"parametros": Parameters(**r.scenario.params)})
        want = simulate(variant, 25, seed=3, policy="protect")
        t = r.tally
        assert t.catastrophes == want.catastrophes
        assert t.cards_played == want.cards_played
        assert t.turns == want.turns and t.short_turns == want.short_turns
        assert t.mandatory == want.mandatory_slots
        assert {c: t.card_draws[i] for i, c in enumerate(r.card_ids) if r.playable[i]} == \
            want.card_draws
        assert r.never_drawn() == want.never_drawn
        means = {m: mean for m, (mean, _sd) in r.meter_stats().items()}
        assert means == pytest.approx(want.ending_meters_mean)


def test_sweep_does_not_depend_on_executor_workers_or_chunks():
    deck = synthetic_deck(cards=50, modes=6, actors=4, seed=11)
    grid = {"cartas_por_turno": [6, 8], "limite_medidor": [25, 35]}
    inline = run_sweep(deck, grid, matches=60, seed=9, jobs=1, chunk=7)
    with ThreadPoolExecutor(3) as pool:
        threads = run_sweep(deck, grid, matches=60, seed=9, executor=pool, chunk=13)
    processes = run_sweep(deck, grid, matches=60, seed=9, jobs=2, chunk=25)
    assert _rows(inline) == _rows(threads) == _rows(processes)
    assert not inline.interrupted and len(inline.scenarios) == inline.total_scenarios == 5


def test_chunks_are_even_and_capped_per_kernel():
    """Every core (issue 16): a scenario splits into equal chunks (no 2,500 + 500), at most
    ``CHUNK_CAP`` matches each, and a sweep keeps >= 4 chunks per worker when it can."""
    assert default_chunk(99, 3000, 2, "c") == 3000  # §7: one chunk per scenario, 99 chunks
    assert default_chunk(99, 3000, 2, "python") == 1000
    assert default_chunk(1, 3000, 2, "c") == 375  # 8 chunks for 2 workers
    assert default_chunk(1, 10**6, 2, "c") == 15874  # 63 equal chunks of at most 16,000
    assert default_chunk(1, 10**6, 2, "python") == 1000
    assert default_chunk(10, 40001, 2, "c") == 13334  # 3 chunks of 13,334 / 13,334 / 13,333
    assert default_chunk(1, 1, 2) == 1


def test_own_workers_get_the_deck_once_and_chunks_carry_its_key(monkeypatch):
    """Our own pool's chunks name the deck by a 16-character key (the JSON, ~70 KB on padrao,
    went with every chunk before); a plugged-in executor still gets the JSON itself."""
    sent = []
    real = sweep_module.ProcessPoolExecutor

    class Spy(real):
        def submit(self, fn, *args, **kwargs):
            sent.append((fn, args[0]))
            return super().submit(fn, *args, **kwargs)

    monkeypatch.setattr(sweep_module, "ProcessPoolExecutor", Spy)
    deck = load_deck("curto")
    own = run_sweep(deck, {"teto_obrigatorias": [2, 4]}, matches=40, seed=5, jobs=2, chunk=10)
    assert sent and all(fn is sweep_module._run_local_chunk and len(arg) == 16
                        for fn, arg in sent)
    with ThreadPoolExecutor(2) as pool:
        submit = pool.submit
        sent.clear()
        monkeypatch.setattr(pool, "submit", lambda fn, *args: sent.append((fn, args[0])) or
                            submit(fn, *args))
        plugged = run_sweep(deck, {"teto_obrigatorias": [2, 4]}, matches=40, seed=5,
                            executor=pool, chunk=10)
    assert sent and all(fn is sweep_module.run_chunk and arg == deck.model_dump_json()
                        for fn, arg in sent)
    assert _rows(own) == _rows(plugged)


def test_the_seed_makes_the_sweep_reproducible_and_changes_it():
    deck = load_deck("curto")
    a = run_sweep(deck, {"teto_obrigatorias": [2]}, matches=30, seed=1, jobs=1)
    b = run_sweep(deck, {"teto_obrigatorias": [2]}, matches=30, seed=1, jobs=1)
    c = run_sweep(deck, {"teto_obrigatorias": [2]}, matches=30, seed=2, jobs=1)
    assert _rows(a) == _rows(b) != _rows(c)


def test_independent_seeds_agree_within_sampling_error():
    """Two seeds are two independent samples of the same rate: |r1 - r2| stays within 3 sd of a
    difference of proportions, sd = sqrt(2 p (1 - p) / n) with the pooled p."""
    deck = load_deck("padrao")
    n = 1500
    r1 = run_sweep(deck, {}, matches=n, seed=10, jobs=1).scenarios[0]
    r2 = run_sweep(deck, {}, matches=n, seed=11, jobs=1).scenarios[0]
    p = (r1.tally.catastrophes + r2.tally.catastrophes) / (2 * n)
    assert 0 < p < 1
    assert abs(r1.rate - r2.rate) <= 3 * math.sqrt(2 * p * (1 - p) / n)


def test_differences_are_paired_and_flagged_past_4_points():
    deck = load_deck("padrao")
    result = run_sweep(deck, {"cartas_por_turno": [6, 7, 8]}, matches=300, seed=0, jobs=1)
    base = result.baseline
    assert base is result.scenarios[0] and base.diff == (0.0, 0.0, 0.0) and not base.flagged
    for r in result.scenarios[1:]:
        assert r.diff[0] == pytest.approx(r.rate - base.rate)
        assert r.diff[1] <= r.diff[0] <= r.diff[2]
        assert r.flagged == (abs(r.rate - base.rate) * 100 > 4)
        row = r.row()
        assert row["flag_over_4pp"] == int(r.flagged)
        assert row["catastrophe_ci95_low_pct"] <= row["catastrophe_pct"] <= \
            row["catastrophe_ci95_high_pct"]


def test_interrupting_keeps_the_finished_scenarios():
    deck = load_deck("curto")
    finished = []

    def on_result(r):
        finished.append(r.scenario.index)
        if len(finished) == 2:
            raise KeyboardInterrupt

    result = run_sweep(deck, {"limite_medidor": [25, 26, 27, 28]}, matches=20, jobs=1, chunk=10,
                       on_result=on_result)
    assert result.interrupted and result.total_scenarios == 5
    assert [r.scenario.index for r in result.scenarios] == [0, 1]
    assert all(r.tally.matches == 20 for r in result.scenarios)


def test_progress_counts_every_match_once():
    seen = []
    run_sweep(load_deck("curto"), {"teto_obrigatorias": [2, 4]}, matches=25, jobs=1, chunk=10,
              on_progress=seen.append)
    assert seen == sorted(seen) and seen[-1] == 3 * 25


def test_bad_policy_is_refused():
    with pytest.raises(SweepError, match="unknown policy"):
        run_sweep(load_deck("curto"), {}, matches=1, policy="psychic", jobs=1)


# -- the command ----------------------------------------------------------------------------------

@pytest.mark.plots
def test_simulate_sweep_writes_csv_json_and_html(tmp_path):
    out = tmp_path / "out"
    proc = sorteio("simulate", "--deck", "curto", "--matches", "30", "--seed", "4",
                   "--param", "teto_obrigatorias=2..3", "--param", "cartas_por_turno=6,7",
                   "--out", str(out), "--jobs", "2", "--json")
    data = json.loads(proc.stdout)
    assert len(data["scenarios"]) == 4 and data["parameters"] == ["teto_obrigatorias",
                                                                  "cartas_por_turno"]
    with open(out / "sweep.csv", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["scenario"]) for r in rows] == [0, 1, 2, 3]
    assert rows[0]["baseline"] == "1" and rows[0]["diff_vs_baseline_pp"] == "0.0"
    for key in ("catastrophe_pct", "catastrophe_ci95_low_pct", "mandatory_per_turn",
                "short_turn_pct", "never_drawn", "end_caixa_mean", "end_caixa_sd"):
        assert key in rows[0]
    assert json.loads((out / "sweep.json").read_text(encoding="utf-8"))["scenarios"]
    page = (out / "report.html").read_text(encoding="utf-8")
    assert page.count("data:image/svg+xml;base64,") == 5 and "<script" not in page


def test_simulate_without_param_is_one_scenario_and_keeps_its_old_options(pt_br):
    proc = sorteio("simulate", "--matches", "20", "--seed", "2", "--policy", "protect",
                   "--deck", "curto", "--jobs", "1")
    assert "catástrofe" in proc.stdout and "mais sorteadas" in proc.stdout
    data = json.loads(sorteio("simulate", "--matches", "20", "--json", "--jobs", "1").stdout)
    assert data["matches"] == 20 and len(data["scenarios"]) == 1


@pytest.mark.parametrize("args,message", [
    (["--param", "nope=1"], "unknown parameter"),
    (["--param", "limite_medidor=20..26"], "safe range"),
    (["--param", "teto_obrigatorias=4..2"], "goes down"),
    (["--executor", "no_such_module_xyz:make"], "no_such_module_xyz"),
    (["--executor", "nocolon"], "MODULE:FACTORY"),
])
def test_simulate_bad_input_exits_2(args, message):
    proc = sorteio("simulate", "--matches", "5", *args, check_code=2)
    assert message in proc.stderr


def test_simulate_runs_on_a_plugged_in_executor(tmp_path):
    (tmp_path / "my_cluster.py").write_text(
        "from concurrent.futures import ThreadPoolExecutor\n"
        "def make():\n    return ThreadPoolExecutor(2)\n", encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(
        [str(tmp_path), os.environ.get("PYTHONPATH", "")]))
    args = ["simulate", "--deck", "curto", "--matches", "20", "--param", "teto_obrigatorias=2,4",
            "--json"]
    plugged = json.loads(sorteio(*args, "--executor", "my_cluster:make", env=env).stdout)
    local = json.loads(sorteio(*args, "--jobs", "1").stdout)
    assert plugged["scenarios"] == local["scenarios"]


@pytest.mark.plots  # --out writes the HTML report too
@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_keeps_the_finished_scenarios_on_disk(tmp_path, pt_br):
    out = tmp_path / "out"
    proc = subprocess.Popen(
        [sys.executable, "-m", "sorteio.cli", "simulate", "--matches", "3000",
         "--param", "limite_medidor=25..35", "--param", "cartas_por_turno=6..8",
         "--out", str(out), "--jobs", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
    table = out / "sweep.csv"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:  # wait for the first finished scenarios, then Ctrl-C
        if table.exists() and len(table.read_text(encoding="utf-8").splitlines()) >= 3:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130, (stdout, stderr)
    assert "Traceback" not in stderr and "interrompido" in stderr
    with open(table, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert 2 <= len(rows) < 34
    assert [int(r["scenario"]) for r in rows] == sorted(int(r["scenario"]) for r in rows)
    assert all(r["matches"] == "3000" for r in rows)


def test_an_executor_factory_that_fails_is_a_clear_error(tmp_path, monkeypatch):
    (tmp_path / "down_cluster.py").write_text(
        "def make():\n    raise ConnectionRefusedError('scheduler:8786')\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    from sorteio.sim.sweep import load_executor

    with pytest.raises(SweepError, match="ConnectionRefusedError: scheduler:8786"):
        load_executor("down_cluster:make")


def test_a_failing_chunk_stops_the_sweep_with_its_error():
    class Broken(ThreadPoolExecutor):
        def submit(self, fn, *args, **kwargs):
            return super().submit(lambda: 1 / 0)

    with Broken(2) as pool, pytest.raises(ZeroDivisionError):
        run_sweep(load_deck("curto"), {"teto_obrigatorias": [2]}, matches=10, executor=pool)
