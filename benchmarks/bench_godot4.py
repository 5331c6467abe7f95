"""Godot 4 bridge figures (issue 13; not a test), timed from GDScript in the real Godot 4.

    python benchmarks/bench_godot4.py [--rounds 3] [--matches 50] [--restarts 4] [--json FILE]

Each round runs one Godot 4 process (headless) per bridge on a throwaway project made by the
engine-test harness (tests/godot4_harness.py), the rounds alternating the bridges, and pools the
samples of all rounds. tests/godot4/bench_node.gd (beside the engine scenarios, which it
builds on; gdtoolkit 3 lints benchmarks/*.gd as Godot 3) times, in GDScript:

- start-up: `start_bridge()` to `bridge_ready` (the first of a process apart: it is cold);
  `stop_bridge()` before each restart, timed on its own;
- a draw: `await Sorteio.draw_next_card()` (the request, the engine, JSON both ways, the typed
  card, the signal);
- a bare request round trip (`ping`);
- a whole match: `start_match()` to its end (28 draws and choices, or fewer on a catastrophe),
  and `start_match()` alone.

Bridges: `socket` (the server in this venv's CPython) always; `in-process` (the Python
GDExtension's bridges/python_bridge.gd) when that file is in the addon, else its row says it is
not installed: the slot is kept so both can be compared side by side in one run.
Prints p50 / p99 and the load average (`uptime`): run it on an idle machine; p99 is the first
figure other processes spoil.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests"))

from godot4_harness import engine_version, make_project, run_godot  # noqa: E402

BRIDGES = [("socket", "socket"), ("in-process", "python")]
MEASURES = [
    ("startup_cold", "start-up, first in the process (`start_bridge()` to `bridge_ready`)", "ms"),
    ("startup_warm", "start-up, restarted in the same process", "ms"),
    ("stop", "`stop_bridge()` (the server stopped with SIGTERM and waited for)", "ms"),
    ("draw", "a draw, `await Sorteio.draw_next_card()`", "µs"),
    ("ping", "a bare request round trip (`ping`)", "µs"),
    ("match", "a whole match, `start_match()` to its end", "ms"),
    ("new_match", "...of which `start_match()`", "ms"),
]


def percentile(values, share):
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    index = min(len(ordered) - 1, max(0, round(share * (len(ordered) - 1))))
    return ordered[index]


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg())


def run_once(project: Path, mode: str, matches: int, restarts: int, home: Path) -> dict:
    args = ["-s", "res://tests/bench_node.gd", "--", f"--bridge={mode}", f"--matches={matches}",
            f"--restarts={restarts}"]
    run = run_godot(project, args, home, timeout=1500, log_name=f"bench-{mode}")
    run.passed("no error")
    samples = json.loads(run.lines("BENCH ")[0])
    startup = samples.pop("startup")
    samples["startup_cold"] = startup[:1]
    samples["startup_warm"] = startup[1:]
    return samples


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--matches", type=int, default=50)
    parser.add_argument("--restarts", type=int, default=4)
    parser.add_argument("--json", type=Path, help="write the pooled samples here")
    args = parser.parse_args(argv)
    python_bridge = ROOT / "addons" / "sorteio" / "bridges" / "python_bridge.gd"
    bridges = [(label, mode) for label, mode in BRIDGES
               if mode != "python" or python_bridge.exists()]
    pooled = {label: {key: [] for key, _, _ in MEASURES} for label, _ in bridges}
    with tempfile.TemporaryDirectory() as scratch:
        project = make_project(Path(scratch) / "project", name="sorteio bench")
        print(f"godot {engine_version()}; python {sys.version.split()[0]}; "
              f"load average before: {load_average()}", flush=True)
        for round_number in range(args.rounds):
            for label, mode in bridges:
                home = Path(scratch) / f"home-{round_number}-{mode}"
                samples = run_once(project, mode, args.matches, args.restarts, home)
                for key, values in samples.items():
                    pooled[label][key].extend(values)
                print(f"round {round_number + 1}/{args.rounds} {label}: "
                      f"{len(samples['draw'])} draws, load {load_average()}", flush=True)
    labels = [label for label, _ in BRIDGES]
    print()
    print(f"| p50 / p99 (n) | {' | '.join(labels)} |")
    print(f"|---|{'---|' * len(labels)}")
    for key, text, unit in MEASURES:
        cells = []
        for label in labels:
            if label not in pooled:
                cells.append("not installed (bridges/python_bridge.gd)")
                continue
            values = pooled[label][key]
            cells.append(f"{percentile(values, 0.5):,.1f} / {percentile(values, 0.99):,.1f} {unit}"
                         f" (n={len(values)})" if values else "-")
        print(f"| {text} | {' | '.join(cells)} |")
    for label in pooled:
        draws = pooled[label]["draw"]
        if draws:
            print(f"{label}: draw mean {statistics.mean(draws):.1f} µs")
    print(f"load average after: {load_average()} "
          f"({subprocess.run(['nproc'], capture_output=True, text=True).stdout.strip()} cores)")
    if args.json:
        args.json.write_text(json.dumps(pooled), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
