"""The CSV format, beside the workbook: every sheet in one file, one section after another.

A section starts with a row holding only the sheet's name in brackets (``[cartas]``), then its
header row and its rows; a blank row separates sections. Cards come last, so new cards go at
the end of the file.

Written for a Brazilian Excel to open with a double click: UTF-8 with a BOM (without it Excel
reads the accents as Windows-1252), ``;`` between cells (Excel pt-BR's list separator; a ``,``
file opens as one column there) and CRLF line ends. Read: ``,``, ``;`` or tab (the separator is
taken from the first row that has one), with or without a BOM, UTF-8 only: a file in another
encoding is refused with the way to save it as UTF-8, never decoded by guess. Numbers may be
written ``8``, ``-6``, ``8,0`` or ``8.00`` (see ``cells.integer``).

Excel changes what it reads from a CSV before anyone edits it: text that looks like a date
(``1-2``), a number (``0012``) or a formula (``=x``, ``-5% x``, ``+1``, ``@x``) is converted.
``risky_cells`` lists those cells at export so the designer can choose the workbook instead.
"""

import csv
import io
import re
from pathlib import Path
from typing import Any, Dict, List, Tuple

from ..i18n import _
from ..jsonfile import MAX_FILE_BYTES
from .cells import SheetError, SheetIssue, cell_name, grid_from_rows
from .layout import CARDS, SHEETS, TEXT, Table

DELIMITER = ";"
CANDIDATES = (";", ",", "\t")
# Cards last: the CSV's sections in file order.
CSV_ORDER = (*(name for name in SHEETS if name != CARDS), CARDS)
_SECTION = re.compile(r"^\[(.+)\]$", re.S)
_EXCEL_CONVERTS = re.compile(r"^[=+\-@]|^\s*[0-9][0-9.,:/ \-]*\s*%?$")


def rows_of(tables: List[Table]) -> List[Tuple[str, int, List[Any]]]:
    """``(sheet, column kinds..., values)`` rows of the file, sections in ``CSV_ORDER``."""
    by_name = {t.name: t for t in tables}
    out: List[Tuple[str, int, List[Any]]] = []
    for name in CSV_ORDER:
        table = by_name[name]
        if out:
            out.append(("", -1, []))
        out.append((name, -1, [f"[{name}]"]))
        out.append((name, 0, [c.header for c in table.columns]))
        out.extend((name, 1, row) for row in table.rows)
    return out


def write(tables: List[Table], path: Path) -> None:
    """Write the sheets as one CSV file (see the module docstring)."""
    buffer = io.StringIO(newline="")
    writer = csv.writer(buffer, delimiter=DELIMITER, lineterminator="\r\n")
    for row in rows_of(tables):
        values = row[2]
        writer.writerow(["" if v is None else v for v in values])
    try:
        path.write_bytes(buffer.getvalue().encode("utf-8-sig"))
    except OSError as exc:
        raise SheetError(str(path), [SheetIssue("(file)", None, "", _(
            "cannot write: {reason}").format(reason=exc.strerror or exc))]
                         ) from None


def risky_cells(tables: List[Table]) -> List[SheetIssue]:
    """Text cells that Excel converts when it opens the CSV (a date, a number, a formula)."""
    kinds = {t.name: [c.kind for c in t.columns] for t in tables}
    headers = {t.name: [c.header for c in t.columns] for t in tables}
    out = []
    for number, (name, role, values) in enumerate(rows_of(tables), start=1):
        if role != 1:
            continue
        for c, value in enumerate(values):
            if (kinds[name][c] == TEXT and isinstance(value, str)
                    and _EXCEL_CONVERTS.search(value)):
                shown = value if len(value) <= 30 else value[:30] + "..."
                out.append(SheetIssue(cell_name(name, number, c), None, headers[name][c],
                                      _("Excel reads '{text}' as a formula, a number or a "
                                        "date when it opens a CSV; the .xlsx workbook keeps it "
                                        "as text").format(text=shown)))
    return out


