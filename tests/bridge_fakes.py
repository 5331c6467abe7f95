"""Helpers for the bridge tests: a stand-in engine (keeps the socket tests independent of the
rules) and a client that speaks the bridge's framing."""

import json
import socket
import struct
import time
from typing import Any, Dict, Optional

from sorteio.loader import SorteioError


class _Result:
    def __init__(self, data: Dict[str, Any]) -> None:
        self._data = data

    def to_dict(self) -> Dict[str, Any]:
        return dict(self._data)


class FakeEngine:
    """Follows the Engine contract loosely: 2 turns of 2 cards, one card 'Ação' with accents."""

    def __init__(self, deck: Any, seed: int = 0) -> None:
        self.deck, self.seed = deck, seed
        self.phase, self.year, self.slot = "turn_start", 1, 0
        self.meters = {m.id: m.inicial for m in deck.medidores}
        self.ending: Optional[_Result] = None
        self.last_turn_end: Optional[_Result] = None

    def snapshot(self) -> Dict[str, Any]:
        return {
            "year": self.year,
            "phase": self.phase,
            "slot": self.slot,
            "meters": dict(self.meters),
            "actors": {},
        }

    def start_turn(self) -> _Result:
        if self.phase != "turn_start":
            raise SorteioError(f"cannot start a turn in phase {self.phase}")
        self.phase, self.slot = "drawing", 0
        return _Result({"year": self.year, "mandatory": []})

    def draw(self) -> Optional[_Result]:
        if self.phase != "drawing":
            raise SorteioError(f"cannot draw in phase {self.phase}")
        if self.slot == 2:
            self.last_turn_end = _Result(
                {"year": self.year, "cards": 2, "short": False, "meters": dict(self.meters)}
            )
            if self.year == 2:
                self.phase = "ended"
                self.ending = _Result(
                    {
                        "reason": "end_of_mandate",
                        "year": 2,
                        "cards_played": 4,
                        "short": False,
                        "meters": dict(self.meters),
                    }
                )
            else:
                self.phase, self.year = "turn_start", self.year + 1
            return None
        self.slot += 1
        self.phase = "awaiting_choice"
        card = {
            "id": f"c{self.year}{self.slot}",
            "titulo": "Ação já",
            "texto": "Coração",
            "opcoes": [{"texto": "Sim"}, {"texto": "Não"}],
        }
        return _Result(
            {
                "year": self.year,
                "slot": self.slot,
                "card_id": card["id"],
                "card": card,
                "reason": {"kind": "random"},
                "option_order": [1, 0],
            }
        )

    def choose(self, option: int) -> _Result:
        if self.phase != "awaiting_choice":
            raise SorteioError("no card awaits a choice")
        if option not in (0, 1):
            raise SorteioError(f"option {option} out of range")
        self.phase = "drawing"
        return _Result(
            {
                "card_id": "x",
                "option": option,
                "meters": dict(self.meters),
                "actors": {},
                "ended": False,
            }
        )

    def to_state(self) -> Dict[str, Any]:
        return {"phase": self.phase, "year": self.year, "slot": self.slot}

    @classmethod
    def from_state(cls, deck: Any, state: Dict[str, Any]) -> "FakeEngine":
        engine = cls(deck)
        engine.phase, engine.year, engine.slot = state["phase"], state["year"], state["slot"]
        return engine


class Client:
    """A blocking client for the socket bridge (big-endian length + UTF-8 JSON)."""

    def __init__(self, port: int, token: Optional[str] = None, timeout: float = 5.0) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.token = token
        self.next_id = 0

    def close(self) -> None:
        self.sock.close()

    def send_raw(self, data: bytes) -> None:
        self.sock.sendall(data)

    def send_body(self, body: bytes) -> None:
        self.send_raw(struct.pack(">I", len(body)) + body)

    def recv_reply(self) -> Optional[Dict[str, Any]]:
        """The next reply, or None when the server closed the connection."""
        header = self._recv_exactly(4)
        if header is None:
            return None
        (length,) = struct.unpack(">I", header)
        body = self._recv_exactly(length)
        assert body is not None, "connection closed inside a reply"
        return json.loads(body.decode("utf-8"))

    def _recv_exactly(self, n: int) -> Optional[bytes]:
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data

    def call(
        self, method: str, params: Optional[Dict[str, Any]] = None, token: Optional[str] = None
    ) -> Dict[str, Any]:
        self.next_id += 1
        request = {
            "id": self.next_id,
            "token": token or self.token,
            "method": method,
            "params": params or {},
        }
        self.send_body(json.dumps(request, ensure_ascii=False).encode("utf-8"))
        reply = self.recv_reply()
        assert reply is not None, f"server closed the connection on {method}"
        return reply


def wait_reply(bridge, key: int, limit: float = 10.0) -> Dict[str, Any]:
    """The in-process bridge's reply to request ``key`` (``bridge.take`` polled every 5 ms),
    decoded; AssertionError after ``limit`` seconds."""
    end = time.monotonic() + limit
    while time.monotonic() < end:
        text = bridge.take(key)
        if text:
            return json.loads(text)
        time.sleep(0.005)
    raise AssertionError(f"no reply for {key} within {limit} s")
