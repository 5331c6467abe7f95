"""Benchmark (not a test): the same draw called in-process from Python.

Three levels, the same matches as benchmarks/bridge_socket.gd (seeds 1, 2, ...; first shown
option): the JSON text entry godot-python calls (``InProcessBridge.request``), the request
handler on dicts, and ``Engine.draw`` itself (the oracle,
the engine the handler uses). Prints one
``BENCH {json}`` line per level.

    python benchmarks/bridge_inprocess.py [--draws 2000]
"""

import argparse
import json
import time
from typing import Callable, Dict, List

from sorteio.bridge.handler import RequestHandler
from sorteio.bridge.inprocess import InProcessBridge
from sorteio.engine import Engine
from sorteio.loader import load_deck


def report(name: str, times: List[int]) -> Dict[str, object]:
    times = sorted(times)
    total = sum(times)
    result = {
        "name": name,
        "n": len(times),
        "p50_us": round(times[int(len(times) * 0.50)] / 1000, 1),
        "p99_us": round(times[min(len(times) - 1, int(len(times) * 0.99))] / 1000, 1),
        "mean_us": round(total / len(times) / 1000, 1),
        "per_second": round(len(times) / (total / 1e9)),
    }
    print("BENCH " + json.dumps(result, ensure_ascii=False))
    return result


def via_requests(call: Callable[[str, dict], dict], draws: int) -> List[int]:
    times: List[int] = []
    seed = 1
    while len(times) < draws:
        call("new_match", {"seed": seed})
        seed += 1
        while len(times) < draws:
            state = call("state", {})
            if state["ending"] is not None:
                break
            if state["snapshot"]["phase"] == "turn_start":
                call("start_turn", {})
            before = time.perf_counter_ns()
            result = call("draw", {})
            elapsed = time.perf_counter_ns() - before
            if result["draw"] is not None:
                times.append(elapsed)
                call("choose", {"option": result["draw"]["option_order"][0]})
    return times


def engine_draws(draws: int) -> List[int]:
    deck = load_deck(None)
    times: List[int] = []
    seed = 1
    while len(times) < draws:
        engine = Engine(deck, seed=seed)
        seed += 1
        while engine.phase != "ended" and len(times) < draws:
            if engine.phase == "turn_start":
                engine.start_turn()
            before = time.perf_counter_ns()
            draw = engine.draw()
            elapsed = time.perf_counter_ns() - before
            if draw is not None:
                times.append(elapsed)
                engine.choose(draw.option_order[0])
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--draws", type=int, default=2000)
    args = parser.parse_args()

    bridge = InProcessBridge()
    counter = iter(range(1, 1 << 30))

    def json_call(method: str, params: dict) -> dict:
        text = json.dumps({"id": next(counter), "method": method, "params": params})
        return json.loads(bridge.request(text))["result"]

    handler = RequestHandler()

    def dict_call(method: str, params: dict) -> dict:
        return handler.handle({"id": 1, "method": method, "params": params})["result"]

    report(
        "in-process draw, JSON text (what godot-python calls)", via_requests(json_call, args.draws)
    )
    report("in-process draw, request handler on dicts", via_requests(dict_call, args.draws))
    report("Engine.draw alone", engine_draws(args.draws))


if __name__ == "__main__":
    main()
