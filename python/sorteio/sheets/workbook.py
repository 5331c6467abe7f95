"""The workbook format (.xlsx), through openpyxl: the main spreadsheet format.

Why a workbook first: it keeps text as text and numbers as numbers whatever the program's
language (a CSV opened by a Brazilian Excel turns ``1-2`` into a date and ``-5%`` into a formula),
and one file holds every sheet. openpyxl (the ``sheets`` / ``cli`` extra) is imported on use.

Text a workbook cannot hold as is (control characters, a carriage return) is written with the
Office escape ``_xHHHH_``, the one Excel itself writes and reads (and ``_x005F_`` before a
literal ``_xHHHH_``), so a text goes through Excel, LibreOffice or this module unchanged.

What a designer sees: a ``#balanço`` sheet of live sums per meter and actor (how many options
raise or lower it, by how much; ignored on import), the header row frozen and filtered, the id
column frozen, drop-down lists for ``modo``, ``tipo``, ``ator``, ``funcao`` and
``aprendizado.status`` (a warning, not a block, for other values), whole numbers -100 to 100 in
effect cells, and effects coloured from red (-20 and below) through white (0) to green (+20 and
above), so a card's trade-off reads at a glance.
"""

import re
from pathlib import Path
from typing import Any, Dict, List, Tuple

from ..i18n import N_, _
from ..jsonfile import MAX_FILE_BYTES
from .cells import CellError, SheetError, SheetIssue, Unreadable, column_letter, grid_from_rows
from .layout import CARDS, INT, Table

EXCEL_CELL_CHARS = 32_767  # Excel's (and Google Sheets' import) limit for one cell's text
INSTALL_HINT = N_("the workbook format (.xlsx) needs openpyxl: pip install "
                  "'sorteio[sheets]' (or use a .csv file)")

_NEEDS_ESCAPE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\r\ufffe\uffff]|_(?=x[0-9A-Fa-f]{4}_)")
_ESCAPED = re.compile("_x([0-9A-Fa-f]{4})_")


def escape(value: str) -> str:
    """Text as a workbook cell holds it (see the module docstring)."""
    return _NEEDS_ESCAPE.sub(lambda m: f"_x{ord(m.group()):04X}_", value)


def unescape(value: str) -> str:
    return _ESCAPED.sub(lambda m: chr(int(m.group(1), 16)), value)


def _openpyxl() -> Any:
    try:
        import openpyxl
    except ImportError:
        raise SheetError("(openpyxl)", [SheetIssue("(workbook)", None, "", _(INSTALL_HINT))]
                         ) from None
    return openpyxl


def write(tables: List[Table], path: Path) -> None:
    """Write the sheets to ``path`` (.xlsx). Raises ``SheetError`` when it cannot."""
    openpyxl = _openpyxl()
    from openpyxl.formatting.rule import ColorScaleRule
    from openpyxl.styles import Alignment, Font
    from openpyxl.worksheet.datavalidation import DataValidation

    book = openpyxl.Workbook()
    book.remove(book.active)
    sizes = {t.name: len(t.rows) for t in tables}
    for table in tables:
        sheet = book.create_sheet(table.name)
        for c, column in enumerate(table.columns, start=1):
            cell = sheet.cell(row=1, column=c, value=column.header)
            cell.font = Font(bold=True)
            rotate = table.name == CARDS and column.kind == INT
            cell.alignment = Alignment(text_rotation=90 if rotate else 0, vertical="bottom",
                                       wrap_text=not rotate)
            sheet.column_dimensions[column_letter(c - 1)].width = column.width
        for r, row in enumerate(table.rows, start=2):
            for c, value in enumerate(row, start=1):
                if value is None:
                    continue
                cell = sheet.cell(row=r, column=c)
                if isinstance(value, str):
                    cell.value = escape(value)
                    cell.data_type = "s"  # text that starts with '=' stays text
                else:
                    cell.value = value
        sheet.freeze_panes = "B2" if table.name == CARDS else "A2"
        last = f"{column_letter(max(len(table.columns) - 1, 0))}{len(table.rows) + 1}"
        sheet.auto_filter.ref = f"A1:{last}"
        if table.name == CARDS:
            longest = max((len(c.header) for c in table.columns if c.kind == INT), default=10)
            sheet.row_dimensions[1].height = min(409, 6 * longest + 10)
            _card_helpers(sheet, table, sizes, DataValidation, ColorScaleRule)
    _balance_sheet(book, tables)
    try:
        book.save(str(path))
    except OSError as exc:
        raise SheetError(str(path), [SheetIssue("(file)", None, "", _(
            "cannot write: {reason}").format(reason=exc.strerror or exc))]
                         ) from None


