"""Godot 4 bridges timed from GDScript, side by side in one run (issue 13 figures):
start to ready, one draw request p50/p99, a whole match; in-process (the Python GDExtension)
and, when the addon has it, the socket bridge (addons/sorteio/bridges/socket_bridge.gd).

Each bridge runs benchmarks/godot4/bench_bridge.gd headless in a throwaway project made by the
Godot 4 test harness (tests/godot4_harness.py) with the extension installed
(scripts/gdextension.sh). ``wall_to_ready_ms`` is measured from here: process start to the
bridge's ready line (engine start-up, the extension's interpreter and the first import included).

Usage: python benchmarks/bench_godot4_bridges.py [--bridges python,socket] [--draws 2000]
Noisy on shared cores: it prints the load average; compare the bridges within one run.
"""

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from godot4_harness import godot4, godot_env, import_project, make_project  # noqa: E402


def project(where: Path) -> Path:
    made = make_project(where / "project", name="g4bench", autoload=False, import_now=False)
    runtime = subprocess.run(["bash", str(ROOT / "scripts/gdextension.sh"), "runtime"],
                             capture_output=True, text=True, check=True).stdout.strip()
    shutil.copytree(Path(runtime) / "addons/godot-python-extension",
                    made / "addons/godot-python-extension")
    shutil.copy(ROOT / "addons/sorteio/python/sorteio.pyextension", made)
    (made / ".godot").mkdir(exist_ok=True)
    (made / ".godot/extension_list.cfg").write_text(
        "res://addons/godot-python-extension/python.gdextension\n")
    (made / "bench").symlink_to(ROOT / "benchmarks/godot4")
    import_project(made, allowed=[(r"ObjectDB instances leaked", "the extension's, at exit")])
    return made


def run(made: Path, bridge: str, draws: int, home: Path) -> dict:
    started = time.perf_counter()
    process = subprocess.Popen(
        [godot4(), "--headless", "--path", str(made), "-s", "res://bench/bench_bridge.gd", "--",
         f"--bridge={bridge}", f"--draws={draws}"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=godot_env(home),
    )
    figures: dict = {}
    other = []
    for line in process.stdout:
        other.append(line)
        if line.startswith("BENCH "):
            key, _, value = line[6:].strip().partition("=")
            figures[key] = value
            if key == "ready_ms":
                figures["wall_to_ready_ms"] = f"{(time.perf_counter() - started) * 1e3:.0f}"
    process.wait(timeout=600)
    if "draws" not in figures and "unavailable" not in figures:
        print(f"{bridge}: no figures, its log ends:\n" + "".join(other[-15:]))
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bridges", default="python,socket")
    parser.add_argument("--draws", type=int, default=2000)
    args = parser.parse_args()
    print(f"load average: {os.getloadavg()}")
    with tempfile.TemporaryDirectory() as scratch:
        made = project(Path(scratch))
        results = {b: run(made, b, args.draws, Path(scratch) / f"home-{b}")
                   for b in args.bridges.split(",")}
    keys = ["wall_to_ready_ms", "ready_ms", "draws", "draw_p50_us", "draw_p99_us",
            "match_ms_median", "unavailable", "failed"]
    print(f"{'':22}" + "".join(f"{b:>14}" for b in results))
    for key in keys:
        if any(key in r for r in results.values()):
            print(f"{key:22}" + "".join(f"{r.get(key, '-'):>14}" for r in results.values()))
    print(f"load average: {os.getloadavg()}")


if __name__ == "__main__":
    main()
