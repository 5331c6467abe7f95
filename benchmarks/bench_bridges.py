"""Bridge figures (issue 7; not a test): both bridges side by side, timed from GDScript in Godot.

    python benchmarks/bench_bridges.py [--rounds 3] [--matches 200] [--json FILE]

In one run, on a copy of the demo with the real pythonscript installed (scripts/pythonscript.sh),
the rounds alternate the configurations, one Godot 3.2.3 process (godot3-server) each:

- socket: the socket bridge, the server in this venv's CPython, the oracle;
- in-process: the pythonscript bridge (its CPython 3.8), the addon's entry, the oracle;
- in-process, oracle: the same with an entry whose handler runs the reference ``Engine``
  explicitly (since issue 16 removed FastEngine this is the default engine too: a control row)
  (benchmarks/oracle_entry.py), for issue 9's question: does the oracle meet p99 <= 100 us
  per draw request from GDScript?

With ``make export`` built, two more: the socket bridge with the frozen ``sorteio-serve`` a player
gets, and the in-process bridge with the shipped (trimmed, precompiled) pythonscript runtime.

Each process (benchmarks/bridges_compare.gd) times the start-up (start_bridge() to a first
answered ping; the first of a process is cold), ``Sorteio.draw_next_card()``, the draw request
alone, a whole match (start_match() to its end), start_match() alone and a bare ping. Times of
all rounds are pooled; prints p50 / p99.
Run it on an idle machine: other processes on the same cores raise every figure, p99 most.
"""

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Tuple

ROOT = Path(__file__).resolve().parents[1]
HERE = Path(__file__).resolve().parent
WORK = ROOT / "build" / "bench"
ORACLE = "res://bench/oracle_entry.py"
SHIPPED = ROOT / "build" / "export"
FROZEN = "sorteio-serve"
# (label, bridge mode, python entry, project: "dev" or "shipped", server for SORTEIO_PYTHON)
CONFIGS: List[Tuple[str, str, str, str, str]] = [
    ("socket", "socket", "", "dev", sys.executable),
    ("in-process", "python", "", "dev", ""),
    ("in-process, oracle Engine", "python", ORACLE, "dev", ""),
]
# With `make export` built: the same from what a player gets (the frozen server; the trimmed,
# precompiled runtime).
SHIPPED_CONFIGS = [
    ("socket, frozen (make export)", "socket", "", "dev", str(SHIPPED / "socket" / FROZEN)),
    ("in-process, as shipped (make export)", "python", "", "shipped", ""),
]
MEASURES = [
    ("draw", "a draw, `Sorteio.draw_next_card()`", "us"),
    ("draw_request", "the draw request alone (JSON both ways, the engine)", "us"),
    ("match", "a whole match, `start_match()` to its end", "ms"),
    ("new_match", "...of which `start_match()` (deck read and checked, engine built)", "ms"),
    ("ping", "a bare request round trip (`ping`)", "us"),
    ("startup_cold", "start-up, first in the process (`start_bridge()` to a ping answered)", "ms"),
    ("startup_warm", "start-up, restarted in the same process", "ms"),
]


def shipped_project(dev: Path) -> Path:
    """The benchmark project with the exported game's pythonscript runtime in place."""
    target = WORK / "project_shipped"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(dev, target, symlinks=True, ignore=shutil.ignore_patterns(".import"))
    runtime = Path("addons") / "pythonscript"
    shutil.rmtree(target / runtime)
    shutil.copytree(SHIPPED / "python" / runtime, target / runtime)
    return target


def project() -> Path:
    """A copy of the demo with pythonscript installed and the benchmark's files in res://bench/."""
    target = WORK / "project"
    if target.exists():
        shutil.rmtree(target)
    shutil.copytree(ROOT / "godot3" / "demo_project", target, symlinks=False,
                    ignore=shutil.ignore_patterns(".import", "docs"))
    result = subprocess.run(["bash", str(ROOT / "scripts" / "pythonscript.sh"), "install",
                             str(target)], capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"bench_bridges: pythonscript is needed: {result.stderr.strip()}")
    (target / "bench").mkdir()
    for name in ("bridges_compare.gd", "oracle_entry.py"):
        shutil.copy2(HERE / name, target / "bench" / name)
    return target


