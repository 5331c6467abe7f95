"""Speed of the draw (issue 4): prints the figures docs/simulator.md reports.

For the default deck and a large synthetic deck (500 common cards, 20 modes, 12 actors):

- matches per second on one core, random player: the pure-Python simulation kernel
  (``kernel.play_matches``; the compiled one is measured by ``bench_kernels.py``),
  next to the ``Engine`` oracle driven by ``match.play_match`` (ratios in the same run, same
  machine state);
- draws per second (cards shown per second by the kernel);
- one draw as the Godot SorteioNode asks for it: ``engine.draw()`` alone, and the whole in-process
  bridge request (JSON in, engine, JSON out), p50/p99 in microseconds (the oracle, as the
  bridges use it since issue 16);
- the full GDD 06 §7 safe-range sweep: N 6-8 x T 2-4 x meter limit 25-35 = 99 scenarios x 3,000
  matches, on every core (``sweep.run_sweep`` defaults).

Usage: python benchmarks/bench_sorteio.py [--quick] [--no-sweep] [--json FILE] [--sweep-only N]
Run it on an idle machine: other processes on the same cores lower every figure.
"""

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))

from sorteio.bridge.inprocess import InProcessBridge
from sorteio.compiled import CompiledDeck
from sorteio.engine import DRAWING, ENDED, TURN_START, Engine
from sorteio.loader import load_deck
from sorteio.match import make_policy, play_match
from sorteio.sim.kernel import play_matches
from sorteio.sim.masks import FastDeck
from sorteio.sim.sweep import default_jobs, run_sweep
from sorteio.synthetic import synthetic_deck

SAFE_RANGES = {
    "cartas_por_turno": [6, 7, 8],
    "teto_obrigatorias": [2, 3, 4],
    "limite_medidor": list(range(25, 36)),
}


def kernel_rate(deck, matches):
    fd = FastDeck(CompiledDeck(deck))
    play_matches(fd, range(200))  # warm-up
    start = time.perf_counter()
    tally = play_matches(fd, range(matches), "random")
    seconds = time.perf_counter() - start
    return matches / seconds, tally.cards_played / seconds


def _maker(deck, cls):
    """Engines of ``deck`` sharing one compiled index, so a match costs only its rules (Engine
    alone would compile the deck, fingerprint included, for every match)."""
    ix = CompiledDeck(deck)
    class SharedIndexEngine(Engine):
        def _compile(self, deck):
            return ix

    return lambda seed: SharedIndexEngine(deck, seed)


def loop_rate(deck, cls, matches):
    make = _maker(deck, cls)
    start = time.perf_counter()
    for seed in range(matches):
        play_match(deck, seed, "random", engine=make(seed))
    return matches / (time.perf_counter() - start)


def percentiles(samples_ns):
    samples = sorted(samples_ns)
    p = lambda q: samples[min(len(samples) - 1, int(q * len(samples)))] / 1000  # noqa: E731
    return {
        "p50_us": round(p(0.50), 2),
        "p99_us": round(p(0.99), 2),
        "max_us": round(samples[-1] / 1000, 1),
        "draws": len(samples),
    }


def engine_draw_latency(deck, cls, matches):
    """``engine.draw()`` alone, every call of whole matches (mandatory, random and closing)."""
    make = _maker(deck, cls)
    clock = time.perf_counter_ns
    samples = []
    for seed in range(matches):
        engine = make(seed)
        chooser = make_policy("random", seed)
        while engine.phase != ENDED:
            if engine.phase == TURN_START:
                engine.start_turn()
                continue
            assert engine.phase == DRAWING
            t0 = clock()
            draw = engine.draw()
            samples.append(clock() - t0)
            if draw is not None:
                engine.choose(chooser(engine, draw))
    return percentiles(samples)


