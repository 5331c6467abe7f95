"""CPU time of the whole GDD 06 §7 sweep with its HTML report, and where it goes (issue 16: <= 3 s).

    python benchmarks/bench_report.py [--repeat 3] [--matches 3000]

First ``sorteio simulate --param cartas_por_turno=6,7,8 --param teto_obrigatorias=2..4
--param limite_medidor=25..35 --out DIR`` as a user runs it (a new process; user + system CPU
of it and of its workers), then the same steps one by one in fresh processes, each step's CPU
time (``time.process_time``; the sweep runs with --jobs 1 so its CPU is this process's). The
machine is shared: each figure is the smallest of ``--repeat`` runs (the least disturbed), and
the load average is printed beside them.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
GRID = ["--param", "cartas_por_turno=6,7,8", "--param", "teto_obrigatorias=2..4",
        "--param", "limite_medidor=25..35"]

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


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--matches", type=int, default=3000)
    args = parser.parse_args()
    sorteio = str(Path(sys.executable).with_name("sorteio"))
    whole = []
    steps = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            before = _children_cpu()
            subprocess.run([sorteio, "simulate", *GRID, "--matches", str(args.matches),
                            "--out", tmp], check=True, stdout=subprocess.DEVNULL)
            whole.append(_children_cpu() - before)
            proc = subprocess.run([sys.executable, "-c", STEPS, str(args.matches), tmp],
                                  check=True, capture_output=True, text=True)
            for name, cpu in json.loads(proc.stdout).items():
                steps.setdefault(name, []).append(cpu)
    print(f"§7 sweep + HTML report on padrao (99 scenarios x {args.matches} matches), CPU "
          f"seconds, best of {args.repeat}; load average {os.getloadavg()[0]:.1f}")
    print(f"  {'sorteio simulate ... --out DIR (whole command, workers included)':<62} "
          f"{min(whole):6.2f}   (target <= 3 s)")
    total = 0.0
    for name, cpus in steps.items():
        total += min(cpus)
        print(f"    {name:<60} {min(cpus):6.3f}")
    print(f"    {'sum of the steps':<60} {total:6.3f}")


if __name__ == "__main__":
    main()
