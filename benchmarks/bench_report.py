"""CPU time of the whole GDD 06 §7 sweep with its HTML report, and where it goes (issue 16: <= 3 s).

    python benchmarks/bench_report.py [--repeat 5] [--matches 3000] [--before REF]
                                      [--instructions]

First ``sorteio simulate --param cartas_por_turno=6,7,8 --param teto_obrigatorias=2..4
--param limite_medidor=25..35 --out DIR`` as a user runs it (a new process; user + system CPU
of it and of its workers, from ``getrusage(RUSAGE_CHILDREN)``), then the same steps one by one
in a fresh process, each step's CPU time (``time.process_time``; the sweep runs with --jobs 1 so
its CPU is this process's). "the rest" is the whole command less its steps: the interpreter's
own start and exit, and the workers' overhead.

``--before REF`` measures the code of git revision REF the same way, alternating with the work
tree's run by run (side by side: the same neighbours for both), and prints both columns and
their ratio. REF's ``python/`` is extracted to a temporary folder and run through PYTHONPATH
with this tree's compiled kernel (refused when REF's ``_ckernel.c`` differs from this tree's).

The machine is shared: each figure is the smallest of ``--repeat`` runs (the least disturbed),
and the load average is printed beside them. CPU seconds still grow with the neighbours (a
process shares caches and cores with them); ``--instructions`` also counts the instructions of
the whole command (``--jobs 1``, under valgrind's callgrind: ~50x slower), a figure the load
does not move, for each code measured.
"""

import argparse
import io
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path
from typing import Dict, List, Optional

ROOT = Path(__file__).resolve().parents[1]
GRID = ["--param", "cartas_por_turno=6,7,8", "--param", "teto_obrigatorias=2..4",
        "--param", "limite_medidor=25..35"]
KERNEL = Path("python/sorteio/sim/_ckernel.c")

STEPS = r'''
import io, json, sys, time
from pathlib import Path
T = time.process_time
out, matches, folder = {}, int(sys.argv[1]), Path(sys.argv[2])
t = T(); import sorteio.cli; out["start-up: import sorteio.cli"] = T() - t
from sorteio.loader import load_deck
from sorteio.sim import commands, report
from sorteio.sim.sweep import run_sweep
from sorteio.wording import Names
t = T(); deck = load_deck("padrao"); names = Names.of(deck); out["load the deck"] = T() - t
grid = {"cartas_por_turno": [6, 7, 8], "teto_obrigatorias": [2, 3, 4],
        "limite_medidor": list(range(25, 36))}
t = T(); result = run_sweep(deck, grid, matches, jobs=1); out["sweep (99 scenarios)"] = T() - t
commands.out.file = io.StringIO()
commands._fit_width(commands.out)
t = T(); commands._print(result, 1.0, None, names); out["terminal tables"] = T() - t
t = T(); report.write_csv(result, folder / "s.csv"); report.write_json(result, folder / "s.json",
                                                                        names)
out["sweep.csv + sweep.json"] = T() - t
t = T(); import matplotlib.figure; out["report: import matplotlib"] = T() - t
initial = {m.id: m.inicial for m in deck.medidores}
base = result.baseline
for name, draw in (("rates", lambda: report.plot_rates(result)),
                   ("mandatory slots", lambda: report.plot_mandatory(result)),
                   ("cards", lambda: report.plot_cards(base, names)),
                   ("modes", lambda: report.plot_modes(result, names)),
                   ("meters by year", lambda: report.plot_trajectories(base, initial, names))):
    t = T(); draw(); out[f"report: plot {name}"] = T() - t
report.plot_rates = report.plot_mandatory = report.plot_modes = lambda *a: ""
report.plot_cards = report.plot_trajectories = lambda *a: ""
t = T(); report.write_html(result, folder / "r.html", initial, names)
out["report: the page without plots"] = T() - t
print(json.dumps(out))
'''
WHOLE = "sorteio simulate ... --out DIR (whole command, workers included)"
REST = "the rest: interpreter start and exit, workers' overhead"


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _extract(ref: str, into: Path) -> Path:
    """REF's python/ folder, with this tree's compiled kernel; exits when the kernels differ."""
    def show(path: Path) -> bytes:
        return subprocess.run(["git", "-C", str(ROOT), "show", f"{ref}:{path}"], check=True,
                              capture_output=True).stdout

    if show(KERNEL) != (ROOT / KERNEL).read_bytes():
        sys.exit(f"{ref}'s {KERNEL} differs from this tree's: this tree's compiled kernel "
                 f"would not be {ref}'s")
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", "--format=tar", ref, "python"],
                             check=True, capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into)
    for built in (ROOT / KERNEL.parent).glob("_ckernel*.so"):
        shutil.copy2(built, into / KERNEL.parent / built.name)
    return into / "python"


