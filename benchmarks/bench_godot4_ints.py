"""Godot 4: the cost per reply of turning whole numbers into ints (issue 13; not a test).

    python benchmarks/bench_godot4_ints.py [--rounds 2000]

A real draw reply (the handler's `draw` answer mid-match, as JSON text) is parsed by Godot 4's
JSON N times in one headless process (tests/godot4/bench_ints.gd): parsing alone, parsing plus
one walk (SorteioBridge.whole_numbers_as_ints, what every reply gets now), and parsing plus the
two walks an in-process reply had before (the bridge's, then the node's). Side by side in one
run; prints microseconds per reply and the load average (`uptime`).
"""

import argparse
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from godot4_harness import make_project, run_godot  # noqa: E402
from sorteio.bridge.handler import RequestHandler  # noqa: E402


def draw_reply() -> str:
    handler = RequestHandler()
    for method, params in (("new_match", {"seed": 7}), ("start_turn", {}), ("draw", {})):
        reply = handler.handle({"id": 1, "method": method, "params": params})
        assert reply["ok"], reply
    return json.dumps(reply)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        project = make_project(Path(tmp) / "bench", name="bench ints", autoload=False)
        reply = Path(tmp) / "draw.json"
        reply.write_text(draw_reply(), encoding="utf-8")
        run = run_godot(project, ["-s", "res://tests/bench_ints.gd", "--", f"--reply={reply}",
                                  f"--rounds={args.rounds}"], Path(tmp) / "home", timeout=600)
    figures = dict(re.findall(r"^BENCH (\w+) ([\d.]+)", run.log, re.M))
    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"draw reply: {figures['bytes']} bytes, {figures['rounds']} rounds; {load}")
    parse, once, twice = (float(figures[k]) for k in ("parse_us", "once_us", "twice_us"))
    print(f"JSON parse alone                  {parse:8.1f} us")
    print(f"parse + one walk (now)            {once:8.1f} us   walk {once - parse:6.1f} us")
    print(f"parse + two walks (before)        {twice:8.1f} us   walks {twice - parse:6.1f} us")
    print(f"the walks now / before: {(once - parse) / max(twice - parse, 1e-9):.2f}")


if __name__ == "__main__":
    main()
