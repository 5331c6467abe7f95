"""A deck as a spreadsheet and back (issue 15): designers balance in spreadsheets.

- ``export_deck(deck, out)``: the deck (a path or a built-in name) as a workbook (``.xlsx``, the
  main format) or one CSV file (``.csv``); the layout is in ``layout``'s docstring.
- ``import_sheet(sheet, out)``: the sheet validated as a deck (every problem at once, each
  naming its cell: ``cartas!C14``, the card id and the column) and written to ``out`` (.json)
  the way the project's decks are written, keeping the key order of the file it replaces
  (``deckjson``), so a version-control diff shows only what was edited.

Nothing is lost on the way: ``import_sheet(export_deck(deck))`` gives the same deck (the same
``deck_fingerprint``), and over the file it came from, the same bytes (tests/test_sheets.py, on
the built-in decks and on fuzzed ones). Both raise ``SheetError`` (a ``SorteioError``) for a
sheet that cannot become a deck, and ``DeckError`` for a deck to export that is not valid.
"""

from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Tuple, Union

from pydantic import ValidationError

from ..deck import Deck
from ..i18n import N_, _
from ..loader import issues_from, load_deck, resolve_deck_path
from . import csvfile, deckjson, layout, workbook
from .cells import SheetError, SheetIssue, format_issue

FORMATS = {".xlsx": "xlsx", ".csv": "csv"}
LONG_CELL = workbook.EXCEL_CELL_CHARS

__all__ = ["FORMATS", "Exported", "Imported", "SheetError", "SheetIssue", "export_deck",
           "format_issue", "import_sheet", "read_sheet"]

PathLike = Union[str, Path]


def sheet_format(path: PathLike, what: str) -> str:
    """``xlsx`` or ``csv`` from the file name; ``SheetError`` for anything else. ``what``: the
    translated noun of the message (``_("spreadsheet")``, ``_("sheet")``)."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        hint = (_(" (LibreOffice and Google Sheets save both; .ods and .xls are not read)")
                if suffix in (".ods", ".xls") else "")
        raise SheetError(str(path), [SheetIssue("(file)", None, "", _(
            "the {what} must be a .xlsx workbook or a .csv file, not '{name}'").format(
                what=what, name=suffix or Path(path).name) + hint)])
    return FORMATS[suffix]


class Exported(NamedTuple):
    """What ``export_deck`` wrote: the file, its format, the deck's source, the number of cards,
    and warnings (cells a program may change or cut) as ``SheetIssue`` rows."""

    file: str
    format: str
    deck: str
    cards: int
    warnings: List[SheetIssue]


def export_deck(deck: Optional[PathLike], out: PathLike) -> Exported:
    """Write the deck ``deck`` (a path, a built-in name, None for the default) to ``out``.

    Raises ``DeckError`` (the deck does not validate: fix it first) or ``SheetError`` (a bad
    file name, openpyxl missing for .xlsx, the file cannot be written)."""
    kind = sheet_format(out, _("spreadsheet"))
    out = Path(out)
    _check_target(out)
    loaded = load_deck(deck)
    sheets = layout.tables(loaded)
    long_cells = _long_cells(sheets)
    if kind == "xlsx" and long_cells:
        # A workbook cell holds at most 32,767 characters (openpyxl cuts there, as Excel does).
        raise SheetError(str(out), [issue._replace(message=_(
            "{problem}: a workbook cell holds at most {limit:,}; shorten the text or export "
            "to .csv").format(problem=issue.message, limit=LONG_CELL))
                                    for issue in long_cells])
    (workbook.write if kind == "xlsx" else csvfile.write)(sheets, out)
    warnings = [issue._replace(message=_(
        "{problem}: Excel and Google Sheets keep at most {limit:,} in a cell and would cut it "
        "(LibreOffice keeps it)").format(problem=issue.message, limit=LONG_CELL))
        for issue in long_cells]
    if kind == "csv":
        warnings += csvfile.risky_cells(sheets)
    return Exported(str(out), kind, str(resolve_deck_path(deck)), len(loaded.cartas), warnings)


def _check_target(out: Path) -> None:
    if out.is_dir():
        raise SheetError(str(out), [SheetIssue("(file)", None, "", _(
            "is a folder; give a file name"))])
    if not out.parent.is_dir():
        raise SheetError(str(out), [SheetIssue("(file)", None, "", _(
            "the folder {folder} does not exist").format(folder=out.parent))])
    if out.exists() and not out.is_file():
        raise SheetError(str(out), [SheetIssue("(file)", None, "", _(
            "not a regular file (a pipe, a device or a socket)"))])


def _long_cells(sheets: List[layout.Table]) -> List[SheetIssue]:
    """Text cells longer than a workbook cell can hold."""
    out = []
    for table in sheets:
        for r, row in enumerate(table.rows, start=2):
            for c, value in enumerate(row):
                if isinstance(value, str) and len(value) > LONG_CELL:
                    card = row[0] if table.name == layout.CARDS else None
                    out.append(SheetIssue(layout.cell_name(table.name, r, c), card,
                                          table.columns[c].header,
                                          _("{count:,} characters").format(count=len(value))))
    return out


def read_sheet(sheet: PathLike) -> Tuple[Deck, Dict[str, Any]]:
    """The deck a spreadsheet holds, validated: ``(deck, data)``. Raises ``SheetError`` with
    every problem, each naming its cell (sheet!A1), the card id and the column."""
    path = Path(sheet)
    kind = sheet_format(path, _("sheet"))
    source = str(path)
    if not path.is_file():
        why = _("is a folder") if path.is_dir() else (_("no such file") if not path.exists()
                                                      else _("not a regular file"))
        raise SheetError(source, [SheetIssue("(file)", None, "", why)])
    grids, names, issues = (workbook.read if kind == "xlsx" else csvfile.read)(path)
    reader = layout.Reader()
    data = reader.read(grids, names)
    issues = issues + reader.issues
    bad_cells = {i.cell for i in issues}
    try:
        deck = Deck.model_validate(data)
    except ValidationError as exc:
        for issue in issues_from(exc, data, BLANK_CELL):
            where = layout.cell_of(reader.where, issue.field)
            cell = where.cell if where else "(sheet)"
            if cell in bad_cells:
                continue  # that cell's own problem says it better
            issues.append(SheetIssue(cell, issue.card_id, where.column if where else issue.field,
                                     issue.message))
        deck = None
    if issues or deck is None:
        raise SheetError(source, issues)
    return deck, data


# pydantic's "missing" is a blank cell here (by error type, in the run's language).
BLANK_CELL = {"missing": N_("required, and the cell is blank")}


class Imported(NamedTuple):
    """What ``import_sheet`` wrote: the deck file, the sheet it came from, the deck, and whether
    the file it replaced gave the key order (``shaped``)."""

    file: str
    sheet: str
    deck: Deck
    shaped: bool


def import_sheet(sheet: PathLike, out: PathLike) -> Imported:
    """Read ``sheet`` as a deck and write it to ``out`` (a .json path); nothing is written when
    the sheet has a problem (``SheetError``). When ``out`` exists and is JSON, its key order
    and layout are kept (``deckjson``)."""
    out = Path(out)
    if out.suffix.lower() != ".json":
        raise SheetError(str(out), [SheetIssue("(file)", None, "", _(
            "the deck to write must be a .json file"))])
    _check_target(out)
    deck = read_sheet(sheet)[0]
    template = deckjson.read_template(out) if out.is_file() else None
    deckjson.write_text(out, deckjson.dumps(deckjson.deck_data(deck, template)))
    return Imported(str(out), str(sheet), deck, isinstance(template, dict))
