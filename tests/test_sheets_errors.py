"""Issue 15: a sheet that cannot become a deck is refused with every problem at once, each
naming its cell (``cartas!C14``), the card id and the column; nothing is written then, and the
CLI exits 2 without a traceback. Also what spreadsheet programs do to cells (a decimal comma,
``8.0``, a date, a truth value, a formula never computed, an error value) and the CSV dialects
a Brazilian Excel, LibreOffice and Google Sheets write.
"""

import datetime
import json
import re
from pathlib import Path

import pytest

from sorteio.loader import BUILTIN_DECKS
from sorteio.sheets import SheetError, export_deck, import_sheet, read_sheet
from sorteio.sheets.workbook import escape, unescape
from test_fuzz_deck import run_cli

openpyxl = pytest.importorskip("openpyxl")


@pytest.fixture()
def book(tmp_path):
    """The built-in curto deck as a workbook, opened for editing: ``(workbook, path)``."""
    path = tmp_path / "curto.xlsx"
    export_deck("curto", path)
    return openpyxl.load_workbook(path), path


def column(sheet, header: str) -> int:
    """1-based column of ``header`` in row 1."""
    return [c.value for c in sheet[1]].index(header) + 1


def letter(sheet, header: str) -> str:
    return openpyxl.utils.get_column_letter(column(sheet, header))


def problems(path: Path):
    with pytest.raises(SheetError) as caught:
        read_sheet(path)
    return caught.value.issues


def edit(book_and_path, sheet: str, row: int, header: str, value):
    wb, path = book_and_path
    wb[sheet].cell(row=row, column=column(wb[sheet], header)).value = value
    wb.save(path)
    return path


def card_id(book_and_path, row: int) -> str:
    wb, _ = book_and_path
    return wb["cartas"].cell(row=row, column=1).value


@pytest.mark.parametrize("value, says", [
    ("8,5", "'8,5' is not a whole number"),
    (8.5, "8.5 is not a whole number"),
    ("muito", "'muito' is not a whole number"),
    (True, "holds a truth value"),
    (datetime.datetime(2026, 1, 2), "holds a date"),
    (200, "200 is out of range: efeitos must be -100 to 100"),
])
def test_a_bad_effect_cell_names_sheet_cell_card_and_column(book, value, says):
    path = edit(book, "cartas", 5, "opcao1.efeitos.caixa", value)
    [issue] = problems(path)
    assert issue.cell == f"cartas!{letter(book[0]['cartas'], 'opcao1.efeitos.caixa')}5"
    assert issue.card_id == card_id(book, 5) and issue.column == "opcao1.efeitos.caixa"
    assert says in issue.message


@pytest.mark.parametrize("value", ["8", "8,0", "8,00", "8.0", " 8 ", "+8", 8.0])
def test_whole_numbers_in_any_faithful_spelling_are_read_as_integers(book, value, tmp_path):
    path = edit(book, "cartas", 3, "opcao2.efeitos.saude", value)
    out = tmp_path / "out.json"
    import_sheet(path, out)
    card = json.loads(out.read_text("utf-8"))["cartas"][1]
    assert card["opcoes"][1]["efeitos"]["saude"] == 8
    assert '"saude": 8' in out.read_text("utf-8")  # an integer, never 8.0


def test_a_unicode_minus_is_a_minus(book, tmp_path):
    path = edit(book, "cartas", 3, "opcao2.efeitos.saude", "\u22126")
    deck, _ = read_sheet(path)
    assert deck.cartas[1].opcoes[1].efeitos["saude"] == -6


@pytest.mark.parametrize("header, value, says", [
    ("modo", "marte", "unknown mode 'marte'"),
    ("titulo", None, "required, and the cell is blank"),
    ("tipo", "lenda", "Input should be 'comum', 'ator' or 'impeachment'"),
    ("pre_requisitos.ano_minimo", 5, "ano_minimo must be 1 to 4"),
    ("aprendizado.status", "talvez", "Input should be 'aprovado' or 'rascunho'"),
    ("ator", "banqueiros", "only actor cards (tipo 'ator') take 'ator'"),
])
def test_a_bad_card_field_names_its_cell(book, header, value, says):
    path = edit(book, "cartas", 4, header, value)
    [issue] = problems(path)
    assert issue.cell == f"cartas!{letter(book[0]['cartas'], header)}4", issue
    assert issue.card_id == card_id(book, 4) and issue.column == header
    assert says in issue.message


def test_a_duplicate_card_id_names_the_second_id_cell(book):
    path = edit(book, "cartas", 6, "id", card_id(book, 2))
    [issue] = problems(path)
    assert issue.cell == "cartas!A6" and "duplicate id" in issue.message


