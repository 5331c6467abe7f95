"""Frames during a slow in-process request on Godot 4 (issue 13; not a test).

    python benchmarks/bench_inprocess_frames.py [--rounds 3] [--cards 30000]
    python benchmarks/bench_inprocess_frames.py --before REF [--repeat 2]

A 30,000-card deck's `new_match` takes seconds of Python work in a thread of the game's own
interpreter (the Python GDExtension, installed into a throwaway project by
scripts/gdextension.sh). While it is awaited the game must keep drawing frames; what spoils
them is the main thread waiting for the GIL, which the work thread keeps through a long C call.
Each round runs tests/godot4/python_bridge_slow.gd once per way of waiting, alternating:

- `take`: the Python class asked `take()` once a frame (how the bridge waited before);
- `semaphore`: `SorteioPythonBridge.request`, waiting on a Semaphore the Python side posts, with
  no call into Python meanwhile.

`--before REF` compares sorteio's Python side at the git commit REF (its `python/sorteio`, put in
place of this tree's in a second project's runtime) with this tree's instead, both waiting on the
Semaphore; `--repeat 2` makes each run two `new_match` in a row (the second one frees the first
match) and count 1 s of frames after.

Prints, per way, the longest gap between two frames (median and worst over the rounds), the
frames per second during the wait and the wait itself, with the load average (`uptime`) of each
round: the machine is shared, compare the two columns of one run, not runs.
"""

import argparse
import io
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

from bench_godot4 import load_average  # noqa: E402

from godot4_harness import engine_version, import_project, make_project, run_script  # noqa: E402
from godot4_python_runtime import EXT, NOISE, install_extension  # noqa: E402

SITE = EXT / "bin/linux-x86_64/python3.12/site-packages"


def sorteio_at(project: Path, ref: str) -> None:
    """Put sorteio's Python package as it was at the git commit ``ref`` in ``project``'s runtime."""
    archive = subprocess.run(["git", "-C", str(HERE.parent), "archive", ref, "python/sorteio"],
                             capture_output=True, check=True).stdout
    unpacked = project.parent / f"sorteio-{ref}"
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(unpacked, filter="data")
    shutil.rmtree(project / SITE / "sorteio")
    shutil.copytree(unpacked / "python/sorteio", project / SITE / "sorteio")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cards", type=int, default=30000)
    parser.add_argument("--before", metavar="REF",
                        help="compare sorteio at this git commit with this tree (Semaphore both)")
    parser.add_argument("--repeat", type=int, default=1, help="new_match in a row per run")
    args = parser.parse_args()
    from sorteio.synthetic import synthetic_deck

    with tempfile.TemporaryDirectory(prefix="bench-frames-") as scratch:
        where = Path(scratch)
        project = make_project(where / "project", name="bench-frames", import_now=False)
        install_extension(project)
        import_project(project, allowed=NOISE)
        # way -> (project, how the bridge waits)
        ways = {"take": (project, "take"), "semaphore": (project, "semaphore")}
        if args.before:
            before = make_project(where / "before", name="bench-frames", import_now=False)
            install_extension(before)
            sorteio_at(before, args.before)
            import_project(before, allowed=NOISE)
            ways = {f"before ({args.before})": (before, "semaphore"),
                    "now": (project, "semaphore")}
        names = list(ways)
        deck = where / "big.json"
        deck.write_text(synthetic_deck(cards=args.cards).model_dump_json(), encoding="utf-8")
        print(f"Godot {engine_version()}, {args.cards} cards, {args.rounds} rounds, "
              f"{args.repeat} new_match per run")
        samples: dict = {way: [] for way in names}
        for round_ in range(args.rounds):
            for number, way in enumerate(names if round_ % 2 == 0 else reversed(names)):
                load = load_average()
                where_, wait = ways[way]
                run = run_script(where_, "python_bridge_slow.gd", f"--deck={deck}",
                                 f"--wait={wait}", f"--repeat={args.repeat}",
                                 home=where / f"h{round_}{number}", allowed=NOISE)
                run.passed("the big deck's new_match succeeds")
                fields = dict(item.split("=") for item in run.lines("SLOW ")[0].split())
                seconds, frames = float(fields["seconds"]), int(fields["frames"])
                gap = float(fields["longest_gap_ms"])
                samples[way].append((gap, frames / seconds, seconds))
                print(f"  round {round_ + 1} {way:15} longest gap {gap:6.0f} ms, "
                      f"{frames / seconds:5.0f} frames/s, wait {seconds:.2f} s "
                      f"(load average {load})")
        print("\n| waiting | longest gap, median (worst) | frames/s, median | wait, median |")
        print("|---|---|---|---|")
        for way in names:
            gaps = [s[0] for s in samples[way]]
            print(f"| {way} | {statistics.median(gaps):.0f} ms ({max(gaps):.0f} ms) | "
                  f"{statistics.median(s[1] for s in samples[way]):.0f} | "
                  f"{statistics.median(s[2] for s in samples[way]):.2f} s |")
        print(f"load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
