"""The spreadsheet layout of a deck, both ways: ``tables(deck)`` for export, ``read_grids``
for import (format-free: ``workbook`` and ``csvfile`` only move cells).

Sheets (their names are the deck's field names, README "Spreadsheets"):

- ``cartas``: one row per card. ``id``, ``titulo``, ``modo``, ``pre_requisitos.ano_minimo``,
  ``tipo``, ``ator``, ``funcao``, ``aprendizado.status``, ``texto``, ``aprendizado.texto``, then
  one block of columns per option: ``opcao1.texto``, ``opcao1.efeitos.<meter id>`` for every
  meter (deck order), ``opcao1.efeitos_atores.<actor id>`` for every actor, then ``opcao2...``.
  A blank effect cell is no effect; ``0`` is an effect of 0 (kept as written).
- ``medidores`` (id, nome, inicial), ``atores`` (id, nome, satisfacao_inicial), ``niveis`` (id,
  nome, minimo, maximo, funcao), ``modos`` (id, nome): one row per entry, in deck order (the
  meters' order breaks ties, §3.3).
- ``parametros``: ``campo`` / ``valor`` rows: ``nome``, ``$schema`` and the §7 parameters.

Row order is deck order (``#ordem`` numbers the cards, to sort back after sorting by a meter).
Columns and sheets whose name starts with ``#`` are the designer's own (sums, notes, the
workbook's ``#balanço``) and are ignored; any other unknown column or sheet is an error, so a
typo in a header never drops data silently. A blank cell is an absent field (its default),
except ``parametros``' ``nome``, which may be the empty text.
"""

import re
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from ..deck import RANGES, Actor, Deck, Level, Meter, Mode, Parameters
from ..i18n import _
from .cells import CellError, Grid, SheetIssue, blank, cell_name, integer, text, widen

TEXT, INT = "text", "int"

CARDS, PARAMETERS = "cartas", "parametros"
# Workbook order: the cards first (where designers work), the deck's settings after.
SHEETS = (CARDS, "medidores", "atores", "niveis", "modos", PARAMETERS)
NOTE = "#"  # a sheet or a column of the designer's own
# The cards' position in the deck, 1..N, in a column import ignores: sort back by it after
# sorting the cards by a meter (row order is deck order, which the draw and saves depend on).
ORDER_COLUMN = "#ordem"

ENTITY_COLUMNS: Dict[str, Tuple[Tuple[str, str], ...]] = {
    "medidores": (("id", TEXT), ("nome", TEXT), ("inicial", INT)),
    "atores": (("id", TEXT), ("nome", TEXT), ("satisfacao_inicial", INT)),
    "niveis": (("id", TEXT), ("nome", TEXT), ("minimo", INT), ("maximo", INT),
               ("funcao", TEXT)),
    "modos": (("id", TEXT), ("nome", TEXT)),
}
ENTITY_MODELS = {"medidores": Meter, "atores": Actor, "niveis": Level, "modos": Mode}

# The card's own columns: header, kind, the path inside the card.
CARD_COLUMNS: Tuple[Tuple[str, str, Tuple[str, ...]], ...] = (
    ("id", TEXT, ("id",)),
    ("titulo", TEXT, ("titulo",)),
    ("modo", TEXT, ("modo",)),
    ("pre_requisitos.ano_minimo", INT, ("pre_requisitos", "ano_minimo")),
    ("tipo", TEXT, ("tipo",)),
    ("ator", TEXT, ("ator",)),
    ("funcao", TEXT, ("funcao",)),
    ("aprendizado.status", TEXT, ("aprendizado", "status")),
    ("texto", TEXT, ("texto",)),
    ("aprendizado.texto", TEXT, ("aprendizado", "texto")),
)
OPTION = re.compile(r"^opcao([1-9][0-9]{0,3})\.(texto|efeitos\.(.+)|efeitos_atores\.(.+))$",
                    re.S)

PARAMETER_HEADER = ("campo", "valor", "#sobre")
PARAMETER_ROWS: Tuple[Tuple[str, str, str], ...] = (
    ("nome", TEXT, "the deck's name"),
    ("$schema", TEXT, "JSON Schema an editor checks the deck file with (optional; not part of "
                      "the deck)"),
    *((name, INT, f"{RANGES[name][0]} to {RANGES[name][1]}: {RANGES[name][2]}")
      for name in Parameters.model_fields),
)