def test_a_gap_between_options_is_refused(book):
    wb, path = book
    cards = wb["cartas"]
    for cell in cards[3]:
        if str(cards.cell(row=1, column=cell.column).value).startswith("opcao1."):
            cell.value = None
    wb.save(path)
    [issue] = problems(path)
    assert issue.cell.startswith("cartas!") and issue.cell.endswith("3")
    assert "option 1 is blank but option 2 is not" in issue.message


def test_a_third_option_is_added_with_its_columns(book, tmp_path):
    wb, path = book
    cards = wb["cartas"]
    width = cards.max_column
    cards.cell(row=1, column=width + 1).value = "opcao3.texto"
    cards.cell(row=1, column=width + 2).value = "opcao3.efeitos.caixa"
    cards.cell(row=2, column=width + 1).value = "Terceira via"
    cards.cell(row=2, column=width + 2).value = -3
    wb.save(path)
    deck, _ = read_sheet(path)
    assert deck.cartas[0].opcoes[2].texto == "Terceira via"
    assert deck.cartas[0].opcoes[2].efeitos == {"caixa": -3}


@pytest.mark.parametrize("header, says", [
    ("opcao1.efeitos.caixa_2", "unknown meter 'caixa_2'"),
    ("opcao1.efeitos_atores.marcianos", "unknown actor 'marcianos'"),
    ("titlo", "unknown column 'titlo'"),
    ("opcao0.texto", "unknown column 'opcao0.texto'"),
])
def test_an_unknown_column_header_is_refused_at_the_header(book, header, says):
    wb, path = book
    cards = wb["cartas"]
    cards.cell(row=1, column=cards.max_column + 1).value = header
    wb.save(path)
    [issue] = problems(path)
    assert issue.cell == f"cartas!{openpyxl.utils.get_column_letter(cards.max_column)}1"
    assert says in issue.message


def test_a_duplicated_header_is_refused(book):
    wb, path = book
    cards = wb["cartas"]
    cards.cell(row=1, column=cards.max_column + 1).value = "titulo"
    wb.save(path)
    assert any("appears twice" in i.message for i in problems(path))


def test_the_designers_own_columns_and_sheets_start_with_a_hash(book, tmp_path):
    wb, path = book
    cards = wb["cartas"]
    cards.cell(row=1, column=cards.max_column + 1).value = "#soma"
    cards.cell(row=2, column=cards.max_column).value = "=SUM(K2:Z2)"
    wb.create_sheet("#resumo")["A1"] = "notas"
    wb.save(path)
    out = tmp_path / "out.json"
    import_sheet(path, out)
    assert json.loads(out.read_text("utf-8")) == json.loads(
        BUILTIN_DECKS["curto"].read_text("utf-8"))


def test_an_unknown_sheet_and_a_missing_sheet_are_refused(book):
    wb, path = book
    wb["modos"].title = "modes"
    wb.save(path)
    messages = [f"{i.cell}: {i.message}" for i in problems(path)]
    assert any(m.startswith("modes: unknown sheet 'modes'") for m in messages), messages
    assert any(m.startswith("modos: the sheet 'modos' is missing") for m in messages), messages


def test_a_formula_never_computed_and_an_error_value_name_their_cells(book):
    wb, path = book
    cards = wb["cartas"]
    cards.cell(row=2, column=column(cards, "opcao1.efeitos.saude")).value = "=1+1"
    cards.cell(row=3, column=column(cards, "opcao1.efeitos.saude")).value = "#DIV/0!"
    wb.save(path)
    issues = {i.cell: i.message for i in problems(path)}
    saude = letter(cards, "opcao1.efeitos.saude")
    assert "never computed" in issues[f"cartas!{saude}2"]
    assert "#DIV/0!" in issues[f"cartas!{saude}3"]


@pytest.mark.parametrize("row, value, says", [
    (3, 9, "cartas_por_turno must be 6 to 8"),
    (3, "sete", "'sete' is not a whole number"),
])
def test_a_bad_parameter_names_its_value_cell(book, row, value, says):
    wb, path = book
    params = wb["parametros"]
    assert params.cell(row=row + 1, column=1).value == "cartas_por_turno"
    params.cell(row=row + 1, column=2).value = value
    wb.save(path)
    [issue] = problems(path)
    assert issue.cell == f"parametros!B{row + 1}" and issue.column == "cartas_por_turno"
    assert says in issue.message