def _card_helpers(sheet: Any, table: Table, sizes: Dict[str, int], DataValidation: Any,
                  ColorScaleRule: Any) -> None:
    rows = max(len(table.rows), 1) + 1
    lists = {
        "modo": f"modos!$A$2:$A${sizes['modos'] + 1}",
        "ator": f"atores!$A$2:$A${sizes['atores'] + 1}",
        "funcao": f"niveis!$E$2:$E${sizes['niveis'] + 1}",
        "tipo": '"comum,ator,impeachment"',
        "aprendizado.status": '"aprovado,rascunho"',
    }
    effects = []
    for c, column in enumerate(table.columns):
        letter = column_letter(c)
        span = f"{letter}2:{letter}{rows}"
        if column.header in lists and not lists[column.header].endswith("$1"):
            rule = DataValidation(type="list", formula1=lists[column.header], allow_blank=True,
                                  errorStyle="warning", showErrorMessage=True)
            rule.add(span)
            sheet.add_data_validation(rule)
        elif column.kind == INT and column.header.startswith("opcao"):
            effects.append(span)
    if effects:
        rule = DataValidation(type="whole", operator="between", formula1="-100", formula2="100",
                              allow_blank=True, errorStyle="warning", showErrorMessage=True,
                              error=_("an effect is a whole number from -100 to 100"))
        for span in effects:
            rule.add(span)
        sheet.add_data_validation(rule)
        scale = ColorScaleRule(start_type="num", start_value=-20, start_color="F8696B",
                               mid_type="num", mid_value=0, mid_color="FFFFFF",
                               end_type="num", end_value=20, end_color="63BE7B")
        sheet.conditional_formatting.add(" ".join(effects), scale)


BALANCE = "#balanço"
BALANCE_HEADER = ("medidor/ator", "id", "nome", "inicial", "opções que sobem",
                  "opções que descem", "soma das altas", "soma das baixas", "saldo")
_EFFECT = re.compile(r"^opcao[0-9]+\.(efeitos|efeitos_atores)\.(.+)$", re.S)


def _balance_sheet(book: Any, tables: List[Table]) -> None:
    """``#balanço``: per meter and per actor, live formulas over every option's column of it in
    ``cartas``: how many options raise or lower it, the sums of the rises and of the falls, and
    the net. A designer's sheet (``#``): import ignores it."""
    by_name = {t.name: t for t in tables}
    columns: Dict[Tuple[str, str], List[str]] = {}
    for c, column in enumerate(by_name[CARDS].columns):
        match = _EFFECT.match(column.header)
        if match:
            columns.setdefault((match.group(1), match.group(2)), []).append(column_letter(c))
    sheet = book.create_sheet(BALANCE)
    for c, header in enumerate(BALANCE_HEADER, start=1):
        sheet.cell(row=1, column=c, value=header)
    row = 2
    for kind, entries, what in (("efeitos", "medidores", "medidor"),
                                ("efeitos_atores", "atores", "ator")):
        for r, entry in enumerate(by_name[entries].rows, start=2):
            letters = columns.get((kind, entry[0]), [])
            spans = [f"{CARDS}!${x}:${x}" for x in letters]

            def each(formula: str, spans: List[str] = spans) -> str:
                return "=" + ("+".join(formula.format(s) for s in spans) or "0")

            values = [what, escape(entry[0]), escape(entry[1]), f"={entries}!C{r}",
                      each('COUNTIF({},">0")'), each('COUNTIF({},"<0")'),
                      each('SUMIF({},">0")'), each('SUMIF({},"<0")'),
                      f"=SUM({','.join(spans)})" if spans else "=0"]
            for c, value in enumerate(values, start=1):
                cell = sheet.cell(row=row, column=c, value=value)
                if c <= 3:
                    cell.data_type = "s"
            row += 1
    sheet.freeze_panes = "A2"
    for c, width in enumerate((12, 16, 20, 8, 10, 10, 10, 10, 8)):
        sheet.column_dimensions[column_letter(c)].width = width


