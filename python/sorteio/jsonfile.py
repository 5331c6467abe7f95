"""Reading a user's JSON file (a deck, a saved match) without hanging, crashing or guessing.

- Only regular files are read, at most ``MAX_FILE_BYTES``: a FIFO would block forever and
  ``/dev/zero`` would fill the memory. The file is opened non-blocking, so even a FIFO's ``open``
  returns at once; the check is on the opened file (``fstat``), not on the path.
- Text must be UTF-8 (a leading BOM is accepted); a bad byte is named by line and column.
- Syntax errors and absurd nesting name the line and column.
- Problems json would accept silently or crash on later are reported with their path in the data,
  as ``Problem(loc, message)``, instead of stopping the read, so the caller can report them beside
  its own validation errors: duplicate keys (json keeps the last one silently), integers too long
  to convert (CPython refuses more than 4,300 digits), lone surrogates (``"\\ud800"``), which are
  not Unicode text and cannot be encoded again.

Every failure raises ``JsonFileError`` (a ``SorteioError``): ``path``, ``where`` (``(file)`` or
``(line L, column C)``) and ``message``.
"""

import errno
import json
import os
import re
import stat
from pathlib import Path
from typing import Any, List, NamedTuple, Optional, Tuple, Union

from .errors import SorteioError
from .i18n import N_, _
from .pieces import stop_point

MAX_FILE_BYTES = 64 * 1024 * 1024  # 64 MiB: ~60,000 real cards; documented in README.md
MAX_DIGITS = 4000  # longer integers are refused (CPython's own limit is 4,300 digits)
MAX_NESTING = 64  # a deck nests 6 levels; reported only when json itself gives up

_SURROGATE_ESCAPE = re.compile(r"\\[uU][dD][89a-fA-F]")
_SURROGATE = re.compile("[\ud800-\udfff]")
_LONG_RUN = re.compile(f"[0-9]{{{MAX_DIGITS + 1}}}")

Loc = Tuple[Union[str, int], ...]


class Problem(NamedTuple):
    """Something wrong at ``loc`` (keys and list indexes from the top of the data)."""

    loc: Loc
    message: str
    kind: str = ""  # "long_number" for an integer past MAX_DIGITS (the loader adds its range)


class JsonFileError(SorteioError):
    """A file that cannot be read as JSON: ``path``, ``where``, ``message``, ``errno`` (or None)."""

    def __init__(self, path: str, where: str, message: str, error_number: Any = None) -> None:
        super().__init__(f"{path}: {where}: {message}")
        self.path, self.where, self.message, self.errno = path, where, message, error_number