def test_meters_levels_and_unknown_parameters_name_their_cells(book):
    wb, path = book
    wb["medidores"]["C3"] = "abc"
    wb["medidores"]["A4"] = wb["medidores"]["A2"].value
    wb["niveis"]["C3"] = 25  # a gap in the satisfaction bands
    wb["parametros"]["A9"] = "cartas_por_ano"
    wb["parametros"]["B9"] = 3
    wb.save(path)
    issues = {i.cell: i.message for i in problems(path)}
    assert "'abc' is not a whole number" in issues["medidores!C3"]
    assert "duplicate id" in issues["medidores!A4"]
    assert "bands must cover 0-100" in issues["niveis!A2"]
    assert "unknown campo 'cartas_por_ano'" in issues["parametros!A9"]


def test_nothing_is_written_when_the_sheet_has_a_problem(book, tmp_path):
    path = edit(book, "cartas", 5, "opcao1.efeitos.caixa", "x")
    out = tmp_path / "deck.json"
    out.write_text("{}", encoding="utf-8")
    with pytest.raises(SheetError):
        import_sheet(path, out)
    assert out.read_text("utf-8") == "{}"
    assert not list(tmp_path.glob(".*partial"))


def test_office_escapes_keep_text_a_workbook_cannot_hold():
    for text in ["a\r\nb", "\x00\x01", "_x0041_", "_x005F_", "plain", "_x00"]:
        assert unescape(escape(text)) == text
    assert escape("a\rb") == "a_x000D_b"  # what Excel writes for it
    assert unescape("_x005F_x0041_") == "_x0041_"


# -- CSV ---------------------------------------------------------------------------------------


def _csv_text(tmp_path) -> str:
    path = tmp_path / "curto.csv"
    export_deck("curto", path)
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf[medidores];") or raw.startswith(b"\xef\xbb\xbf[")
    return raw.decode("utf-8-sig")


def test_the_csv_is_what_excel_pt_br_opens_bom_semicolons_crlf(tmp_path):
    text = _csv_text(tmp_path)
    first = text.split("\r\n")[1]
    assert first == "id;nome;inicial" and "\r\n" in text and "\n[cartas]" in text


@pytest.mark.parametrize("dialect", ["comma-lf-nobom", "semicolon-crlf-bom", "tab",
                                     "excel-padded"])
def test_every_csv_dialect_reads_back_the_same_deck(dialect, tmp_path):
    import csv
    import io

    text = _csv_text(tmp_path)
    rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=";"))
    delimiter = {"comma-lf-nobom": ",", "semicolon-crlf-bom": ";", "tab": "\t",
                 "excel-padded": ";"}[dialect]
    if dialect == "excel-padded":  # Excel pads every row to the widest one
        width = max(map(len, rows))
        rows = [r + [""] * (width - len(r)) for r in rows]
    buffer = io.StringIO(newline="")
    terminator = "\n" if dialect == "comma-lf-nobom" else "\r\n"
    csv.writer(buffer, delimiter=delimiter, lineterminator=terminator).writerows(rows)
    encoding = "utf-8" if dialect == "comma-lf-nobom" else "utf-8-sig"
    path = tmp_path / "dialect.csv"
    path.write_bytes(buffer.getvalue().encode(encoding))
    out = tmp_path / "out.json"
    out.write_bytes(BUILTIN_DECKS["curto"].read_bytes())
    import_sheet(path, out)
    assert out.read_bytes() == BUILTIN_DECKS["curto"].read_bytes()


def test_a_csv_saved_in_windows_1252_is_refused_with_how_to_save_utf8(tmp_path):
    path = tmp_path / "ansi.csv"
    path.write_bytes(_csv_text(tmp_path).encode("cp1252", "replace"))
    [issue] = problems(path)
    assert "not UTF-8" in issue.message and "CSV UTF-8" in issue.message


def test_a_csv_cell_names_its_section_row_and_column(tmp_path):
    text = _csv_text(tmp_path)
    lines = text.split("\r\n")
    start = lines.index("[cartas]")
    header = lines[start + 1].split(";")
    cells = lines[start + 3].split(";")  # the second card
    cells[header.index("opcao1.efeitos.caixa")] = "7,5"
    lines[start + 3] = ";".join(cells)
    path = tmp_path / "bad.csv"
    path.write_bytes("\r\n".join(lines).encode("utf-8-sig"))
    [issue] = problems(path)
    col = openpyxl.utils.get_column_letter(header.index("opcao1.efeitos.caixa") + 1)
    assert issue.cell == f"cartas!{col}{start + 4}"  # the file's row, as Excel numbers it
    assert issue.card_id == cells[0] and "'7,5' is not a whole number" in issue.message