def read(path: Path) -> Tuple[Dict[str, Any], List[str], List[SheetIssue]]:
    """``(grids by name, every sheet name in file order, problems)`` of a workbook. A formula
    is read by the value the spreadsheet program last computed; one never computed (a file
    written by a program that does not compute) and an error value are ``Unreadable`` cells.
    Raises ``SheetError`` when the file is not a workbook openpyxl can read."""
    openpyxl = _openpyxl()
    from openpyxl.utils.exceptions import InvalidFileException

    source = str(path)
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise SheetError(source, [SheetIssue("(file)", None, "", _(
                "{size:,} bytes; at most {limit:,}").format(size=size, limit=MAX_FILE_BYTES))])
        values = openpyxl.load_workbook(source, read_only=True, data_only=True)
        formulas = openpyxl.load_workbook(source, read_only=True, data_only=False)
    except SheetError:
        raise
    except OSError as exc:
        raise SheetError(source, [SheetIssue("(file)", None, "", _(
            "cannot read: {reason}").format(reason=exc.strerror or exc))]) from None
    except (InvalidFileException, KeyError, ValueError, TypeError, EOFError) as exc:
        raise SheetError(source, [SheetIssue("(file)", None, "", _(
            "not a workbook openpyxl can read ({reason}); save it as .xlsx (Excel "
            "Workbook)").format(reason=f"{type(exc).__name__}: {exc}"))]) from None
    except Exception as exc:  # zipfile.BadZipFile and XML errors of a damaged file
        raise SheetError(source, [SheetIssue("(file)", None, "", _(
            "not a workbook (.xlsx): {reason}").format(
                reason=f"{type(exc).__name__}: {exc}"))]) from None
    issues: List[SheetIssue] = []
    grids: Dict[str, Any] = {}
    names = list(values.sheetnames)
    try:
        for name in names:
            rows = []
            sheet = values[name]
            if sheet.__class__.__name__ != "ReadOnlyWorksheet":
                continue  # a chart sheet holds no cells
            computed = formulas[name].iter_rows()
            for number, (row, raw) in enumerate(zip(sheet.iter_rows(), computed), start=1):
                rows.append((number, [_value(cell, formula) for cell, formula in zip(row, raw)]))
            grid = grid_from_rows(name, rows)
            if grid is not None:
                grids[name] = grid
    finally:
        values.close()
        formulas.close()
    return grids, names, issues


def _value(cell: Any, source_cell: Any) -> Any:
    value = getattr(cell, "value", None)
    if getattr(cell, "data_type", None) == "e":
        return Unreadable(_("the cell shows the error {value}: fix its formula").format(
            value=value))
    if getattr(source_cell, "data_type", None) == "f" and value is None:
        return Unreadable(_("a formula whose value was never computed: open the file in a "
                            "spreadsheet program and save it again"))
    if isinstance(value, str):
        return unescape(value)
    return value


__all__ = ["EXCEL_CELL_CHARS", "CellError", "read", "write"]
