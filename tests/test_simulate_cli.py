"""``sorteio simulate`` when it is stopped or cannot write (issue 10 "Interruptions and a full
disk"): SIGTERM stops the workers and keeps the finished scenarios, a full disk is a clear error
that keeps the rows already written, ``--out ""`` is refused."""

import csv
import os
import re
import signal
import subprocess
import sys
import time

import pytest

from cli_run import sorteio

FULL_DISK = """
import errno, io, sys
budget = [int(sys.argv.pop(1))]
real = io.FileIO

class AlmostFull(real):  # the disk fills up after `budget` bytes of sweep.csv
    def write(self, data):
        if str(self.name).endswith("sweep.csv"):
            room = budget[0]
            if len(data) > room:
                super().write(bytes(data[:room]))  # a partial row, as a real full disk writes
                budget[0] = 0
                raise OSError(errno.ENOSPC, "No space left on device")
            budget[0] -= len(data)
        return super().write(data)

io.FileIO = AlmostFull
sys.argv[0] = "sorteio"
from sorteio.cli import main
main()
"""

SWEEP = ["simulate", "--matches", "40", "--jobs", "1", "--param", "teto_obrigatorias=2..4",
         "--param", "cartas_por_turno=6..8"]


def _rows(path):
    text = path.read_text(encoding="utf-8")
    assert text.endswith("\n")
    rows = list(csv.reader(text.splitlines()))
    assert len({len(r) for r in rows}) == 1, "a row was cut"
    return rows


@pytest.mark.plots  # --out writes the HTML report too
def test_a_full_disk_while_rows_are_written_is_a_clear_error_keeping_whole_rows(tmp_path):
    # issue 10: ENOSPC ended in an OSError traceback from CsvAppender.close() in a finally.
    header_and_two_rows = len(_header_and_rows(tmp_path, 2))
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-c", FULL_DISK, str(header_and_two_rows + 10),
                           *SWEEP, "--out", str(out)], capture_output=True, text=True,
                          timeout=300)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 2, proc.stderr
    assert "No space left on device" in proc.stderr and "kept" in proc.stderr
    rows = _rows(out / "sweep.csv")
    assert len(rows) == 3 and rows[0][0] == "scenario"  # the header and two whole rows


def _header_and_rows(tmp_path, n):
    """The bytes of the header and the first ``n`` rows of the sweep's CSV, from a clean run."""
    out = tmp_path / "clean"
    sorteio(*SWEEP, "--out", str(out))
    data = (out / "sweep.csv").read_bytes()
    lines = data.splitlines(keepends=True)
    return b"".join(lines[: n + 1])


REPORT_FAILS = """
import errno, sys
from sorteio.sim import report
def full(*args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")
report.write_html = full
sys.argv[0] = "sorteio"
from sorteio.cli import main
main()
"""


@pytest.mark.plots
def test_a_full_disk_when_the_report_is_written_keeps_every_row(tmp_path):
    out = tmp_path / "out"
    proc = subprocess.run([sys.executable, "-c", REPORT_FAILS, *SWEEP, "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert "Traceback" not in proc.stderr
    assert proc.returncode == 2 and "report.html: No space left on device" in proc.stderr
    assert len(_rows(out / "sweep.csv")) == 1 + 9
    assert sorted(os.listdir(out)) == ["sweep.csv", "sweep.json"]  # no partial file left


@pytest.mark.plots  # --out needs matplotlib, checked first
@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_out_folder_is_an_error(value):
    # issue 10: `--out ""` exited 0 and wrote nothing, silently.
    proc = sorteio("simulate", "--matches", "5", "--out", value, check_code=2)
    assert "--out" in proc.stderr and "empty folder name" in proc.stderr


def _children(pid):
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True,
                         text=True).stdout
    return [int(p) for p in out.split()]


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="utf-8") as fh:
            return fh.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.plots
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("signum, code", [
    (signal.SIGTERM, 143),
    (signal.SIGINT, 130),
])
def test_a_signal_stops_the_workers_and_keeps_the_finished_scenarios(tmp_path, signum, code, pt_br):
    # issue 10: `kill -TERM` left 2 workers running 2 s later and lost the finished scenarios.
    out = tmp_path / "out"
    # Enough matches that the signal lands while the sweep runs: at 20,000 a scenario, once the
    # compiled kernel ran ~400,000 matches/s and took 16,000-match chunks, the whole sweep could
    # end before the signal (all 3 kept) or the signal reach the report's plotting afterwards
    # (the generic "interrompido" alone).
    proc = subprocess.Popen([sys.executable, "-m", "sorteio.cli", "simulate", "--matches",
                             "400000", "--jobs", "2", "--param", "teto_obrigatorias=2..4",
                             "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 240
        csv_file = out / "sweep.csv"
        while not (csv_file.exists() and csv_file.read_text(encoding="utf-8").count("\n") >= 2):
            assert proc.poll() is None and time.monotonic() < deadline, "no scenario finished"
            time.sleep(0.05)
        workers = _children(proc.pid)
        assert workers  # the baseline finished; the other scenarios are still running
        proc.send_signal(signum)
        sent = time.monotonic()
        while any(_alive(w) for w in workers):
            assert time.monotonic() - sent < 10, "workers still running 10 s after the signal"
            time.sleep(0.02)
        _stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert "Traceback" not in stderr
    assert proc.returncode == code, stderr
    # The compiled kernel may finish a second scenario before the signal lands: every finished
    # one is kept, and the unfinished one is not written.
    kept = re.search(r"interrompido: (\d) de 3", stderr)
    assert kept and 1 <= int(kept.group(1)) < 3, stderr
    assert len(_rows(csv_file)) == int(kept.group(1)) + 1  # header + each finished scenario


def test_a_parameter_given_twice_is_refused_not_overwritten():
    # Found by qacli: `--param teto_obrigatorias=2 --param teto_obrigatorias=3` ran one scenario
    # (T = 3, the baseline): the first value was silently dropped. GDD 06 §7 sweeps one list of
    # values per parameter; say how to give both.
    proc = sorteio("simulate", "--matches", "5", "--jobs", "1", "--param",
                   "teto_obrigatorias=2", "--param", "teto_obrigatorias=3", check_code=2)
    assert "teto_obrigatorias" in proc.stderr and "twice" in proc.stderr
    assert "teto_obrigatorias=2,3" in proc.stderr
    assert proc.stdout == ""