WIDTHS = {"id": 16, "titulo": 30, "modo": 14, "pre_requisitos.ano_minimo": 6, "tipo": 11,
          "ator": 16, "funcao": 12, "aprendizado.status": 11, "texto": 40,
          "aprendizado.texto": 30, "nome": 24, "campo": 20, "valor": 20, "#sobre": 90}


class Column(NamedTuple):
    header: str
    kind: str
    width: int


class Table(NamedTuple):
    """A sheet to write: its name, its columns and its rows of values (None: blank)."""

    name: str
    columns: List[Column]
    rows: List[List[Any]]


def _column(header: str, kind: str) -> Column:
    width = WIDTHS.get(header, 7 if kind == INT else 16)
    if header.endswith(".texto") and header.startswith("opcao"):
        width = 30
    return Column(header, kind, width)


def option_count(deck: Deck) -> int:
    return max((len(card.opcoes) for card in deck.cartas), default=2)


def option_columns(deck: Deck, number: int) -> List[Column]:
    """The block of option ``number`` (1-based): its text, one column per meter, per actor."""
    prefix = f"opcao{number}."
    return ([_column(prefix + "texto", TEXT)]
            + [_column(f"{prefix}efeitos.{m.id}", INT) for m in deck.medidores]
            + [_column(f"{prefix}efeitos_atores.{a.id}", INT) for a in deck.atores])


def tables(deck: Deck) -> List[Table]:
    """The deck as sheets, in ``SHEETS`` order (see the module docstring)."""
    cards = [_column(header, kind) for header, kind, _ in CARD_COLUMNS]
    options = option_count(deck)
    for number in range(1, options + 1):
        cards += option_columns(deck, number)
    card_rows = []
    for card in deck.cartas:
        data = card.model_dump(mode="json")
        row = [_dig(data, path) for _, _, path in CARD_COLUMNS]
        for number in range(1, options + 1):
            option = card.opcoes[number - 1] if number <= len(card.opcoes) else None
            row.append(option.texto if option else None)
            row += [option.efeitos.get(m.id) if option else None for m in deck.medidores]
            row += [option.efeitos_atores.get(a.id) if option else None for a in deck.atores]
        card_rows.append([*row, len(card_rows) + 1])
    cards.append(Column(ORDER_COLUMN, INT, 7))
    out = [Table(CARDS, cards, card_rows)]
    for name, columns in ENTITY_COLUMNS.items():
        entries = [entry.model_dump(mode="json") for entry in getattr(deck, name)]
        out.append(Table(name, [_column(h, k) for h, k in columns],
                         [[entry[h] for h, _ in columns] for entry in entries]))
    values = {"nome": deck.nome, "$schema": deck.schema_ref,
              **deck.parametros.model_dump(mode="json")}
    out.append(Table(PARAMETERS, [_column(h, TEXT) for h in PARAMETER_HEADER],
                     [[name, values[name], about] for name, _, about in PARAMETER_ROWS]))
    return out


def _dig(data: Dict[str, Any], path: Tuple[str, ...]) -> Any:
    for part in path:
        data = data.get(part) if isinstance(data, dict) else None
    return data


# -- import ------------------------------------------------------------------------------------


class Located(NamedTuple):
    """Where a deck field came from: its cell and the column's header."""

    cell: str
    column: str


Locations = Dict[str, Located]  # dotted field path (as deck errors name it) -> cell


def field_key(path: Tuple[Any, ...]) -> str:
    """The dotted field path of a deck error (``loader`` joins pydantic's locations so)."""
    return ".".join(str(part) for part in path)


