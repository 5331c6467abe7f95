"""Wire format shared by both bridges (documented in addons/sorteio/README.md).

A frame is a 4-byte big-endian unsigned length followed by that many bytes of UTF-8 JSON.
The length counts bytes, not characters, so Portuguese accents survive ("ação" is 6 bytes).

Request: ``{"id": n, "token": "...", "method": "...", "params": {...}}``
Reply:   ``{"id": n, "ok": true, "result": {...}}``
      or ``{"id": n, "ok": false, "error": {"code": "...", "message": "..."}}``

The in-process bridge (godot-python) exchanges the same JSON texts without the length prefix.
"""

import json
import struct
from typing import Any, Dict, Optional

HEADER = struct.Struct(">I")
HEADER_SIZE = HEADER.size
MAX_FRAME = 1024 * 1024  # bytes of JSON in one frame, both directions

# Error codes carried in ``error.code``.
BAD_FRAME = "bad_frame"  # not UTF-8, not JSON, empty or oversized
BAD_REQUEST = "bad_request"  # JSON but not a request object, or bad params
UNAUTHORIZED = "unauthorized"  # missing or wrong token
UNKNOWN_METHOD = "unknown_method"
NO_MATCH = "no_match"  # a match method before new_match / load
DECK_ERROR = "deck_error"  # the deck file cannot be used
RULE_ERROR = "rule_error"  # the engine refused (wrong phase, bad option, bad state)
NO_JOB = "no_job"  # simulate_step / simulate_cancel of a job that finished or was cancelled
INTERNAL_ERROR = "internal_error"  # a bug: reported, never fatal to the server


class FrameError(Exception):
    """A frame that cannot be decoded. ``code`` is one of the error codes above; ``fatal`` when
    the stream cannot be resynchronized (an oversized body is never read), so the connection
    must close."""

    def __init__(self, message: str, code: str = BAD_FRAME, fatal: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.fatal = fatal


def encode_text(message: Dict[str, Any]) -> str:
    """``message`` as compact JSON text (accents kept as is); ``FrameError`` when it cannot be
    encoded (e.g. a request id echoed back that is nested too deeply)."""
    try:
        return json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    except RecursionError:
        raise FrameError("reply cannot be encoded: nested too deeply") from None
    except (TypeError, ValueError) as exc:
        raise FrameError(f"reply cannot be encoded: {exc}") from None


def encode_frame(message: Dict[str, Any]) -> bytes:
    """JSON-encode ``message`` (UTF-8, accents kept as is) and prefix its byte length."""
    body = encode_text(message).encode("utf-8")
    if len(body) > MAX_FRAME:
        raise FrameError(f"frame of {len(body)} bytes exceeds the {MAX_FRAME}-byte limit")
    return HEADER.pack(len(body)) + body


def frame_length(header: bytes) -> int:
    """Body length from a 4-byte header; ``FrameError`` when empty or over ``MAX_FRAME``."""
    (length,) = HEADER.unpack(header)
    if length == 0:
        raise FrameError("empty frame")
    if length > MAX_FRAME:
        message = f"frame of {length} bytes exceeds the {MAX_FRAME}-byte limit"
        raise FrameError(message, fatal=True)
    return length


def decode_body(body: bytes) -> Any:
    """UTF-8 JSON text to a Python value; ``FrameError`` when it is neither."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrameError(f"frame is not UTF-8 text: {exc.reason} at byte {exc.start}") from None
    return decode_text(text)


def decode_text(text: str) -> Any:
    """JSON text to a Python value; ``FrameError`` when it is not JSON, or JSON that Python
    refuses to read: nested too deeply (``RecursionError``) or an integer of thousands of digits
    (``ValueError``: "Exceeds the limit (4300 digits)")."""
    try:
        return json.loads(text)
    except RecursionError:
        raise FrameError("frame is not usable JSON: nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError included
        raise FrameError(f"frame is not JSON: {exc}") from None


def error_reply(request_id: Optional[Any], code: str, message: str) -> Dict[str, Any]:
    """The reply for a refused request (``request_id`` may be None when it was unreadable)."""
    return {"id": request_id, "ok": False, "error": {"code": code, "message": message}}


def ok_reply(request_id: Optional[Any], result: Dict[str, Any]) -> Dict[str, Any]:
    """The reply for a request that succeeded."""
    return {"id": request_id, "ok": True, "result": result}