def read(path: Path) -> Tuple[Dict[str, Any], List[str], List[SheetIssue]]:
    """``(grids by name, sheet names in file order, problems)`` of a CSV file written as
    ``write`` writes it (any of the accepted dialects). Raises ``SheetError`` when the file
    cannot be read as CSV text at all."""
    source = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SheetError(source, [SheetIssue("(file)", None, "", _(
                "{size:,} bytes; at most {limit:,}").format(size=size, limit=MAX_FILE_BYTES))])
        data = path.read_bytes()
    except OSError as exc:
        raise SheetError(source, [SheetIssue("(file)", None, "", _(
            "cannot read: {reason}").format(reason=exc.strerror or exc))]) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise SheetError(source, [SheetIssue(_("(line {line})").format(line=line), None, "", _(
            "not UTF-8 text (byte 0x{byte:02x}): save it as 'CSV UTF-8' (Excel: 'CSV UTF-8 "
            "(delimitado por vírgulas)')").format(byte=data[exc.start]))]) from None
    delimiter = _delimiter(text)
    # Python before 3.11 refuses NUL in CSV ("line contains NUL"): carry it through the parser
    # as a character the text does not hold.
    nul = None
    if "\x00" in text:
        nul = next(chr(c) for c in range(0xE000, 0x110000) if chr(c) not in text)
        text = text.replace("\x00", nul)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    try:
        records = list(reader)
    except csv.Error as exc:
        # csv's own words are English and name no line ("unexpected end of data"): the line
        # where the reader stopped, and what a person does about it.
        if "end of data" in str(exc):
            why = _("a quoted cell (\") is never closed: close it, or write a quote inside a "
                    "cell as two (\"\")")
        elif "expected after" in str(exc):
            why = _("a quote (\") inside a cell that starts with one: write it as two (\"\")")
        else:
            why = _("not CSV: {reason}").format(reason=exc)
        raise SheetError(source, [SheetIssue(_("(line {line})").format(line=reader.line_num),
                                             None, "", why)]) from None
    if nul is not None:
        records = [[value.replace(nul, "\x00") for value in record] for record in records]
    return _sections(records)


def _delimiter(text: str) -> str:
    """The separator of the first line that has one of ``CANDIDATES`` (most frequent wins)."""
    for line in text.splitlines():
        counts = {d: line.count(d) for d in CANDIDATES}
        best = max(CANDIDATES, key=lambda d: counts[d])
        if counts[best]:
            return best
    return DELIMITER


def _sections(records: List[List[str]]) -> Tuple[Dict[str, Any], List[str], List[SheetIssue]]:
    issues: List[SheetIssue] = []
    names: List[str] = []
    rows: Dict[str, List[Tuple[int, List[Any]]]] = {}
    current = None
    for number, record in enumerate(records, start=1):
        values: List[Any] = [None if v == "" else v for v in record]
        filled = [v for v in values if v is not None]
        marker = _SECTION.match(filled[0]) if len(filled) == 1 and values[0] is not None else None
        if marker:
            current = marker.group(1)
            if current in rows:
                issues.append(SheetIssue(_("(row {row})").format(row=number), None, "",
                                         _("the section [{section}] appears twice").format(
                                             section=current)))
                current = None
                continue
            names.append(current)
            rows[current] = []
            continue
        if not filled:
            continue
        if current is None:
            if not names:
                issues.append(SheetIssue(_("(row {row})").format(row=number), None, "", _(
                    "expected a section row such as [{section}] before the data (a deck's "
                    "sections are {sections})").format(section=CARDS,
                                                       sections=", ".join(SHEETS))))
                names.append("")  # reported once
            continue
        rows[current].append((number, values))
    grids = {}
    for name, numbered in rows.items():
        grid = grid_from_rows(name, numbered)
        if grid is not None:
            grids[name] = grid
    return grids, [n for n in names if n], issues
