"""Cost of loading a save (issue 14): the fast path (a save of this very deck) next to a save of
an earlier version of the deck (``sorteio.upgrade`` adapts it first) and its re-save on the new
deck (format 2, judged on deck-independent history only), in the same run.

The save: default deck, seed 0, year 2 mid-turn; the new version drops 8 cards, among them cards
the save showed. Prints p50 / p99 in microseconds of ``Engine.from_state`` and the load average.

Usage: python benchmarks/bench_upgrade.py [--rounds N]
"""

import argparse
import copy
import os
import time

from sorteio import load_deck
from sorteio.deck import Deck
from sorteio.engine import ENDED, Engine
from sorteio.match import make_policy


def _save(deck):
    engine, chooser = Engine(deck, 0), make_policy("random", 0)
    while engine.phase != ENDED and not (engine.year == 2 and engine.slot == 3):
        if engine.phase == "turn_start":
            engine.start_turn()
        elif engine.phase == "awaiting_choice":
            engine.choose(chooser(engine, engine.current))
        else:
            engine.draw()
    return engine.to_state()


def _times(deck, data, rounds):
    times = []
    for _ in range(rounds):
        fresh = copy.deepcopy(data)
        start = time.perf_counter()
        Engine.from_state(deck, fresh)
        times.append(time.perf_counter() - start)
    times.sort()
    return times[len(times) // 2] * 1e6, times[int(len(times) * 0.99)] * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=500)
    args = parser.parse_args()
    old = load_deck("padrao")
    saved = _save(old)
    raw = old.model_dump(mode="json")
    gone = set(saved["played"][:6]) | {"eco-07", "pol-05"}
    raw["cartas"] = [c for c in raw["cartas"] if c["id"] not in gone]
    new = Deck.model_validate(raw)
    resaved = Engine.from_state(new, copy.deepcopy(saved)).to_state()
    rows = [("save of this deck (fast path)", old, saved),
            ("save of the earlier version (adapted)", new, saved),
            ("its re-save on the new version (format 2)", new, resaved)]
    for _label, deck, data in rows:  # warm-up: caches (compiled decks, fingerprints) filled
        _times(deck, data, 20)
    for label, deck, data in rows:
        p50, p99 = _times(deck, data, args.rounds)
        print(f"{label:44s} p50 {p50:7.0f} µs   p99 {p99:7.0f} µs")
    print("load average", " ".join(f"{v:.1f}" for v in os.getloadavg()))


if __name__ == "__main__":
    main()
