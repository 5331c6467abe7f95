"""How long another client waits for ``ping`` while one client's ``new_match`` loads a big deck.

Issue 10: a slow ``new_match`` (a 10k-card deck) used to block every client of ``sorteio serve``,
past the Godot node's 5 s request timeout. Starts the real server (``python -m
sorteio.bridge.server``), writes a synthetic deck, and prints the slow request's time and the
other client's ping times (p50 / max) during it.

    .venv/bin/python benchmarks/bridge_concurrency.py [--cards 10000]
"""

import argparse
import json
import socket
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from sorteio.synthetic import synthetic_deck


def call(sock: socket.socket, request: dict) -> dict:
    body = json.dumps(request).encode()
    sock.sendall(struct.pack(">I", len(body)) + body)
    header = _exactly(sock, 4)
    return json.loads(_exactly(sock, struct.unpack(">I", header)[0]))


def _exactly(sock: socket.socket, n: int) -> bytes:
    data = b""
    while len(data) < n:
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionError("closed")
        data += chunk
    return data


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cards", type=int, default=10000)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp())
    deck = folder / "big.json"
    deck.write_text(synthetic_deck(cards=args.cards).model_dump_json(), encoding="utf-8")
    port_file = folder / "bridge.json"
    proc = subprocess.Popen([sys.executable, "-m", "sorteio.bridge.server", "--port-file",
                             str(port_file)], stderr=subprocess.DEVNULL)
    try:
        while not port_file.exists():
            time.sleep(0.02)
        info = json.loads(port_file.read_text())
        address = ("127.0.0.1", info["port"])
        slow = socket.create_connection(address, timeout=120)
        other = socket.create_connection(address, timeout=120)
        call(other, {"id": 0, "token": info["token"], "method": "ping"})
        took = {}

        def ask() -> None:
            started = time.perf_counter()
            reply = call(slow, {"id": 1, "token": info["token"], "method": "new_match",
                                "params": {"deck": str(deck), "seed": 1}})
            took["new_match"] = time.perf_counter() - started
            took["ok"] = reply["ok"]

        asker = threading.Thread(target=ask)
        asker.start()
        time.sleep(0.05)
        pings = []
        while asker.is_alive():
            started = time.perf_counter()
            call(other, {"id": 2, "token": info["token"], "method": "ping"})
            pings.append(time.perf_counter() - started)
            time.sleep(0.05)
        asker.join()
    finally:
        proc.kill()
        proc.wait()
    print(f"deck: {args.cards} synthetic cards, {deck.stat().st_size / 1e6:.1f} MB")
    print(f"new_match: {took['new_match']:.2f} s (ok={took['ok']})")
    if pings:
        print(f"other client's ping during it: {len(pings)} pings, "
              f"p50 {statistics.median(pings) * 1000:.1f} ms, max {max(pings) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
