"""Issue 15 "a round trip between a deck and a spreadsheet ... from the panel", in a real Godot 4
editor: the Sorteio panel's "Exportar planilha…" / "Importar planilha…" (sheet_actions.gd) and
the results' CSV in the run's language (results_csv.gd).

The probe (tests/godot4/editor_probe, ``--only=sheets``) exports the project's deck to .xlsx
and .csv, imports both back, imports a sheet with one cell edited, undoes and redoes that
import through the editor's undo history, and imports a sheet with a bad cell; it prints the
deck file's md5 at every step. pytest prepares the edited and bad sheets with Python's own
exporter and openpyxl (the cell a designer would change in Excel). Each test runs twice: on
the socket bridge, and with the Python GDExtension installed, the panel then on the extension's
own Python in the editor's process (its runtime carries openpyxl: scripts/gdextension.sh).
"""

import hashlib
import json
import shutil

import pytest

from godot4_harness import godot_env, import_project, run_godot
from sorteio.sheets import export_deck, import_sheet
from test_godot4_editor import ALLOWED, designer_project, panel_lines

openpyxl = pytest.importorskip("openpyxl")

pytestmark = pytest.mark.godot

NEW_TITLE = "Reforma fiscal"


def md5(path) -> str:
    return hashlib.md5(path.read_bytes()).hexdigest()


def cell_of(sheet, header: str, row: int) -> str:
    """The A1 name of column ``header`` in ``row`` of ``sheet`` (headers in row 1)."""
    for cell in sheet[1]:
        if cell.value == header:
            return f"{cell.column_letter}{row}"
    raise AssertionError(f"no column {header}")


@pytest.fixture(scope="module", params=["socket", "inprocess"])
def sheets_run(request, tmp_path_factory):
    """The probe's run: on the socket bridge (the project's Python), and with the Python
    GDExtension installed, where the panel runs on the extension's own Python in the editor's
    process (scripts/gdextension.sh installs sorteio[sheets] there: openpyxl for .xlsx)."""
    tmp = tmp_path_factory.mktemp(f"g4sheets_{request.param}")
    project = designer_project(tmp / "designer")
    allowed = ALLOWED
    if request.param == "inprocess":
        from godot4_python_runtime import NOISE, install_extension

        install_extension(project)
        allowed = ALLOWED + NOISE
    deck = project / "decks" / "bom.sorteio.json"
    original = md5(deck)
    given = tmp / "given"
    given.mkdir()
    export_deck(str(deck), given / "base.xlsx")
    book = openpyxl.load_workbook(given / "base.xlsx")
    cards = book["cartas"]
    title = cell_of(cards, "titulo", 2)
    old_title = cards[title].value
    cards[title] = NEW_TITLE  # one cell changed, as in Excel
    book.save(given / "edited.xlsx")
    cards[title] = old_title
    year = cell_of(cards, "pre_requisitos.ano_minimo", 3)
    cards[year] = "dois"  # not a year
    book.save(given / "bad.xlsx")
    # What the CLI makes of the edited sheet over the same file: the panel must write that.
    expected = given / "expected.sorteio.json"
    shutil.copy(deck, expected)
    import_sheet(given / "edited.xlsx", expected)
    out = tmp / "exports"
    out.mkdir()
    import_project(project, allowed=allowed)
    run = run_godot(project, ["--editor", "--", "--only=sheets", f"--out={out}",
                              f"--sheets={given}"],
                    tmp / "home", env=godot_env(tmp / "home", SORTEIO_LANG="pt_BR"),
                    allowed=allowed, timeout=600, log_name=f"sheets_{request.param}")
    shown = panel_lines(run.log)
    steps = {step["step"]: step for step in shown["sheets"]["data"]}
    return {"run": run, "steps": steps, "csv": shown["results_csv"]["data"], "deck": deck,
            "original": original, "out": out, "bad_cell": f"cartas!{year}",
            "old_title": old_title, "expected": expected, "bridge": request.param}


