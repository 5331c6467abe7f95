"""A big deck's load in a thread: how long the GIL is kept from the caller's thread (issue 13;
not a test).

    python benchmarks/bench_deck_load.py [--rounds 3] [--cards 30000]

The in-process bridge (Godot 4) runs a slow ``new_match`` in a Python thread while the game's
main thread needs the GIL once a frame (upstream's ``PythonLanguage._frame``). This measures it
without Godot: a "frame" loop in the main thread (sleep 1 ms, then take the GIL) runs while an
``InProcessBridge`` answers two ``new_match`` requests in a row on a synthetic deck (the second
one frees the first match), and reports the longest gap between two "frames". Side by side,
alternating, in one run:

- ``before``: the ways of sorteio 0.1 restored (the deck file's regexes in one call each, the
  cards validated in one pydantic call, the garbage collector on, the previous match freed at
  once in the caller's thread);
- ``now``: windowed regexes, cards in pieces, gc off during the job then ``gc.freeze()``, the
  previous match freed in pieces in a thread.

Also the CLI's path (``sorteio validate`` and ``sorteio lint`` in this process; they use neither
pieces nor the bridge, only the windowed regexes), before and now, so that it is not slower.
The machine is shared: compare the columns of one run (the load average is printed).
"""

import argparse
import contextlib
import gc
import io
import json
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "python"))

from bench_godot4 import load_average  # noqa: E402

from sorteio import jsonfile  # noqa: E402
from sorteio.bridge import inprocess  # noqa: E402
from sorteio.synthetic import synthetic_deck  # noqa: E402

WAYS = ("before", "now")


@contextlib.contextmanager
def way(name: str):
    """Restore sorteio 0.1's ways for ``before`` (module attributes, put back after)."""
    if name == "now":
        yield False
        return
    saved = (jsonfile.WINDOW_CHARS, inprocess._without_gc, inprocess.InProcessBridge._release)
    jsonfile.WINDOW_CHARS = 1 << 40  # one window: one regex call over the whole text
    inprocess._without_gc = contextlib.nullcontext
    inprocess.InProcessBridge._release = lambda self, previous: None  # freed where it drops
    try:
        yield True
    finally:
        jsonfile.WINDOW_CHARS, inprocess._without_gc, inprocess.InProcessBridge._release = saved


def frames_during(deck: Path, before: bool) -> dict:
    """Two new_match in a row through a threaded InProcessBridge, a 1 ms "frame" loop meanwhile.
    Returns the longest gap (ms), the wait (s) and the frames."""
    gc.unfreeze()
    gc.collect()
    bridge = inprocess.InProcessBridge()
    bridge.handler.load_in_pieces = not before
    longest, frames, started = 0.0, 0, time.perf_counter()
    for key in (1, 2):
        text = json.dumps({"id": key, "method": "new_match",
                           "params": {"deck": str(deck), "seed": key}})
        reply = bridge.submit(key, text)
        last = time.perf_counter()
        while not reply:
            time.sleep(0.001)
            now = time.perf_counter()  # the GIL is ours again: the "frame" ran
            longest, last, frames = max(longest, now - last), now, frames + 1
            reply = bridge.take(key)
        assert json.loads(reply)["ok"], reply[:300]
    while any(t.name == "sorteio-release" for t in threading.enumerate()):
        time.sleep(0.001)  # the previous match's release counts too
        now = time.perf_counter()
        longest, last, frames = max(longest, now - last), now, frames + 1
    return {"gap_ms": longest * 1e3, "seconds": time.perf_counter() - started, "frames": frames}


def cli_seconds(deck: Path, command: str) -> float:
    from sorteio.cli import cli

    gc.unfreeze()
    gc.collect()
    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), \
            contextlib.suppress(SystemExit):
        cli.main([command, str(deck)], standalone_mode=False)
    return time.perf_counter() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--cards", type=int, default=30000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-deck-load-") as scratch:
        deck = Path(scratch) / "big.json"
        deck.write_text(synthetic_deck(cards=args.cards).model_dump_json(), encoding="utf-8")
        print(f"{args.cards} cards ({deck.stat().st_size / 1e6:.0f} MB), {args.rounds} rounds, "
              f"load average before: {load_average()}", flush=True)
        samples: dict = {name: {"gap_ms": [], "seconds": [], "validate": [], "lint": []}
                         for name in WAYS}
        for round_ in range(args.rounds):
            for name in WAYS if round_ % 2 == 0 else reversed(WAYS):
                with way(name) as before:
                    run = frames_during(deck, before)
                    validate, lint = cli_seconds(deck, "validate"), cli_seconds(deck, "lint")
                for key, value in (*run.items(), ("validate", validate), ("lint", lint)):
                    samples[name].setdefault(key, []).append(value)
                print(f"  round {round_ + 1} {name:6} longest gap {run['gap_ms']:6.1f} ms, "
                      f"2 new_match {run['seconds']:.2f} s; validate {validate:.2f} s, "
                      f"lint {lint:.2f} s (load average {load_average()})", flush=True)
        print("\n| way | longest gap, median (worst) | 2 new_match | validate | lint |")
        print("|---|---|---|---|---|")
        for name in WAYS:
            got = samples[name]
            print(f"| {name} | {statistics.median(got['gap_ms']):.0f} ms "
                  f"({max(got['gap_ms']):.0f} ms) | {statistics.median(got['seconds']):.2f} s | "
                  f"{statistics.median(got['validate']):.2f} s | "
                  f"{statistics.median(got['lint']):.2f} s |")
        print(f"load average at the end: {load_average()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
