"""Limits of ``sorteio simulate``: bad or huge input is refused at once (exit 2, one line, no
traceback), work is submitted lazily, workers are capped, Ctrl-C is clean, piped output is whole,
and a bad --out fails before the sweep. Small --matches everywhere, except where a huge value
proves that nothing was run or allocated.
"""

import os
import signal
import subprocess
import sys
import time
import tracemalloc
from concurrent.futures import ThreadPoolExecutor

import pytest

from sorteio.deck import Parameters
from sorteio.errors import SorteioError
from sorteio.loader import load_deck
from sorteio.sim import spec, sweep
from sorteio.sim.sweep import (
    MAX_MATCHES,
    MAX_TOTAL_MATCHES,
    MAX_VALUES,
    PARAM_NAMES,
    SweepError,
    build_scenarios,
    check_size,
    param_bounds,
    parse_param,
    parse_values,
    run_sweep,
)


def sorteio(*args, check_code=0, env=None, timeout=120):
    proc = subprocess.run([sys.executable, "-m", "sorteio.cli", *args], capture_output=True,
                          text=True, encoding="utf-8", timeout=timeout, env=env)
    assert "Traceback" not in proc.stderr, proc.stderr
    assert proc.returncode == check_code, (proc.returncode, proc.stdout, proc.stderr)
    return proc


def error_lines(stderr):
    return [line for line in stderr.splitlines() if line.lower().startswith("error")]


def _rows(result):
    return [r.row() for r in result.scenarios]


# -- 1. parameter bounds before expansion, scenario cap ------------------------------------------

@pytest.mark.parametrize("name", PARAM_NAMES)
def test_bounds_come_from_the_deck_format(name):
    """param_bounds reads deck.Parameters' constraints: both ends valid, one past them not."""
    low, high = param_bounds(name)
    assert low is not None and high is not None and low <= high
    Parameters(**{name: low})
    Parameters(**{name: high})
    for bad in (low - 1, high + 1):
        with pytest.raises(ValueError):
            Parameters(**{name: bad})


def test_a_huge_range_is_refused_before_it_is_expanded():
    # Memory, not wall time, tells expansion: a list of 10^9 values needs gigabytes, and a
    # wall-time bound failed under a loaded machine's scheduling (1.12 s against 1.0 s).
    tracemalloc.start()
    try:
        with pytest.raises(SweepError, match=r"limite_medidor=1\.\.1000000000: outside the §7 "
                                             r"safe range 25\.\.35"):
            parse_param("limite_medidor=1..1000000000")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000
    with pytest.raises(SweepError, match="outside the §7 safe range"):
        parse_param("cartas_por_turno=6,7,9")
    assert parse_param("limite_medidor=25..35") == ("limite_medidor", list(range(25, 36)))


def test_values_without_bounds_are_capped_too():
    with pytest.raises(SweepError, match="more than the 10,000"):
        parse_values("1..1000000000")
    assert len(parse_values(f"1..{MAX_VALUES}")) == MAX_VALUES


def test_too_many_scenarios_are_refused_before_they_are_built(monkeypatch):
    monkeypatch.setattr(spec, "MAX_SCENARIOS", 10)  # where build_scenarios reads it
    grid = {"cartas_por_turno": [6, 7, 8], "teto_obrigatorias": [2, 3, 4],
            "limite_por_modo": [1, 2]}
    with pytest.raises(SweepError, match=r"18 scenarios \(3 x 3 x 2\), more than the 10"):
        build_scenarios(load_deck("curto"), grid)


@pytest.mark.parametrize("args,message", [
    (["--param", "limite_medidor=1..1000000000"], "outside the §7 safe range 25..35"),
    (["--param", "limite_medidor=abc"], "'abc' is not an integer"),
    (["--param", "foo=1"], "unknown parameter 'foo'"),
    (["--param", "teto_obrigatorias=4..2"], "goes down"),
    (["--matches", "1000000000000", "--jobs", "2"], "1<=x<=10000000"),
    (["--jobs", "0"], "x>=1"),
    (["--matches", str(MAX_MATCHES), "--param", "limite_medidor=25..35"],
     f"more than the {MAX_TOTAL_MATCHES:,}"),
])
def test_bad_or_huge_input_is_one_line_and_exit_2(args, message):
    started = time.monotonic()
    proc = sorteio("simulate", "--matches", "5", *args, check_code=2, timeout=60)
    assert message in proc.stderr
    assert len(error_lines(proc.stderr)) == 1, proc.stderr
    assert time.monotonic() - started < 30  # refused, not run