def read_text(path: Union[str, Path], limit: int = MAX_FILE_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``limit`` bytes. Raises ``JsonFileError``."""
    source = str(path)
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0)
    try:
        fd = os.open(source, flags)
    except ValueError as exc:  # a NUL byte, or a lone surrogate the file system cannot encode
        raise JsonFileError(printable(source), "(file)", _(
            "not a usable file name: {error}").format(error=printable(str(exc)))) from None
    except OSError as exc:
        raise JsonFileError(source, "(file)", _cannot_read(exc), exc.errno) from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise JsonFileError(source, "(file)", _("is a folder, not a file"), errno.EISDIR)
        if not stat.S_ISREG(info.st_mode):
            raise JsonFileError(source, "(file)", _("not a regular file (a pipe, a device or a "
                                                    "socket): give the path of a .json file"))
        if info.st_size > limit:
            raise JsonFileError(source, "(file)", too_big(info.st_size, limit))
        chunks: List[bytes] = []
        size = 0
        while True:  # read to the end even if the file grew since fstat, but never past limit
            chunk = os.read(fd, min(1 << 20, limit + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:
                raise JsonFileError(source, "(file)", too_big(size, limit))
    except OSError as exc:
        raise JsonFileError(source, "(file)", _cannot_read(exc), exc.errno) from None
    finally:
        os.close(fd)
    return _decode(b"".join(chunks), source)


def _cannot_read(exc: OSError) -> str:
    return _("cannot read: {reason}").format(reason=exc.strerror or exc)


def too_big(size: int, limit: int) -> str:
    """Why a file (or a deck's text) of ``size`` bytes is refused, ``limit`` being the most."""
    return _("the file has {size:,} bytes or more; the limit is {limit:,} bytes ({mib} MiB)"
             ).format(size=size, limit=limit, mib=limit // (1 << 20))


def _decode(data: bytes, source: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line, column = _line_column_of_byte(data, exc.start)
        raise JsonFileError(source, f"(line {line}, column {column})",
                            _("not UTF-8 text (byte 0x{byte:02x}): save the file as UTF-8"
                              ).format(byte=data[exc.start])) from None


def _line_column_of_byte(data: bytes, offset: int) -> Tuple[int, int]:
    line_start = data.rfind(b"\n", 0, offset) + 1
    column = len(data[line_start:offset].decode("utf-8", "replace")) + 1
    return data.count(b"\n", 0, offset) + 1, column


class _Dict(dict):
    """A JSON object in which some keys appeared twice (json keeps the last value)."""

    duplicates: List[str]


class _LongNumber:
    """Stands for an integer of more than ``MAX_DIGITS`` digits: no model accepts it."""

    def __init__(self, digits: int) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"<integer of {self.digits} digits>"


def loads(text: str, source: str = "<json>") -> Tuple[Any, List[Problem]]:
    """Decode JSON text. Returns ``(data, problems)``; raises ``JsonFileError`` for a syntax error
    or nesting json cannot follow, with the line and column.

    In ``data``, a lone surrogate is replaced by U+FFFD and a too-long integer by an object no
    model accepts; each is listed in ``problems``, with every duplicate key."""
    flags = {"dup": False, "long": False}

    def pairs(items: List[Tuple[str, Any]]) -> dict:
        out = {}
        dups = []
        for key, value in items:
            if key in out:
                dups.append(key)
            out[key] = value
        if not dups:
            return out
        flags["dup"] = True
        marked = _Dict(out)
        marked.duplicates = dups
        return marked

    def integer(digits: str) -> Any:
        if len(digits) > MAX_DIGITS:
            flags["long"] = True
            return _LongNumber(len(digits.lstrip("-")))
        return int(digits)

    # The integer hook costs a Python call per number: used only when a long digit run exists.
    long_run = search_windowed(_LONG_RUN, text, MAX_DIGITS + 1)
    try:
        data = json.loads(text, object_pairs_hook=pairs, parse_int=integer if long_run else None)
    except json.JSONDecodeError as exc:
        raise JsonFileError(source, f"(line {exc.lineno}, column {exc.colno})",
                            _("invalid JSON: {error}").format(error=json_error_text(exc.msg))
                            ) from None
    except RecursionError:
        line, column = _too_deep_at(text)
        raise JsonFileError(source, f"(line {line}, column {column})",
                            _("invalid JSON: nested too deeply (past {levels} levels here; a "
                              "deck needs about 6)").format(levels=MAX_NESTING)) from None
    surrogates = search_windowed(_SURROGATE_ESCAPE, text, 4)
    if not (flags["dup"] or flags["long"] or surrogates):
        return data, []
    return scan(data)


WINDOW_CHARS = 1 << 18  # ~2-5 ms of regex per window on a loaded core


def search_windowed(pattern: "re.Pattern[str]", text: str, longest: int,
                    window: Optional[int] = None) -> bool:
    """Whether ``pattern`` (whose matches are at most ``longest`` characters) occurs in
    ``text``, searched window by window. Same answer as ``pattern.search(text)``, but no single
    call holds the GIL for the whole of a 30 MB file (0.4-0.5 s on a loaded core): between
    windows another thread may run (the game's frame, in-process, issue 13). Windows overlap by
    ``longest - 1`` characters so a match across a boundary is found whole in one of them."""
    window = window or WINDOW_CHARS
    start = 0
    while start < len(text):
        if pattern.search(text, start, start + window + longest - 1) is not None:
            return True
        start += window
        stop_point()  # a closed in-process bridge's thread stops here (sorteio.pieces)
    return False


def scan(data: Any) -> Tuple[Any, List[Problem]]:
    """Find lone surrogates, duplicate keys and too-long integers in decoded data (iteratively:
    any depth). Returns the data with surrogates replaced by U+FFFD, and the problems."""
    problems: List[Problem] = []
    root = [data]
    stack: List[Tuple[Any, Loc]] = [(root, ())]
    while stack:
        node, loc = stack.pop()
        if isinstance(node, dict):
            for key in getattr(node, "duplicates", ()):
                problems.append(Problem((*loc, key), _(
                    "duplicate key '{key}': json would silently keep the last value").format(
                        key=clean(key))))
            if any(isinstance(k, str) and not _is_text(k) for k in node):
                items = list(node.items())
                node.clear()
                for key, value in items:
                    if isinstance(key, str) and not _is_text(key):
                        problems.append(Problem((*loc, clean(key)), _(_SURROGATE_MESSAGE)))
                        key = clean(key)
                    node[key] = value
            entries: Any = list(node.items())
        elif isinstance(node, list):
            entries = list(enumerate(node))
        else:
            continue
        for key, value in entries:
            here = (*loc, key) if node is not root else ()
            if isinstance(value, str):
                if not _is_text(value):
                    problems.append(Problem(here, _(_SURROGATE_MESSAGE)))
                    node[key] = clean(value)
            elif isinstance(value, _LongNumber):
                problems.append(Problem(here, _("a number of {digits:,} digits: far out of any "
                                                "range a deck uses").format(digits=value.digits),
                                        "long_number"))
            elif isinstance(value, (dict, list)):
                stack.append((value, here))
    problems.sort(key=lambda p: [str(part) for part in p.loc])
    return root[0], problems


_SURROGATE_MESSAGE = N_("not Unicode text: a lone surrogate escape (like \\ud800) that no "
                         "character matches")
# The json module's own messages (it has no error codes; these are its whole, stable list).
_JSON_MESSAGES = {N_("Expecting value"), N_("Expecting ',' delimiter"),
                  N_("Expecting ':' delimiter"),
                  N_("Expecting property name enclosed in double quotes"),
                  N_("Unterminated string starting at"), N_("Invalid control character at"),
                  N_("Extra data"), N_("Invalid \\escape"), N_("Invalid \\uXXXX escape"),
                  N_("Illegal trailing comma before end of object"),
                  N_("Illegal trailing comma before end of array")}


def json_error_text(message: str) -> str:
    """One of the json module's messages (``JSONDecodeError.msg``) in the run's language."""
    return _(message) if message in _JSON_MESSAGES else message


def _is_text(value: str) -> bool:
    if value.isascii():
        return True
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def clean(value: str) -> str:
    """``value`` with every lone surrogate replaced by U+FFFD, safe to print and encode."""
    if _is_text(value):
        return value
    return _SURROGATE.sub("\ufffd", value)


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def printable(value: str) -> str:
    """``value`` as one line of text: lone surrogates become U+FFFD and control characters
    (newlines, tabs, NUL, line separators) their escapes (``\\n``, ``\\x00``), so a key or an
    id quoted in an error message cannot break the line or the terminal."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"),
                        clean(value))


def _too_deep_at(text: str) -> Tuple[int, int]:
    """Line and column where the nesting first goes past ``MAX_NESTING`` (outside strings)."""
    depth, in_string, escaped = 0, False, False
    for offset, char in enumerate(text):
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > MAX_NESTING:
                line_start = text.rfind("\n", 0, offset) + 1
                return text.count("\n", 0, offset) + 1, offset - line_start + 1
        elif char in "]}":
            depth -= 1
    return 1, 1
