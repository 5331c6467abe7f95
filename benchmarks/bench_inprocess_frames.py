"""Frames during a slow in-process request on Godot 4 (issue 13; not a test).

    python benchmarks/bench_inprocess_frames.py [--rounds 3] [--cards 30000]

A 30,000-card deck's `new_match` takes seconds of Python work in a thread of the game's own
interpreter (the Python GDExtension, installed into a throwaway project by
scripts/gdextension.sh). While it is awaited the game must keep drawing frames; what spoils
them is the main thread waiting for the GIL, which the work thread keeps through a long C call.
Each round runs tests/godot4/python_bridge_slow.gd once per way of waiting, alternating:

- `take`: the Python class asked `take()` once a frame (how the bridge waited before);
- `semaphore`: `SorteioPythonBridge.request`, waiting on a Semaphore the Python side posts, with
  no call into Python meanwhile.

Prints, per way, the longest gap between two frames (median and worst over the rounds), the
frames per second during the wait and the wait itself, with the load average (`uptime`) of each
round: the machine is shared, compare the two columns of one run, not runs.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from godot4_harness import engine_version, import_project, make_project, run_script  # noqa: E402
from godot4_python_runtime import NOISE, install_extension  # noqa: E402

WAYS = ("take", "semaphore")


def load_average() -> str:
    return subprocess.run(["uptime"], capture_output=True, text=True).stdout.split(
        "load average:")[-1].strip()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cards", type=int, default=30000)
    args = parser.parse_args()
    from sorteio.synthetic import synthetic_deck

    with tempfile.TemporaryDirectory(prefix="bench-frames-") as scratch:
        where = Path(scratch)
        project = make_project(where / "project", name="bench-frames", import_now=False)
        install_extension(project)
        import_project(project, allowed=NOISE)
        deck = where / "big.json"
        deck.write_text(synthetic_deck(cards=args.cards).model_dump_json(), encoding="utf-8")
        print(f"Godot {engine_version()}, {args.cards} cards, {args.rounds} rounds")
        samples = {way: [] for way in WAYS}
        for round_ in range(args.rounds):
            for way in WAYS if round_ % 2 == 0 else reversed(WAYS):
                load = load_average()
                run = run_script(project, "python_bridge_slow.gd", f"--deck={deck}",
                                 f"--wait={way}", home=where / f"h{round_}{way}", allowed=NOISE)
                run.passed("the big deck's new_match succeeds")
                fields = dict(item.split("=") for item in run.lines("SLOW ")[0].split())
                seconds, frames = float(fields["seconds"]), int(fields["frames"])
                gap = float(fields["longest_gap_ms"])
                samples[way].append((gap, frames / seconds, seconds))
                print(f"  round {round_ + 1} {way:9} longest gap {gap:6.0f} ms, "
                      f"{frames / seconds:5.0f} frames/s, wait {seconds:.2f} s "
                      f"(load average {load})")
        print("\n| waiting | longest gap, median (worst) | frames/s, median | wait, median |")
        print("|---|---|---|---|")
        for way in WAYS:
            gaps = [s[0] for s in samples[way]]
            print(f"| {way} | {statistics.median(gaps):.0f} ms ({max(gaps):.0f} ms) | "
                  f"{statistics.median(s[1] for s in samples[way]):.0f} | "
                  f"{statistics.median(s[2] for s in samples[way]):.2f} s |")
        print(f"load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
