"""Wire format shared by both bridges (documented in addons/sorteio/README.md).

A frame is a 4-byte big-endian unsigned length followed by that many bytes of UTF-8 JSON.
The length counts bytes, not characters, so Portuguese accents survive ("ação" is 6 bytes).

Request: ``{"id": n, "token": "...", "method": "...", "params": {...}}``
Reply:   ``{"id": n, "ok": true, "result": {...}}``
      or ``{"id": n, "ok": false, "error": {"code": "...", "message": "..."}}``

The in-process bridge (godot-python) exchanges the same JSON texts without the length prefix.
Both ways the JSON is strict (RFC 8259): ``NaN``/``Infinity`` and numbers beyond a double's range
(``1e400``) are refused on the way in and never written on the way out, and text is real Unicode
(a lone surrogate such as ``"\\ud800"`` is refused by the handler, naming the field).
"""

import json
import math
import re
import struct
from typing import Any, Dict, Iterator, Optional, Tuple

from ..i18n import _

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
EMPTY_DECK = "empty_deck"  # new_match on a deck with no drawable card (GDD 06 §1)
RULE_ERROR = "rule_error"  # the engine refused (wrong phase, bad option, bad state)
TIMEOUT = "timeout"  # slow work (a deck read or compiled) passed the server's time bound
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
    """``message`` as compact, strict JSON text (accents kept as is) that is valid UTF-8;
    ``FrameError`` when it cannot be (nested too deeply, a NaN or infinite number, a lone
    surrogate in a string), so a reply is never something Godot's JSON parser cannot read."""
    try:
        text = json.dumps(message, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
        text.encode("utf-8")  # a lone surrogate cannot be: refuse it here, not at the socket
    except RecursionError:
        raise FrameError(_("reply cannot be encoded: nested too deeply")) from None
    except UnicodeEncodeError:
        raise FrameError(_("reply cannot be encoded: text with a lone surrogate")) from None
    except (TypeError, ValueError) as exc:
        raise FrameError(_("reply cannot be encoded: {error}").format(error=exc)) from None
    return text


def encode_frame(message: Dict[str, Any]) -> bytes:
    """JSON-encode ``message`` (UTF-8, accents kept as is) and prefix its byte length;
    ``FrameError`` as ``encode_text``, or when the body exceeds ``MAX_FRAME``."""
    body = encode_text(message).encode("utf-8")
    if len(body) > MAX_FRAME:
        raise FrameError(_too_long(len(body)))
    return HEADER.pack(len(body)) + body


def frame_length(header: bytes) -> int:
    """Body length from a 4-byte header; ``FrameError`` when empty or over ``MAX_FRAME``."""
    (length,) = HEADER.unpack(header)
    if length == 0:
        raise FrameError(_("empty frame"))
    if length > MAX_FRAME:
        raise FrameError(_too_long(length), fatal=True)
    return length


def _too_long(length: int) -> str:
    return _("frame of {length} bytes exceeds the {limit}-byte limit").format(length=length,
                                                                              limit=MAX_FRAME)


def decode_body(body: bytes) -> Any:
    """UTF-8 JSON text to a Python value; ``FrameError`` when it is neither."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrameError(_("frame is not UTF-8 text: {reason} at byte {byte}").format(
            reason=exc.reason, byte=exc.start)) from None
    return decode_text(text)


class _NotJsonNumber(ValueError):
    pass


def _refuse_constant(name: str) -> Any:
    raise _NotJsonNumber(_("the number {number} is not JSON").format(number=name))


def _finite_float(literal: str) -> float:
    value = float(literal)
    if not math.isfinite(value):
        raise _NotJsonNumber(_("the number {number} is beyond a double's range").format(
            number=literal))
    return value


def decode_text(text: str) -> Any:
    """Strict JSON text to a Python value; ``FrameError`` when it is not JSON (``NaN`` and
    ``Infinity`` included: Python reads them, JSON and Godot do not), or JSON that cannot be used:
    nested too deeply (``RecursionError``), an integer of thousands of digits (``ValueError``:
    "Exceeds the limit (4300 digits)") or a number beyond a double's range (``1e400``, which would
    be echoed back as ``Infinity``)."""
    try:
        return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:
        raise FrameError(_("frame is not usable JSON: nested too deeply")) from None
    except _NotJsonNumber as exc:
        raise FrameError(_("frame is not usable JSON: {error}").format(error=exc)) from None
    except ValueError as exc:  # JSONDecodeError included (its own text: the json module's)
        raise FrameError(_("frame is not JSON: {error}").format(error=exc)) from None


_SURROGATE = re.compile("[\ud800-\udfff]")


def lone_surrogate(value: Any) -> Optional[Tuple[str, str]]:
    """The first string (a key or a value) in decoded JSON that holds a lone surrogate, as
    ``(field path, the code point written as an escape)``, or None. JSON's ``\\ud800`` escape
    decodes to one; no UTF-8 text can carry it (a file name, a reply). Walks without recursion,
    so any depth ``json`` accepted is fine; paths are built only once one is found."""
    if not _has_lone_surrogate(value):
        return None
    for path, text in _strings(value):
        found = _SURROGATE.search(text)
        if found:
            return ".".join(path) or "(request)", f"\\u{ord(found.group()):04x}"
    return None  # not reached: the first pass found one


def _has_lone_surrogate(value: Any) -> bool:
    # The fast pass over every request: no paths, ASCII strings skipped at C speed.
    stack = [value]
    pop, extend = stack.pop, stack.extend
    search = _SURROGATE.search
    while stack:
        item = pop()
        if isinstance(item, str):
            if not item.isascii() and search(item):
                return True
        elif isinstance(item, dict):
            for key in item:
                if isinstance(key, str) and not key.isascii() and search(key):
                    return True
            extend(item.values())
        elif isinstance(item, list):
            extend(item)
    return False


def _strings(value: Any) -> Iterator[Tuple[Tuple[str, ...], str]]:
    stack = [((), value)]
    while stack:
        path, item = stack.pop()
        if isinstance(item, str):
            if not item.isascii():
                yield path, item
        elif isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and not key.isascii() and _SURROGATE.search(key):
                    yield path, key
                stack.append(((*path, _printable(key)), child))
        elif isinstance(item, list):
            stack.extend(((*path, str(n)), child) for n, child in enumerate(item))


def error_reply(request_id: Optional[Any], code: str, message: str) -> Dict[str, Any]:
    """The reply for a refused request (``request_id`` may be None when it was unreadable)."""
    return {"id": request_id, "ok": False, "error": {"code": code, "message": message}}


def ok_reply(request_id: Optional[Any], result: Dict[str, Any]) -> Dict[str, Any]:
    """The reply for a request that succeeded."""
    return {"id": request_id, "ok": True, "result": result}


def _printable(key: Any) -> str:
    # A path names the field in an error message, which must itself be valid text.
    return _SURROGATE.sub("?", key) if isinstance(key, str) else str(key)