def run_one(where: Path, mode: str, entry: str, matches: int, server: str,
            timeout: int = 600) -> List[dict]:
    """The BENCH lines of one Godot 3 process; exits with its log when it failed (a SCRIPT
    ERROR leaves Godot 3 running: it ends at ``timeout`` seconds)."""
    env = dict(os.environ, LANG="en_US.UTF-8", SORTEIO_PYTHON=server or sys.executable)
    env.pop("LC_ALL", None)
    env.pop("SORTEIO_BRIDGE_FILE", None)
    xdg = WORK / "xdg"
    (xdg / "godot" / "app_userdata" / "Sorteio demo").mkdir(parents=True, exist_ok=True)
    env["XDG_DATA_HOME"] = str(xdg)
    args = ["timeout", str(timeout), "godot3-server", "--path", str(where), "-s",
            "res://bench/bridges_compare.gd", "--", f"--mode={mode}", f"--matches={matches}"]
    if entry:
        args.append(f"--entry={entry}")
    result = subprocess.run(args, capture_output=True, text=True, env=env)
    log = result.stdout + result.stderr
    if result.returncode != 0 or "SCRIPT ERROR" in log or "BENCH FAIL" in log:
        sys.exit(f"bench_bridges: {mode} {entry} failed (exit {result.returncode}):\n{log[-3000:]}")
    return [json.loads(line[6:]) for line in log.splitlines() if line.startswith("BENCH {")]


def percentile(times: List[int], fraction: float) -> int:
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(len(ordered) * fraction))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--matches", type=int, default=200, help="matches per process")
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args()
    projects = {"dev": project()}
    configs = list(CONFIGS)
    if (SHIPPED / "socket" / FROZEN).is_file() and (SHIPPED / "python").is_dir():
        projects["shipped"] = shipped_project(projects["dev"])
        configs += SHIPPED_CONFIGS
    else:
        print("# build/export/ missing: run `make export` to time what a player gets too")
    pooled: Dict[Tuple[str, str], List[int]] = {}
    for _round in range(args.rounds):
        for label, mode, entry, where, server in configs:
            for line in run_one(projects[where], mode, entry, args.matches, server):
                pooled.setdefault((label, line["measure"]), []).extend(line["times"])
    load = os.getloadavg()[0]
    godot = subprocess.run(["godot3-server", "--version"], capture_output=True, text=True)
    print(f"# Godot {godot.stdout.strip().splitlines()[-1]}, socket server on "
          f"{platform.python_implementation()} {platform.python_version()}, in-process on "
          f"pythonscript's CPython 3.8; {os.cpu_count()} cores, load average {load:.1f}; "
          f"{args.rounds} rounds x {args.matches} matches per configuration")
    labels = [config[0] for config in configs]
    print("| p50 / p99 | " + " | ".join(labels) + " |")
    print("|---|" + "---|" * len(labels))
    figures = {}
    for measure, name, unit in MEASURES:
        cells = []
        for label in labels:
            times = pooled.get((label, measure), [])
            if not times:
                cells.append("-")
                continue
            scale = 1000.0 if unit == "ms" else 1.0
            p50, p99 = percentile(times, 0.5) / scale, percentile(times, 0.99) / scale
            figures.setdefault(label, {})[measure] = {"p50": p50, "p99": p99, "n": len(times),
                                                      "unit": unit}
            digits = 1 if unit == "ms" else 0
            cells.append(f"{p50:.{digits}f} / {p99:.{digits}f} {unit} (n={len(times)})")
        print(f"| {name} | " + " | ".join(cells) + " |")
    for label in labels:
        if "in-process" not in label:
            continue
        for measure in ("draw", "draw_request"):
            got = figures.get(label, {}).get(measure)
            if got:
                verdict = "meets" if got["p99"] <= 100 else "misses"
                print(f"issue 9: {label}: {measure} {verdict} p99 <= 100 us from GDScript "
                      f"(p50 {got['p50']:.0f} us, p99 {got['p99']:.0f} us, n={got['n']})")
    if args.json:
        args.json.write_text(json.dumps({"load_average": load, "figures": figures}, indent=1),
                             encoding="utf-8")


if __name__ == "__main__":
    main()
