"""How the cost of each deck operation grows with the deck (issue 10, "Cost that grows").

For synthetic decks (``sorteio.synthetic.synthetic_deck``) of each size (default 1k, 10k and 30k
cards; one mode per 10 cards, 6 actors, 8 meters), in a fresh process per size and source tree:

- validate: ``load_deck`` of the deck file (JSON + pydantic);
- new_match / load: the bridge requests (``RequestHandler``), from the file, as the Godot node
  sends them (``load`` of a state saved after one card);
- lint: ``lint_deck`` of a freshly loaded deck object (so its compile is counted);
- simulate: ``run_sweep`` of 50 matches in this process (``jobs=1``), fresh deck object;
- fastdeck: memory of the bitmask deck (``FastDeck``) alone, deep size of its attributes.

Each operation prints its seconds (best of ``--repeat``) and its peak traced memory (tracemalloc,
a separate run so it does not slow the timing), then the growth from one size to the next next to
the growth of the deck: an operation linear in the deck grows as the cards do.

``--src DIR`` (repeatable) measures another checkout's ``python/`` folder, e.g. the commit before a
change (``git worktree add /tmp/old <commit>``), side by side in the same run.

Usage: python benchmarks/growth.py [--sizes 1000,10000,30000] [--repeat 1] [--modes each]
       [--src DIR ...]
"""

import argparse
import gc
import json
import os
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

HERE = Path(__file__).resolve().parents[1] / "python"
OPS = ("validate", "new_match", "load", "lint", "simulate")


def _deep_bytes(x, seen) -> int:
    if id(x) in seen:
        return 0
    seen.add(id(x))
    if hasattr(x, "dense") and hasattr(x, "cards"):  # masks.MaskTable
        return _deep_bytes(x.dense, seen) + _deep_bytes(x.cards, seen)
    size = sys.getsizeof(x)
    if isinstance(x, (list, tuple)):
        size += sum(_deep_bytes(item, seen) for item in x)
    return size


def worker(size: int, repeat: int) -> dict:
    """One size, in this process (run by the parent as a subprocess)."""
    from sorteio.bridge.handler import RequestHandler
    from sorteio.compiled import CompiledDeck
    from sorteio.lint import lint_deck
    from sorteio.loader import load_deck
    from sorteio.sim.masks import FastDeck
    from sorteio.sim.sweep import run_sweep
    from sorteio.synthetic import synthetic_deck

    folder = Path(tempfile.mkdtemp(prefix="sorteio-growth-"))
    path = folder / "deck.json"
    modes = size if os.environ.get("GROWTH_MODES") == "each" else max(10, size // 10)
    path.write_text(synthetic_deck(cards=size, modes=modes, actors=6, seed=1)
                    .model_dump_json(), encoding="utf-8")
    handler = RequestHandler()
    handler.handle({"method": "new_match", "params": {"deck": str(path), "seed": 1}})
    handler.handle({"method": "start_turn"})
    handler.handle({"method": "draw"})
    state = handler.handle({"method": "save"})["result"]["state"]

    def ok(reply):
        assert "result" in reply, reply

    ops = {
        "validate": lambda: load_deck(str(path)),
        "new_match": lambda: ok(handler.handle(
            {"method": "new_match", "params": {"deck": str(path), "seed": 1}})),
        "load": lambda: ok(handler.handle({"method": "load", "params": {"state": state}})),
        "lint": lambda: lint_deck(load_deck(str(path))),
        "simulate": lambda: run_sweep(load_deck(str(path)), {}, 50, jobs=1),
    }
    out = {"size": size, "seconds": {}, "peak_mb": {}}
    for name, op in ops.items():
        best = float("inf")
        for _ in range(repeat):
            gc.collect()
            start = time.perf_counter()
            op()
            best = min(best, time.perf_counter() - start)
        out["seconds"][name] = best
    tracemalloc.start()
    for name, op in ops.items():
        gc.collect()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        op()
        out["peak_mb"][name] = (tracemalloc.get_traced_memory()[1] - base) / 1e6
    tracemalloc.stop()
    fd = FastDeck(CompiledDeck(load_deck(str(path))))
    seen: set = set()
    out["fastdeck_mb"] = sum(_deep_bytes(v, seen) for k, v in vars(fd).items()
                             if k != "index") / 1e6
    path.unlink()
    folder.rmdir()
    return out


def run(src: Path, size: int, repeat: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src))
    proc = subprocess.run([sys.executable, __file__, "--worker", str(size), "--repeat",
                           str(repeat)], env=env, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{src} at {size} cards failed:\n{proc.stderr}")
    return json.loads(proc.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,30000")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--src", action="append", type=Path,
                        help="a python/ folder to measure (default: this checkout's)")
    parser.add_argument("--modes", choices=("tenth", "each"), default="tenth",
                        help="one mode per 10 cards (default) or one per card (issue 16)")
    parser.add_argument("--worker", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(worker(args.worker, args.repeat)))
        return
    sizes = [int(s) for s in args.sizes.split(",")]
    os.environ["GROWTH_MODES"] = args.modes  # read by the worker processes
    sources = args.src or [HERE]
    results = {}
    for size in sizes:  # sources interleaved per size: same machine state for both
        for src in sources:
            results[src, size] = run(src, size, args.repeat)
    for src in sources:
        print(f"\n{src}")
        print(f"{'cards':>7} " + " ".join(f"{op + ' s':>12}" for op in OPS)
              + " " + " ".join(f"{op + ' MB':>12}" for op in OPS) + f" {'fastdeck MB':>12}")
        for size in sizes:
            r = results[src, size]
            print(f"{size:>7} " + " ".join(f"{r['seconds'][op]:>12.3f}" for op in OPS) + " "
                  + " ".join(f"{r['peak_mb'][op]:>12.1f}" for op in OPS)
                  + f" {r['fastdeck_mb']:>12.2f}")
        for small, big in zip(sizes, sizes[1:]):
            a, b = results[src, small], results[src, big]
            growth = " ".join(f"{b['seconds'][op] / a['seconds'][op]:>11.1f}x" for op in OPS)
            mem = " ".join(f"{b['peak_mb'][op] / max(a['peak_mb'][op], 1e-9):>11.1f}x"
                           for op in OPS)
            fast = b["fastdeck_mb"] / a["fastdeck_mb"]
            print(f"{'x' + format(big / small, 'g'):>7} {growth} {mem} {fast:>11.1f}x"
                  f"   (growth; cards x{big / small:g})")


if __name__ == "__main__":
    main()