def test_size_limits():
    check_size(1, MAX_MATCHES)
    with pytest.raises(SweepError, match="matches per scenario"):
        check_size(1, MAX_MATCHES + 1)
    with pytest.raises(SweepError, match="scenarios x"):
        check_size(MAX_TOTAL_MATCHES // 1000 + 1, 1000)
    with pytest.raises(SweepError, match="matches per scenario"):
        run_sweep(load_deck("curto"), {}, matches=MAX_MATCHES + 1, jobs=1)


# -- 2. lazy submission -----------------------------------------------------------------------

class CountingPool(ThreadPoolExecutor):
    """Records the most futures submitted and not yet finished at any time."""

    def __init__(self, workers):
        super().__init__(workers)
        self.futures = []
        self.outstanding = 0
        self.most = 0
        self.submitted = 0

    def submit(self, fn, *args, **kwargs):
        self.outstanding = sum(1 for f in self.futures if not f.done()) + 1
        self.most = max(self.most, self.outstanding)
        self.submitted += 1
        fut = super().submit(fn, *args, **kwargs)
        self.futures.append(fut)
        return fut


def test_chunks_are_submitted_lazily_and_results_do_not_change():
    deck = load_deck("curto")
    grid = {"teto_obrigatorias": [2, 4]}
    inline = run_sweep(deck, grid, matches=120, seed=5, jobs=1, chunk=7)
    pool = CountingPool(2)
    with pool:
        lazy = run_sweep(deck, grid, matches=120, seed=5, executor=pool, chunk=7, in_flight=3)
    assert pool.submitted == 3 * 18  # 3 scenarios x ceil(120 / 7) chunks, each once
    assert pool.most <= 3
    assert _rows(lazy) == _rows(inline)
    processes = run_sweep(deck, grid, matches=120, seed=5, jobs=2, chunk=11, in_flight=2)
    assert _rows(processes) == _rows(inline)


def test_the_default_window_is_a_few_chunks_per_worker():
    pool = CountingPool(2)
    with pool:
        run_sweep(load_deck("curto"), {}, matches=300, executor=pool, chunk=5)
    assert pool.submitted == 60 and pool.most <= 3 * 2  # 3 per worker of the pool


# -- 3. workers ---------------------------------------------------------------------------------

def test_workers_are_capped_at_the_chunks_and_at_max_jobs(monkeypatch):
    deck = load_deck("curto")
    # One chunk of work: no pool at all, whatever --jobs says.
    assert run_sweep(deck, {}, matches=20, jobs=1000).workers == 1
    monkeypatch.setattr(sweep, "max_jobs", lambda: 2)
    capped = run_sweep(deck, {"teto_obrigatorias": [2, 4]}, matches=200, jobs=1000, chunk=100)
    assert capped.workers == 2
    assert _rows(capped) == _rows(run_sweep(deck, {"teto_obrigatorias": [2, 4]}, matches=200,
                                            jobs=1))
    with pytest.raises(SweepError, match="jobs must be >= 1"):
        run_sweep(deck, {}, matches=5, jobs=0)


def test_small_sweeps_on_the_compiled_kernel_start_no_worker(monkeypatch):
    from sorteio.sim import ckernel

    deck = load_deck("curto")
    monkeypatch.setattr(sweep, "default_jobs", lambda: 2)
    monkeypatch.setenv("SORTEIO_KERNEL", "python")
    assert run_sweep(deck, {}, matches=3000).workers == 2
    if ckernel.available():
        monkeypatch.setenv("SORTEIO_KERNEL", "c")
        assert run_sweep(deck, {}, matches=3000).workers == 1
        assert run_sweep(deck, {}, matches=3000, jobs=2).workers == 2  # --jobs still decides


def test_max_jobs_is_four_per_core():
    assert sweep.max_jobs() <= 4 * (os.cpu_count() or 1)


def test_help_says_how_jobs_is_capped():
    text = " ".join(sorteio("simulate", "--help").stdout.split())
    assert "4 per core" in text and ">= 1" in text


def test_the_cli_reports_the_workers_it_used(pt_br):
    proc = sorteio("simulate", "--deck", "curto", "--matches", "20", "--jobs", "1000")
    assert "(1 processo(s))" in proc.stdout


# -- Ctrl-C ---------------------------------------------------------------------------------------

def test_sigint_is_a_flag_checked_between_chunks():
    """SIGINT while a chunk runs does not raise inside the executor: the sweep stops after
    it, keeps the finished scenarios and restores the previous handler."""
    before = signal.getsignal(signal.SIGINT)
    calls = []

    def on_progress(done):
        calls.append(done)
        if done == 40:  # scenario 0 (20 matches) and half of scenario 1 are done
            os.kill(os.getpid(), signal.SIGINT)

    result = run_sweep(load_deck("curto"), {"teto_obrigatorias": [2, 4]}, matches=20, jobs=1,
                       chunk=10, on_progress=on_progress)
    assert result.interrupted
    assert [r.scenario.index for r in result.scenarios] == [0, 1]
    assert calls[-1] <= 50
    assert signal.getsignal(signal.SIGINT) is before


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process")
def test_ctrl_c_before_any_scenario_finishes_exits_130_quickly(pt_br):
    proc = subprocess.Popen(
        [sys.executable, "-m", "sorteio.cli", "simulate", "--matches", str(MAX_MATCHES),
         "--jobs", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8")
    time.sleep(2.5)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, (stdout, stderr)
    assert "Traceback" not in stderr and "interrompido" in stderr
    assert "nenhum cenário terminou" in stdout


# -- 4. piped output is not cut at 80 columns ----------------------------------------------------

def _no_columns_env():
    env = dict(os.environ)
    env.pop("COLUMNS", None)
    return env


def test_piped_sweep_tables_are_whole(pt_br):
    proc = sorteio("simulate", "--deck", "curto", "--matches", "20", "--jobs", "1",
                   "--param", "limite_medidor=25..27", "--param", "teto_obrigatorias=2,4",
                   env=_no_columns_env())
    assert "…" not in proc.stdout
    assert "IC 95%" in proc.stdout and "catástr." in proc.stdout and "nunca" in proc.stdout
    assert "Governabilidade" in proc.stdout and "Saúde" in proc.stdout  # meters by their names


def test_piped_lint_is_whole():
    proc = sorteio("lint", "padrao", env=_no_columns_env())
    assert "…" not in proc.stdout


def test_columns_still_wins_when_set():
    narrow = sorteio("lint", "padrao", env=dict(os.environ, COLUMNS="60")).stdout
    wide = sorteio("lint", "padrao", env=_no_columns_env()).stdout
    widest = max(len(line) for line in wide.splitlines() if "┃" in line)
    assert widest > 60 and max(len(line) for line in narrow.splitlines() if "┃" in line) < widest


# -- 5. --out ---------------------------------------------------------------------------------

@pytest.mark.plots  # --out needs matplotlib, checked first
@pytest.mark.parametrize("kind", ["file", "csv_is_a_folder", "proc"])
def test_an_unwritable_out_is_refused_before_the_sweep(tmp_path, kind):
    if kind == "file":
        target = tmp_path / "a_file.txt"
        target.write_text("x", encoding="utf-8")
        message = "exists and is not a folder"
    elif kind == "csv_is_a_folder":
        target = tmp_path / "out"
        (target / "sweep.csv").mkdir(parents=True)
        message = "sweep.csv is a folder"
    else:
        if not os.path.isdir("/proc/self"):
            pytest.skip("no /proc")
        target = "/proc/x"
        message = "cannot create the folder"
    started = time.monotonic()
    # MAX_MATCHES per scenario would run for many minutes: refused at once means checked first.
    proc = sorteio("simulate", "--matches", str(MAX_MATCHES), "--out", str(target),
                   check_code=2, timeout=60)
    assert message in proc.stderr and len(error_lines(proc.stderr)) == 1
    assert time.monotonic() - started < 30


def test_a_csv_that_cannot_be_written_mid_sweep_is_a_clear_error(tmp_path):
    from sorteio.sim.report import CsvAppender

    result = run_sweep(load_deck("curto"), {}, matches=5, jobs=1).scenarios[0]
    appender = CsvAppender(tmp_path / "gone" / "sweep.csv")
    with pytest.raises(SorteioError, match="cannot write"):
        appender.add(result)