def _run(python: Optional[Path], matches: int, folder: str) -> Dict[str, float]:
    """One whole command and one steps process; ``python`` is the code's folder (None: the
    installed package, this work tree)."""
    env = dict(os.environ)
    if python is not None:
        env["PYTHONPATH"] = str(python)
    before = _children_cpu()
    subprocess.run([sys.executable, "-m", "sorteio", "simulate", *GRID, "--matches",
                    str(matches), "--out", folder], check=True, stdout=subprocess.DEVNULL,
                   env=env)
    figures = {WHOLE: _children_cpu() - before}
    proc = subprocess.run([sys.executable, "-c", STEPS, str(matches), folder], check=True,
                          capture_output=True, text=True, env=env)
    figures.update(json.loads(proc.stdout))
    return figures


def _instructions(python: Optional[Path], matches: int, folder: str) -> int:
    """Instructions the whole command runs (one process: --jobs 1), counted by callgrind."""
    env = dict(os.environ)
    if python is not None:
        env["PYTHONPATH"] = str(python)
    proc = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null",
                           sys.executable, "-m", "sorteio", "simulate", *GRID, "--matches",
                           str(matches), "--jobs", "1", "--out", folder],
                          check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, env=env)
    return int(re.search(r"Collected : (\d+)", proc.stderr).group(1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--matches", type=int, default=3000)
    parser.add_argument("--before", metavar="REF", help="also measure git revision REF")
    parser.add_argument("--instructions", action="store_true",
                        help="also count the whole command's instructions (callgrind)")
    args = parser.parse_args()
    load = [os.getloadavg()[0]]
    runs: Dict[str, Dict[str, List[float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        codes: Dict[str, Optional[Path]] = {"after": None}
        if args.before:
            codes = {"before": _extract(args.before, Path(tmp) / "before"), **codes}
        for _ in range(args.repeat):
            for label, python in codes.items():
                for name, cpu in _run(python, args.matches, tmp).items():
                    runs.setdefault(label, {}).setdefault(name, []).append(cpu)
        counted = {label: _instructions(python, args.matches, tmp)
                   for label, python in codes.items()} if args.instructions else {}
    load.append(os.getloadavg()[0])
    best = {label: {name: min(cpus) for name, cpus in steps.items()}
            for label, steps in runs.items()}
    for figures in best.values():
        figures[REST] = figures[WHOLE] - sum(v for k, v in figures.items() if k != WHOLE)
    print(f"§7 sweep + HTML report on padrao (99 scenarios x {args.matches} matches), CPU "
          f"seconds, best of {args.repeat}; load average {load[0]:.1f} at the start, "
          f"{load[1]:.1f} at the end")
    labels = list(best)
    head = "".join(f"{label:>8}" for label in labels)
    print(f"  {'':<64}{head}{'  ratio' if len(labels) > 1 else ''}")
    for name in best["after"]:
        cells = "".join(f"{best[label][name]:8.3f}" for label in labels)
        ratio = (f"  {best['before'][name] / best['after'][name]:5.2f}x"
                 if len(labels) > 1 and best["after"][name] > 0.0005 else "")
        indent = "" if name == WHOLE else "  "
        print(f"  {indent}{name:<{64 - len(indent)}}{cells}{ratio}")
    print("  (target for the whole command: <= 3 s)")
    if counted:
        cells = "".join(f"{counted[label] / 1e9:7.2f}G" for label in labels)
        ratio = f"  {counted['before'] / counted['after']:5.2f}x" if len(labels) > 1 else ""
        print(f"  {'instructions of the whole command, --jobs 1 (callgrind)':<64}{cells}{ratio}")


if __name__ == "__main__":
    main()
