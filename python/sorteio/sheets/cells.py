"""One spreadsheet cell: where it is (``cartas!C14``) and what its value means.

Spreadsheet programs change what a designer typed: a whole number may come back as ``8.0`` or
as the text ``"8,00"`` (a Brazilian Excel's decimal comma), text may become a date or a truth
value. ``integer`` and ``text`` accept every faithful spelling of the value and refuse the rest
with a message that says what the program did, so nothing is guessed silently.
"""

import datetime
import functools
import math
import re
from typing import Any, List, NamedTuple, Optional, Tuple

from ..errors import SorteioError
from ..i18n import _


class SheetIssue(NamedTuple):
    """One problem of an imported sheet: the cell (``cartas!C14``, or a sheet name when the
    problem is a whole sheet), the card id (or None), the column header and the message."""

    cell: str
    card_id: Optional[str]
    column: str
    message: str


class SheetError(SorteioError):
    """A spreadsheet that cannot be read or turned into a deck. ``source``: the file;
    ``issues``: every ``SheetIssue`` found (one per line of the message)."""

    def __init__(self, source: str, issues: List[SheetIssue]) -> None:
        self.source = source
        self.issues = issues
        super().__init__("\n".join(format_issue(source, issue) for issue in issues))


def format_issue(source: str, issue: SheetIssue) -> str:
    """``deck.xlsx: cartas!C14: card 'eco-01': modo: unknown mode 'x' ...``."""
    card = _("card '{card}': ").format(card=issue.card_id) if issue.card_id else ""
    column = f"{issue.column}: " if issue.column else ""
    return f"{source}: {issue.cell}: {card}{column}{issue.message}"


class CellError(ValueError):
    """A cell whose value cannot mean what its column holds (the message says why)."""


@functools.lru_cache(maxsize=4096)
def column_letter(index: int) -> str:
    """0 -> ``A``, 25 -> ``Z``, 26 -> ``AA`` (spreadsheet column names)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("A") + rest) + letters
    return letters


def cell_name(sheet: str, row: int, column: int) -> str:
    """``cartas!C14`` for 1-based ``row`` and 0-based ``column``."""
    return f"{sheet}!{column_letter(column)}{row}"


def blank(value: Any) -> bool:
    """An empty cell: nothing, or text of no characters (a program writes either)."""
    return value is None or value == ""


# A whole number as text: a sign (also U+2212, the minus some programs write), digits, and at
# most two zero decimals after a point or a comma ("8,00": a Brazilian Excel's number format).
_WHOLE = re.compile(r"^([+\-\u2212]?)(\d+)(?:[.,]0{1,2})?$")


class Unreadable(NamedTuple):
    """A cell whose value cannot be read (a formula never computed, an error value): a problem
    only when the cell is read, not in a column of the designer's own."""

    why: str


def _changed(value: Any) -> Optional[str]:
    """Why a cell value is not what a designer can have typed as text or a number."""
    if isinstance(value, Unreadable):
        return value.why
    if isinstance(value, bool):
        return _("holds a truth value (TRUE/FALSE), not what this column takes: the "
                 "spreadsheet read what was typed as a truth value; type it again as text")
    if isinstance(value, (datetime.date, datetime.time, datetime.timedelta)):
        return _("holds a date or a time: the spreadsheet read what was typed as a date; format "
                 "the column as text (or number) and type it again")
    return None


def _not_whole() -> str:
    return _("{value} is not a whole number (every number of a deck is an integer)")


def integer(value: Any) -> Optional[int]:
    """A whole-number cell: None when blank. Raises ``CellError`` for anything else than a whole
    number (``8``, ``8.0``, ``"8"``, ``"-6"``, ``"8,00"``)."""
    if blank(value):
        return None
    why = _changed(value)
    if why:
        raise CellError(why)
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer():
            return int(value)
        raise CellError(_not_whole().format(value=repr(value)))
    text = str(value).strip()
    if not text:
        return None
    match = _WHOLE.match(text)
    if not match:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise CellError(_not_whole().format(value=f"'{shown}'"))
    sign, digits = match.group(1), match.group(2)
    if len(digits) > 20:
        raise CellError(_("a number of more than 20 digits"))
    return -int(digits) if sign and sign != "+" else int(digits)


def text(value: Any) -> Optional[str]:
    """A text cell: None when blank. A number typed in a text column (a title ``1984``) is its
    text; a truth value or a date is refused (``CellError``): the program changed the text."""
    if blank(value):
        return None
    why = _changed(value)
    if why:
        raise CellError(why)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise CellError(_("{value!r} is not text").format(value=value))
        return str(int(value)) if value.is_integer() and abs(value) < 1e16 else repr(value)
    return str(value)


class Row(NamedTuple):
    """One row of a sheet as read: its 1-based row number and its cell values."""

    number: int
    values: List[Any]


class Grid(NamedTuple):
    """A sheet as read: its name, the header row and the data rows (blank rows left out)."""

    name: str
    header: Row
    rows: List[Row]

    def cell(self, row: int, column: int) -> str:
        return cell_name(self.name, row, column)


def widen(values: List[Any], width: int) -> List[Any]:
    """``values`` padded with blanks to ``width`` cells (programs drop trailing blank cells)."""
    return list(values) + [None] * (width - len(values))


def grid_from_rows(name: str, rows: List[Tuple[int, List[Any]]]) -> Optional[Grid]:
    """A ``Grid`` from numbered rows: the first non-blank row is the header; blank rows are
    left out. None when the sheet is empty."""
    kept = [Row(n, list(v)) for n, v in rows if not all(blank(x) for x in v)]
    if not kept:
        return None
    return Grid(name, kept[0], kept[1:])