def bridge_draw_latency(deck_name, cls, matches):
    """The in-process bridge request the SorteioNode sends: JSON text in, JSON text out."""
    bridge = InProcessBridge(engine_cls=cls)
    clock = time.perf_counter_ns
    samples = []
    draw_request = json.dumps({"id": 1, "method": "draw"})
    for seed in range(matches):
        bridge.request(
            json.dumps(
                {"id": 0, "method": "new_match", "params": {"deck": deck_name, "seed": seed}}
            )
        )
        chooser = make_policy("random", seed)
        engine = bridge.handler.engine
        while engine.phase != ENDED:
            if engine.phase == TURN_START:
                bridge.request('{"id": 2, "method": "start_turn"}')
                continue
            t0 = clock()
            reply = bridge.request(draw_request)
            samples.append(clock() - t0)
            draw = engine.current
            if draw is not None and engine.phase == "awaiting_choice":
                option = chooser(engine, draw)
                bridge.request(
                    json.dumps({"id": 3, "method": "choose", "params": {"option": option}})
                )
            assert "error" not in json.loads(reply), reply
    return percentiles(samples)


def sweep_seconds(deck, matches):
    start = time.perf_counter()
    result = run_sweep(deck, SAFE_RANGES, matches=matches, seed=0)
    seconds = time.perf_counter() - start
    flagged = sum(r.flagged for r in result.scenarios)
    return seconds, len(result.scenarios), flagged


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer matches (a smoke run)")
    parser.add_argument("--no-sweep", action="store_true", help="skip the 99-scenario sweeps")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    parser.add_argument("--sweep-only", type=int, default=0, metavar="TIMES",
                        help="only time the default deck's §7 sweep, TIMES times in a row")
    args = parser.parse_args()
    if args.sweep_only:
        deck = load_deck("padrao")
        for _ in range(args.sweep_only):
            load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
            seconds, scenarios, _flagged = sweep_seconds(deck, 3000)
            print(f"§7 sweep on padrao: {scenarios} x 3000 matches in {seconds:.1f} s "
                  f"({default_jobs()} processes; load average before: {load:.2f})")
        return
    scale = 0.1 if args.quick else 1.0
    decks = {
        "padrao (default)": ("padrao", load_deck("padrao")),
        "synthetic 500/20/12": (None, synthetic_deck(cards=500, modes=20, actors=12, seed=1)),
    }
    print(
        f"Python {platform.python_version()} on {platform.machine()}, "
        f"{default_jobs()} core(s) for the sweep, load average "
        f"{os.getloadavg()[0]:.2f}"
        if hasattr(os, "getloadavg")
        else ""
    )
    figures = {}
    for label, (name, deck) in decks.items():
        n_cards = len(deck.cartas)
        kernel, draws = kernel_rate(deck, int(20000 * scale))
        oracle = loop_rate(deck, Engine, int(300 * scale))
        row = {
            "cards": n_cards,
            "kernel_matches_per_s": round(kernel),
            "kernel_draws_per_s": round(draws),
            "engine_matches_per_s": round(oracle),
            "draw_engine": engine_draw_latency(deck, Engine, int(100 * scale) or 5),
        }
        if name is not None:
            row["bridge_draw_engine"] = bridge_draw_latency(name, None, int(300 * scale) or 5)
        if not args.no_sweep:
            seconds, scenarios, flagged = sweep_seconds(deck, int(3000 * scale))
            row["sweep_seconds"] = round(seconds, 2)
            row["sweep_scenarios"] = scenarios
            row["sweep_matches_per_scenario"] = int(3000 * scale)
            row["sweep_flagged_over_4pp"] = flagged
        figures[label] = row
        print(f"\n== {label}: {n_cards} cards")
        print(
            f"  matches/s, 1 core, random player: Python kernel {kernel:,.0f} | "
            f"Engine (oracle) {oracle:,.0f}  "
            f"(kernel = {kernel / oracle:.0f}x oracle)"
        )
        print(f"  draws/s (kernel): {draws:,.0f}")
        for key in (
            "draw_engine",
            "bridge_draw_engine",
        ):
            if key in row:
                d = row[key]
                print(
                    f"  {key:24s} p50 {d['p50_us']:7.2f} us  p99 {d['p99_us']:7.2f} us  "
                    f"max {d['max_us']:8.1f} us  ({d['draws']} draws)"
                )
        if "sweep_seconds" in row:
            print(
                f"  §7 sweep: {row['sweep_scenarios']} scenarios x "
                f"{row['sweep_matches_per_scenario']} matches in {row['sweep_seconds']:.1f} s "
                f"on {default_jobs()} process(es); {row['sweep_flagged_over_4pp']} flagged "
                f"over 4 points"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=1), encoding="utf-8")


if __name__ == "__main__":
    main()