@pytest.mark.parametrize(("cell", "says"), [
    ('"O "Centrão" pediu', 'a quote (") inside a cell that starts with one'),
    ('"Sem fim', 'a quoted cell (") is never closed'),
])
def test_a_csv_with_a_stray_quote_names_its_line_and_what_to_do(tmp_path, cell, says):
    """A quote typed into a cell in a text editor: the line, and how to write it (csv's own
    "unexpected end of data" named no line and was English in a pt-BR run; QA pass 15)."""
    lines = _csv_text(tmp_path).split("\r\n")
    row = lines.index("[cartas]") + 3  # the second card (0-based index into the lines)
    cells = lines[row].split(";")
    cells[lines[row - 2].split(";").index("texto")] = cell
    lines[row] = ";".join(cells)
    lines = lines[:row + 1]  # the file ends there: no later quote closes the cell
    path = tmp_path / "quote.csv"
    path.write_bytes("\r\n".join(lines).encode("utf-8-sig"))
    [issue] = problems(path)
    assert issue.cell == f"(line {row + 1})" and says in issue.message, issue
    assert "unexpected end of data" not in issue.message


def test_csv_export_warns_of_text_excel_would_convert(tmp_path):
    deck = json.loads(BUILTIN_DECKS["curto"].read_text("utf-8"))
    deck["cartas"][0]["opcoes"][0]["texto"] = "-5% de impostos"
    source = tmp_path / "d.json"
    source.write_text(json.dumps(deck, ensure_ascii=False), encoding="utf-8")
    done = export_deck(source, tmp_path / "d.csv")
    [warning] = done.warnings
    assert warning.column == "opcao1.texto" and "Excel reads '-5% de impostos'" in warning.message
    assert not export_deck(source, tmp_path / "d.xlsx").warnings


# -- the CLI -----------------------------------------------------------------------------------


def test_cli_round_trip_says_what_it_wrote(tmp_path, capsys):
    sheet, out = tmp_path / "c.xlsx", tmp_path / "c.json"
    code, stdout, _ = run_cli(capsys, "sheet", "export", "curto", str(sheet))
    assert code == 0 and "25 cards" in stdout and "workbook" in stdout
    code, stdout, _ = run_cli(capsys, "sheet", "import", str(sheet), str(out))
    assert code == 0 and "25 cards, 8 meters, 6 actors" in stdout
    assert json.loads(out.read_text("utf-8")) == json.loads(
        BUILTIN_DECKS["curto"].read_text("utf-8"))


def test_cli_bad_sheet_exits_2_with_one_line_per_problem(book, capsys, tmp_path):
    edit(book, "cartas", 5, "opcao1.efeitos.caixa", "x")
    path = edit(book, "cartas", 6, "modo", "marte")
    code, _, err = run_cli(capsys, "sheet", "import", str(path), str(tmp_path / "o.json"))
    lines = err.splitlines()
    assert code == 2 and len(lines) == 2 and "Traceback" not in err
    assert lines[0].startswith(f"error: {path}: cartas!") and "card '" in lines[0]
    assert "unknown mode 'marte'" in lines[1]
    assert not (tmp_path / "o.json").exists()


