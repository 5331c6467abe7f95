"""The per-card study in the Godot 4 editor panel vs the CLI, side by side in one run (issue 15).

Opens a designer project (tests/test_godot4_editor.py's: the good deck is padrao's copy) in the
real Godot 4 editor under Xvfb (Mesa's software OpenGL, as the screenshot test does), and has the
editor probe (tests/godot4/editor_probe, ``--only=percard_bench``) run the panel's per-card study
once per driver mode of ``addons/sorteio/editor/sim_job.gd``: ``fixed`` (the former 60 ms steps,
one editor frame after each) and ``adaptive`` (the budget sized from the measured cost between
steps). Then runs ``sorteio simulate --per-card`` on the same deck, seed, player and precision
(``--jobs 1``: one Python process, as the panel's; and the CLI's default, all cores). Prints, per
run: wall seconds, Python's share of the wall time (the replies' ``step_ms``), steps, editor
frames and the longest one, a 0.1 s Timer's timeouts, the largest progress reply, and whether
the ranking equals the CLI's; with the load average before and after (the machine is shared).

The panel talks to ``sorteio serve`` over a socket here (the default for a project without the
Python GDExtension), with the default kernel (the C one when built); ``--inprocess`` installs
the Python GDExtension (build/gdextension) so it runs on the editor's own Python instead.

Usage: python benchmarks/bench_panel_percard.py [--precision 0.07] [--cap 400000] [--seed 0]
       [--modes fixed,adaptive] [--inprocess] [--json FILE]
"""

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "python"))
sys.path.insert(0, str(ROOT / "tests"))

from godot4_harness import godot4, godot_env, import_project  # noqa: E402
from test_godot4_editor import designer_project  # noqa: E402
from test_godot_engine import xvfb  # noqa: E402


def _load() -> str:
    return "/".join(f"{x:.2f}" for x in os.getloadavg())


def _children_cpu() -> float:
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return kids.ru_utime + kids.ru_stime


def panel_runs(tmp: Path, args) -> list:
    project = designer_project(tmp / "designer")
    allowed: tuple = ()
    if args.inprocess:  # the Python GDExtension: the panel runs on its Python, in the editor
        from godot4_python_runtime import NOISE, install_extension

        install_extension(project)
        allowed = NOISE
    import_project(project, allowed=allowed)
    command = ["timeout", "-k", "5", "3600", godot4(), "--editor", "--path", str(project),
               "--rendering-driver", "opengl3", "--audio-driver", "Dummy", "--resolution",
               "1280x800", "--", "--only=percard_bench", f"--precision={args.precision}",
               f"--cap={args.cap}", f"--seed={args.seed}", f"--modes={args.modes}"]
    with xvfb("1280x800x24") as display:
        result = subprocess.run(command, capture_output=True, text=True, timeout=3700,
                                env=godot_env(tmp / "home", DISPLAY=display))
    log = result.stdout + result.stderr
    (tmp / "editor.log").write_text(log, encoding="utf-8")
    runs = [json.loads(line)["data"]
            for line in re.findall(r"^PANEL percard_bench (.*)$", log, re.M)]
    if "GODOT-TEST passed" not in log or not runs:
        sys.exit("the editor run failed:\n" + log[-3000:])
    return runs


def cli_run(deck: Path, args, jobs) -> dict:
    command = [sys.executable, "-m", "sorteio.cli", "simulate", "--per-card", "--deck", str(deck),
               "--precision", str(args.precision), "--max-matches", str(args.cap), "--seed",
               str(args.seed), "--policy", "random", "--json"]
    if jobs:
        command += ["--jobs", str(jobs)]
    cpu, wall = _children_cpu(), time.perf_counter()
    out = subprocess.run(command, capture_output=True, text=True, check=True,
                         env=dict(os.environ, PYTHONPATH=str(ROOT / "python")))
    wall, cpu = time.perf_counter() - wall, _children_cpu() - cpu
    data = json.loads(out.stdout)
    return {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1), "jobs": jobs or "all",
            "matches": data["matches_played"],
            "ranking": [[c["card"], c["diff_pp"]] for c in data["cards"]]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--precision", type=float, default=0.07)
    parser.add_argument("--cap", type=int, default=400000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modes", default="fixed,adaptive")
    parser.add_argument("--inprocess", action="store_true",
                        help="install the Python GDExtension in the project: the panel then "
                             "runs on the editor's own Python (in-process bridge)")
    parser.add_argument("--json", type=Path)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench_panel_percard_") as name:
        tmp = Path(name)
        print(f"per-card study, padrao (designer project's good deck), ±{args.precision:g} pt, "
              f"cap {args.cap:,}, seed {args.seed}, random player; load {_load()}", flush=True)
        report = {"load_before": _load(), "panel": panel_runs(tmp, args)}
        deck = tmp / "designer" / "decks" / "bom.sorteio.json"
        report["cli"] = [cli_run(deck, args, 1), cli_run(deck, args, None)]
        report["load_after"] = _load()
    def same(ranking: list) -> list:  # Godot's JSON keeps 15 significant digits of a float
        return [[card, round(diff, 9)] for card, diff in ranking]

    cli_ranking = same(report["cli"][0]["ranking"])
    for run in report["panel"]:
        stats = run["stats"]
        share = stats["python_ms"] / 1000 / run["wall_s"]
        print(f"panel {run['mode']:>8} ({run['bridge']}, {run['kernel']}): {run['wall_s']:6.1f} s "
              f"wall, Python {stats['python_ms'] / 1000:5.1f} s ({share:4.0%} of the wall), "
              f"{stats['steps']} steps (budget up to {stats['budget_ms_max']} ms; replies "
              f"awaited {stats['request_ms'] / 1000:.1f} s, {stats['request_frames']} frames), "
              f"{run['frames']} frames (longest {run['longest_frame_ms']} ms), "
              f"0.1 s timer fired {run['timer_ticks']}x, progress reply <= "
              f"{stats['reply_chars_max']} chars, {run['matches']:,} matches, ranking "
              f"{'= CLI' if same(run['ranking']) == cli_ranking else '!= CLI'}")
    for run in report["cli"]:
        print(f"CLI --jobs {run['jobs']}: {run['wall_s']:6.1f} s wall, {run['cpu_s']:5.1f} s CPU, "
              f"{run['matches']:,} matches")
    print(f"load average before {report['load_before']}, after {report['load_after']}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