def test_the_panel_exports_the_deck_and_imports_it_back_byte_identical(sheets_run):
    sheets_run["run"].passed()
    steps = sheets_run["steps"]
    assert steps["start"]["md5"] == sheets_run["original"]
    for kind in ("xlsx", "csv"):
        written = sheets_run["out"] / f"deck.{kind}"
        assert written.stat().st_size > 1000
        assert f"planilha exportada: {written}" in steps[f"export_{kind}"]["status"]
        # Nothing lost: the deck written from the sheet is the file it came from, byte for byte,
        # so the import makes no undo step.
        assert steps[f"import_{kind}"]["md5"] == sheets_run["original"], steps[f"import_{kind}"]
        assert "o baralho não mudou" in steps[f"import_{kind}"]["status"]
        assert "importar planilha" not in steps[f"import_{kind}"]["undo"]
    assert (sheets_run["out"] / "deck.csv").read_bytes().startswith(b"\xef\xbb\xbf")
    if sheets_run["bridge"] == "inprocess":
        # The extension's own Python answered, openpyxl included (before the runtime had the
        # `sheets` extra, the .xlsx export was refused there with the install hint).
        for step in ("export_xlsx", "import_xlsx"):
            assert "Python no processo do editor (GDExtension)" in steps[step]["status"], step


def test_an_edited_sheet_changes_that_card_in_one_undoable_action(sheets_run):
    steps = sheets_run["steps"]
    edited = steps["edited"]
    assert edited["md5"] != sheets_run["original"]
    assert edited["md5"] == md5(sheets_run["expected"])  # as `sorteio sheet import` writes it
    before = json.loads(sheets_run["deck"].read_text("utf-8"))  # the original, after the undo
    after = json.loads(sheets_run["expected"].read_text("utf-8"))
    assert after["cartas"][0]["titulo"] == NEW_TITLE
    after["cartas"][0]["titulo"] = before["cartas"][0]["titulo"]
    assert after == before  # that one cell, nothing else
    assert edited["title"] == NEW_TITLE
    assert edited["undo"] == "Sorteio: importar planilha edited.xlsx"
    assert "planilha edited.xlsx importada" in edited["status"]
    assert "res://decks/bom.sorteio.json" in edited["status"]
    # Undo gives the previous file back byte for byte; redo the imported one.
    assert steps["undo"]["md5"] == sheets_run["original"]
    assert steps["undo"]["title"] == sheets_run["old_title"]
    assert steps["redo"]["md5"] == edited["md5"]


def test_a_bad_cell_is_listed_by_its_cell_and_nothing_is_written(sheets_run):
    bad = sheets_run["steps"]["bad"]
    assert bad["md5"] == sheets_run["original"]
    assert md5(sheets_run["deck"]) == sheets_run["original"]  # the last undo, then nothing
    cells = [row[3] for row in bad["problems"]]
    assert sheets_run["bad_cell"] in cells, bad["problems"]
    row = bad["problems"][cells.index(sheets_run["bad_cell"])]
    assert row[0] == "erro" and row[1] == "bad.xlsx" and "dois" in row[4], row
    assert "problema(s) na planilha bad.xlsx; o baralho não foi alterado" in bad["status"]


def test_results_csv_is_excel_pt_br_in_portuguese_and_plain_in_english(sheets_run):
    """The panel's "Exportar (CSV)": in pt-BR ';', a UTF-8 BOM, CRLF and decimal commas in the
    number cells only (Excel pt-BR opens it as columns of numbers); in English ',' and points."""
    csv = sheets_run["csv"]
    assert csv["pt_BR"] == 0 and csv["en"] == 0
    pt = (sheets_run["out"] / "problems_pt_BR.csv").read_bytes()
    en = (sheets_run["out"] / "problems_en.csv").read_bytes()
    assert pt.startswith(b"\xef\xbb\xbf;arquivo;carta;") and b"\r\n" in pt
    assert not en.startswith(b"\xef\xbb\xbf") and en.startswith(b",")
    assert csv["text_pt_BR"] == (
        "\ufeff#;catástrofe;IC 95%;Δ;carta;campo\r\n"
        "1;12,5%;10,1–14,9;+1,20;eco-01;cartas.3.modo\r\n"
        '2;7,0%;+0,40 a +2,10;-3;"diz ""sim""; ou, não";4.6.1\r\n')
    assert csv["text_en"] == (
        "#,catástrofe,IC 95%,Δ,carta,campo\n"
        "1,12.5%,10.1–14.9,+1.20,eco-01,cartas.3.modo\n"
        '2,7.0%,+0.40 a +2.10,-3,"diz ""sim""; ou, não",4.6.1\n')