@pytest.mark.parametrize("args, says", [
    (["sheet", "export", "curto", "x.ods"], "must be a .xlsx workbook or a .csv file"),
    (["sheet", "export", "nada.json", "x.xlsx"], "no such file"),
    (["sheet", "import", "nada.xlsx", "o.json"], "no such file"),
    (["sheet", "import", "nada.xlsx", "o.txt"], "must be a .json file"),
    (["sheet", "export", "curto", "pasta/x.xlsx"], "does not exist"),
])
def test_cli_bad_arguments_exit_2_without_a_traceback(args, says, capsys, tmp_path,
                                                      monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, _, err = run_cli(capsys, *args)
    assert code == 2 and says in err and "Traceback" not in err, err


def test_cli_a_file_that_is_not_a_workbook_exits_2(tmp_path, capsys):
    path = tmp_path / "fake.xlsx"
    path.write_text("not a zip", encoding="utf-8")
    code, _, err = run_cli(capsys, "sheet", "import", str(path), str(tmp_path / "o.json"))
    assert code == 2 and "not a workbook" in err and "Traceback" not in err


def _with_computed_values(path: Path, value: str) -> None:
    """What a spreadsheet program does on save: every formula cell gets its computed value
    (openpyxl writes formulas with an empty ``<v/>``; here each gets ``value``)."""
    import zipfile

    with zipfile.ZipFile(path) as old:
        parts = {name: old.read(name) for name in old.namelist()}
    for name, data in parts.items():
        if name.startswith("xl/worksheets/"):
            parts[name] = data.replace(b"</f><v />", f"</f><v>{value}</v>".encode())
    with zipfile.ZipFile(path, "w") as new:
        for name, data in parts.items():
            new.writestr(name, data)


def test_a_formula_is_read_by_the_value_the_program_computed(book, tmp_path):
    wb, path = book
    cards = wb["cartas"]
    cards.cell(row=2, column=column(cards, "opcao1.efeitos.saude")).value = "=5+3"
    wb.save(path)
    _with_computed_values(path, "8")
    deck, _ = read_sheet(path)
    assert deck.cartas[0].opcoes[0].efeitos["saude"] == 8


def test_the_balance_sheet_sums_every_option_column_of_each_meter_and_actor(tmp_path):
    path = tmp_path / "p.xlsx"
    export_deck("padrao", path)
    wb = openpyxl.load_workbook(path)
    header = [c.value for c in wb["cartas"][1]]
    balance = list(wb["#balanço"].iter_rows(min_row=2, values_only=True))
    deck = json.loads(BUILTIN_DECKS["padrao"].read_text("utf-8"))
    assert [r[1] for r in balance] == ([m["id"] for m in deck["medidores"]]
                                       + [a["id"] for a in deck["atores"]])
    for what, ident, _, start, *formulas in balance:
        field = "efeitos" if what == "medidor" else "efeitos_atores"
        letters = sorted(openpyxl.utils.get_column_letter(i + 1) for i, h in enumerate(header)
                         if h in (f"opcao1.{field}.{ident}", f"opcao2.{field}.{ident}"))
        assert len(letters) == 2
        for formula in formulas:
            assert sorted(re.findall(r"cartas!\$([A-Z]+):", formula)) == letters, formula
        assert start.startswith("=medidores!C" if what == "medidor" else "=atores!C")


def test_the_cards_keep_their_deck_position_in_a_column_import_ignores(tmp_path):
    path = tmp_path / "p.xlsx"
    export_deck("curto", path)
    cards = openpyxl.load_workbook(path)["cartas"]
    order = column(cards, "#ordem")
    assert [cards.cell(row=r, column=order).value for r in range(2, cards.max_row + 1)] == list(
        range(1, cards.max_row))


def test_the_bridge_requests_give_rows_with_cell_card_and_column(book, tmp_path):
    from sorteio.bridge.designer import sheet_export, sheet_import

    path = edit(book, "cartas", 5, "opcao1.efeitos.caixa", "x")
    answer = sheet_import({"sheet": str(path), "out": str(tmp_path / "o.json")})
    [row] = answer["errors"]
    assert answer["valid"] is False and answer["written"] is False
    assert row["cell"].startswith("cartas!") and row["card_id"] == card_id(book, 5)
    assert row["field"] == "opcao1.efeitos.caixa" and row["file"] == str(path)
    done = sheet_export({"deck": "curto", "sheet": str(tmp_path / "c.csv")})
    assert done["format"] == "csv" and done["cards"] == 25
    answer = sheet_import({"sheet": str(tmp_path / "c.csv"), "out": str(tmp_path / "o.json")})
    assert answer["written"] and answer["summary"]["playable"] == 22


def test_an_invalid_deck_is_not_exported(tmp_path, capsys):
    deck = json.loads(BUILTIN_DECKS["curto"].read_text("utf-8"))
    deck["cartas"][0]["modo"] = "marte"
    source = tmp_path / "d.json"
    source.write_text(json.dumps(deck), encoding="utf-8")
    code, _, err = run_cli(capsys, "sheet", "export", str(source), str(tmp_path / "d.xlsx"))
    assert code == 2 and "unknown mode 'marte'" in err and not (tmp_path / "d.xlsx").exists()


@pytest.mark.parametrize("fmt", ["csv", "xlsx"])
def test_control_characters_and_a_carriage_return_survive_both_formats(fmt, tmp_path):
    deck = json.loads(BUILTIN_DECKS["curto"].read_text("utf-8"))
    deck["cartas"][0]["texto"] = "a\x00b\r\nc\x1f_x0041_"  # NUL: Python < 3.11's csv refuses it
    source = tmp_path / "d.json"
    source.write_text(json.dumps(deck), encoding="utf-8")
    export_deck(source, tmp_path / f"d.{fmt}")
    back, _ = read_sheet(tmp_path / f"d.{fmt}")
    assert back.cartas[0].texto == deck["cartas"][0]["texto"]