class Reader:
    """Turns grids into deck data, collecting every cell problem and where each field is."""

    def __init__(self) -> None:
        self.issues: List[SheetIssue] = []
        self.where: Locations = {}

    def problem(self, cell: str, card_id: Optional[str], column: str, message: str) -> None:
        self.issues.append(SheetIssue(cell, card_id, column, message))

    def read(self, grids: Dict[str, Grid], source_sheets: List[str]) -> Dict[str, Any]:
        """Deck data from the sheets by name; ``source_sheets``: every sheet name in the file,
        in file order (to refuse unknown ones)."""
        for name in source_sheets:
            if name not in SHEETS and not name.startswith(NOTE):
                self.problem(name, None, "", _(
                    "unknown sheet '{name}' (a deck's sheets are {sheets}; start the name of a "
                    "sheet of your own with '#' to keep it)").format(name=name,
                                                                     sheets=", ".join(SHEETS)))
        present = [name for name in SHEETS if name in grids]
        for name in SHEETS:
            if name not in source_sheets:
                self.problem(name, None, "", _(
                    "the sheet '{name}' is missing (a deck's sheets are {sheets})").format(
                        name=name, sheets=", ".join(SHEETS)))
        data: Dict[str, Any] = {}
        params = self._parameters(grids.get(PARAMETERS))
        if "nome" in params:
            data["nome"] = params.pop("nome")
        if "$schema" in params:
            data["$schema"] = params.pop("$schema")
        data["parametros"] = params
        self.where.setdefault("parametros", Located(f"{PARAMETERS}!A1", PARAMETERS))
        for name in ("medidores", "niveis", "atores", "modos"):
            data[name] = self._entities(name, grids.get(name))
        data["cartas"] = self._cards(grids.get(CARDS), data)
        self.where.setdefault("(deck)", Located(f"{present[0] if present else CARDS}!A1", ""))
        return data

    # -- header ---------------------------------------------------------------------------

    def _header(self, grid: Grid, width: int) -> List[Optional[str]]:
        """The column headers (None for an ignored column), refusing duplicates and data under
        a blank header."""
        headers: List[Optional[str]] = []
        seen: Dict[str, str] = {}
        for c, value in enumerate(widen(grid.header.values, width)):
            where = grid.cell(grid.header.number, c)
            try:
                name = text(value)
            except CellError as exc:
                self.problem(where, None, "", _("a column header {problem}").format(problem=exc))
                headers.append(None)
                continue
            if name is None:
                if any(not blank(widen(r.values, width)[c]) for r in grid.rows):
                    self.problem(where, None, "", _("a column with values has no header; "
                                                    "give it one (start it with '#' for a "
                                                    "column of your own)"))
                headers.append(None)
                continue
            name = name.strip()
            if name.startswith(NOTE):
                headers.append(None)
                continue
            if name in seen:
                self.problem(where, None, name, _("the column '{name}' appears twice (also "
                                                  "at {cell})").format(name=name,
                                                                       cell=seen[name]))
                headers.append(None)
                continue
            seen[name] = where
            headers.append(name)
        return headers

    @staticmethod
    def _width(grid: Grid) -> int:
        return max([len(grid.header.values), *(len(r.values) for r in grid.rows)])

    def _value(self, grid: Grid, row: int, column: int, header: str, kind: str,
               raw: Any, card_id: Optional[str] = None) -> Any:
        try:
            return integer(raw) if kind == INT else text(raw)
        except CellError as exc:
            self.problem(grid.cell(row, column), card_id, header, str(exc))
            return None

    # -- parametros -----------------------------------------------------------------------

    def _parameters(self, grid: Optional[Grid]) -> Dict[str, Any]:
        out: Dict[str, Any] = {}
        if grid is None:
            return out
        width = self._width(grid)
        headers = self._header(grid, width)
        columns = {h: c for c, h in enumerate(headers) if h is not None}
        for needed in ("campo", "valor"):
            if needed not in columns:
                self.problem(grid.cell(grid.header.number, 0), None, needed,
                             _("the sheet needs a '{column}' column (its columns: campo, "
                               "valor)").format(column=needed))
        for c, header in enumerate(headers):
            if header is not None and header not in ("campo", "valor"):
                self.problem(grid.cell(grid.header.number, c), None, header,
                             _("unknown column '{column}' (the columns are campo, "
                               "valor)").format(column=header))
        if "campo" not in columns or "valor" not in columns:
            return out
        kinds = {name: kind for name, kind, _ in PARAMETER_ROWS}
        seen: Dict[str, str] = {}
        for row in grid.rows:
            values = widen(row.values, width)
            key_cell = grid.cell(row.number, columns["campo"])
            name = self._value(grid, row.number, columns["campo"], "campo", TEXT,
                               values[columns["campo"]])
            if name is None:
                if not blank(values[columns["valor"]]):
                    self.problem(key_cell, None, "campo", _("a value without its 'campo'"))
                continue
            name = name.strip()
            if name not in kinds:
                self.problem(key_cell, None, "campo", _(
                    "unknown campo '{name}' (the campos are {names})").format(
                        name=name, names=", ".join(kinds)))
                continue
            if name in seen:
                self.problem(key_cell, None, "campo", _(
                    "'{name}' is given twice (also at {cell})").format(name=name,
                                                                       cell=seen[name]))
                continue
            seen[name] = key_cell
            value_cell = grid.cell(row.number, columns["valor"])
            value = self._value(grid, row.number, columns["valor"], name, kinds[name],
                                values[columns["valor"]])
            path = name if name in ("nome", "$schema") else f"parametros.{name}"
            self.where[path] = Located(value_cell, name)
            if value is None and name == "nome":
                value = ""  # the row is there: a blank name is the empty name, not the default
            if value is not None:
                out[name] = value
        return out

    # -- medidores, atores, niveis, modos -------------------------------------------------

    def _entities(self, name: str, grid: Optional[Grid]) -> List[Dict[str, Any]]:
        out: List[Dict[str, Any]] = []
        if grid is None:
            return out
        self.where[name] = Located(grid.cell(grid.rows[0].number if grid.rows
                                             else grid.header.number, 0), name)
        width = self._width(grid)
        headers = self._header(grid, width)
        kinds = dict(ENTITY_COLUMNS[name])
        columns: Dict[str, int] = {}
        for c, header in enumerate(headers):
            if header is None:
                continue
            if header not in kinds:
                self.problem(grid.cell(grid.header.number, c), None, header,
                             _("unknown column '{column}' (the columns of '{sheet}' are "
                               "{columns})").format(column=header, sheet=name,
                                                    columns=", ".join(kinds)))
                continue
            columns[header] = c
        for header in kinds:
            if header not in columns:
                self.problem(grid.cell(grid.header.number, 0), None, header,
                             _("the column '{column}' is missing").format(column=header))
        for row in grid.rows:
            values = widen(row.values, width)
            index = len(out)
            entry: Dict[str, Any] = {}
            self.where[f"{name}.{index}"] = Located(grid.cell(row.number, columns.get("id", 0)),
                                                   "id")
            for header, c in columns.items():
                self.where[f"{name}.{index}.{header}"] = Located(grid.cell(row.number, c), header)
                value = self._value(grid, row.number, c, header, kinds[header], values[c])
                if value is not None:
                    entry[header] = value
            out.append(entry)
        return out

    # -- cartas ---------------------------------------------------------------------------

    def _cards(self, grid: Optional[Grid], data: Dict[str, Any]) -> List[Dict[str, Any]]:
        out: List[Dict[str, Any]] = []
        if grid is None:
            return out
        self.where["cartas"] = Located(grid.cell(grid.header.number, 0), CARDS)
        width = self._width(grid)
        headers = self._header(grid, width)
        own = {header: (kind, path) for header, kind, path in CARD_COLUMNS}
        meters = {m.get("id") for m in data["medidores"]}
        actors = {a.get("id") for a in data["atores"]}
        columns: Dict[str, int] = {}
        options: Dict[int, List[Tuple[int, str, Tuple[str, ...]]]] = {}
        for c, header in enumerate(headers):
            if header is None:
                continue
            where = grid.cell(grid.header.number, c)
            if header in own:
                columns[header] = c
                continue
            match = OPTION.match(header)
            if not match:
                self.problem(where, None, header, _(
                    "unknown column '{column}' (a card's columns are {columns} and "
                    "opcaoN.texto, opcaoN.efeitos.<meter id>, opcaoN.efeitos_atores.<actor "
                    "id>)").format(column=header, columns=", ".join(own)))
                continue
            number, meter, actor = int(match.group(1)), match.group(3), match.group(4)
            if meter is not None and meter not in meters:
                self.problem(where, None, header, _(
                    "unknown meter '{meter}' (the sheet 'medidores' declares: {meters})").format(
                        meter=meter, meters=", ".join(sorted(map(str, meters)))))
                continue
            if actor is not None and actor not in actors:
                self.problem(where, None, header, _(
                    "unknown actor '{actor}' (the sheet 'atores' declares: {actors})").format(
                        actor=actor, actors=", ".join(sorted(map(str, actors))) or _("none")))
                continue
            path = (("texto",) if meter is None and actor is None
                    else ("efeitos", meter) if meter is not None else ("efeitos_atores", actor))
            options.setdefault(number, []).append((c, header, path))
        for header in ("id", "titulo", "modo"):
            if header not in columns:
                self.problem(grid.cell(grid.header.number, 0), None, header,
                             _("the column '{column}' is missing").format(column=header))
        for row in grid.rows:
            out.append(self._card(grid, row, width, columns, options, len(out)))
        return out

    def _card(self, grid: Grid, row: Any, width: int, columns: Dict[str, int],
              options: Dict[int, List[Tuple[int, str, Tuple[str, ...]]]],
              index: int) -> Dict[str, Any]:
        values = widen(row.values, width)
        here = f"cartas.{index}"
        card_id = None
        if "id" in columns:
            try:
                card_id = text(values[columns["id"]])
            except CellError:
                card_id = None
        first = grid.cell(row.number, columns.get("id", 0))
        self.where[here] = Located(first, "id")
        card: Dict[str, Any] = {}
        for header, kind, path in CARD_COLUMNS:
            if header not in columns:
                continue
            c = columns[header]
            self.where[field_key((here, *path))] = Located(grid.cell(row.number, c), header)
            if len(path) == 2:
                self.where.setdefault(f"{here}.{path[0]}", Located(grid.cell(row.number, c),
                                                                  header))
            value = self._value(grid, row.number, c, header, kind, values[c], card_id)
            if value is None:
                continue
            if len(path) == 1:
                card[path[0]] = value
            else:
                card.setdefault(path[0], {})[path[1]] = value
        # Canonical key order (the project's decks'): see deckjson.CARD_ORDER.
        ordered = {k: card[k] for k in ("id", "titulo", "texto", "modo", "tipo", "ator", "funcao",
                                        "pre_requisitos", "aprendizado") if k in card}
        ordered["opcoes"] = self._options(grid, row.number, values, options, here, card_id)
        return ordered

    def _options(self, grid: Grid, number: int, values: List[Any],
                 options: Dict[int, List[Tuple[int, str, Tuple[str, ...]]]], here: str,
                 card_id: Optional[str]) -> List[Dict[str, Any]]:
        out: List[Dict[str, Any]] = []
        gap: Optional[Tuple[int, str]] = None  # the first blank option, while later ones follow
        self.where[f"{here}.opcoes"] = self.where[here]
        for option_number in sorted(options):
            cells = options[option_number]
            filled = [(c, h, p) for c, h, p in cells if not blank(values[c])]
            if not filled:
                if gap is None:
                    gap = (option_number, grid.cell(number, cells[0][0]))
                continue
            if gap is not None:
                self.problem(gap[1], card_id, f"opcao{gap[0]}",
                             _("option {blank} is blank but option {filled} is not: number a "
                               "card's options without gaps (the game shows them in "
                               "order)").format(blank=gap[0], filled=option_number))
                gap = None
            at = f"{here}.opcoes.{len(out)}"
            texto_cell = next((c for c, _, p in cells if p == ("texto",)), cells[0][0])
            self.where[at] = Located(grid.cell(number, texto_cell), f"opcao{option_number}")
            self.where[f"{at}.texto"] = Located(grid.cell(number, texto_cell),
                                                f"opcao{option_number}.texto")
            option: Dict[str, Any] = {}
            effects: Dict[str, Dict[str, int]] = {"efeitos": {}, "efeitos_atores": {}}
            for c, header, path in cells:
                key = field_key((at, *path))
                self.where[key] = Located(grid.cell(number, c), header)
                if len(path) == 2:
                    self.where.setdefault(f"{at}.{path[0]}", Located(grid.cell(number, c),
                                                                    header))
                kind = TEXT if path == ("texto",) else INT
                value = self._value(grid, number, c, header, kind, values[c], card_id)
                if value is None:
                    continue
                if path == ("texto",):
                    option["texto"] = value
                else:
                    effects[path[0]][path[1]] = value
            option["efeitos"] = effects["efeitos"]
            if effects["efeitos_atores"]:
                option["efeitos_atores"] = effects["efeitos_atores"]
            out.append(option)
        return out


def cell_of(where: Locations, field: str) -> Optional[Located]:
    """Where a deck error's field came from: the field itself, else its nearest parent."""
    key = field
    while key:
        if key in where:
            return where[key]
        key = key.rpartition(".")[0]
    return where.get("(deck)")


__all__ = ["CARDS", "SHEETS", "Located", "Reader", "Table", "cell_name", "cell_of",
           "tables"]
