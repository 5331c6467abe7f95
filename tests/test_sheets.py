"""Issue 15, "Designers balance in spreadsheets": a deck -> spreadsheet -> deck round trip loses
nothing, in both formats (.xlsx, .csv).

"Nothing lost" is checked three ways: the deck read back has the deck's fingerprint (what a
saved match is tied to) and the same data field by field; imported over the file it came from,
the JSON is byte for byte that file (key order and the fields a file leaves to their defaults
are kept); and an edit of one cell changes one line of the JSON. On the built-in decks, on the
deck fuzzer's accepted mutants (tests/test_fuzz_deck.py) and on hypothesis' random decks with
hostile text (control characters, a carriage return, Office's own ``_x0041_`` escape, leading
'=', spaces at the ends, right-to-left marks, emoji).
"""

import difflib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sorteio.compiled import deck_fingerprint
from sorteio.deck import Actor, Level, Meter, Mode
from sorteio.jsonfile import loads
from sorteio.loader import BUILTIN_DECKS, DeckError, load_deck, parse_deck
from sorteio.sheets import LONG_CELL, SheetError, export_deck, import_sheet, read_sheet
from sorteio.sheets.deckjson import deck_data, dumps
from sorteio.sheets.layout import ENTITY_COLUMNS, ENTITY_MODELS
from strategies import decks
from test_fuzz_deck import SEED, mutant

openpyxl = pytest.importorskip("openpyxl")

FORMATS = ["xlsx", "csv"]


def _round_trip(deck_path, tmp_path: Path, fmt: str, template: bool):
    """Export ``deck_path``, import it (over a copy of the deck when ``template``); returns the
    imported deck and the JSON text written."""
    sheet = tmp_path / f"deck.{fmt}"
    export_deck(deck_path, sheet)
    out = tmp_path / "out.json"
    if template:
        out.write_bytes(Path(deck_path).read_bytes())
    elif out.exists():
        out.unlink()
    done = import_sheet(sheet, out)
    return done.deck, out.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(BUILTIN_DECKS))
def test_a_built_in_deck_comes_back_byte_for_byte_over_its_file(name, fmt, tmp_path):
    path = BUILTIN_DECKS[name]
    deck, text = _round_trip(path, tmp_path, fmt, template=True)
    assert text == path.read_text(encoding="utf-8")
    assert deck_fingerprint(deck) == deck_fingerprint(load_deck(path))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", sorted(BUILTIN_DECKS))
def test_a_built_in_deck_comes_back_whole_into_a_new_file(name, fmt, tmp_path):
    path = BUILTIN_DECKS[name]
    deck, text = _round_trip(path, tmp_path, fmt, template=False)
    # A new file is written in the project's order; only effects' key order may differ.
    assert json.loads(text) == json.loads(path.read_text(encoding="utf-8"))
    assert deck_fingerprint(deck) == deck_fingerprint(load_deck(path))
    assert text == dumps(json.loads(text)) and text.endswith("}\n")


def test_the_entity_sheets_have_a_column_for_every_field_of_their_model():
    for name, model in ENTITY_MODELS.items():
        assert [c for c, _ in ENTITY_COLUMNS[name]] == list(model.model_fields), name
    assert {Meter, Actor, Level, Mode} == set(ENTITY_MODELS.values())


def test_editing_one_effect_changes_one_line_of_the_json(tmp_path):
    deck_file = tmp_path / "deck.json"
    deck_file.write_bytes(BUILTIN_DECKS["padrao"].read_bytes())
    sheet = tmp_path / "deck.xlsx"
    export_deck(deck_file, sheet)
    book = openpyxl.load_workbook(sheet)
    cards = book["cartas"]
    header = [c.value for c in cards[1]]
    column = header.index("opcao1.efeitos.caixa") + 1
    row = next(r for r in range(2, cards.max_row + 1)
               if cards.cell(row=r, column=column).value is not None)
    old = cards.cell(row=row, column=column).value
    cards.cell(row=row, column=column).value = old + 1
    book.save(sheet)
    before = deck_file.read_text(encoding="utf-8").splitlines()
    import_sheet(sheet, deck_file)
    after = deck_file.read_text(encoding="utf-8").splitlines()
    changed = [line for line in difflib.unified_diff(before, after, lineterm="", n=0)
               if line[:1] in "+-" and not line.startswith(("+++", "---"))]
    squeezed = [line.replace(" ", "").rstrip(",") for line in changed]
    assert squeezed == [f'-"caixa":{old}', f'+"caixa":{old + 1}'], changed


# -- fuzzed decks ------------------------------------------------------------------------------

FUZZ = 150  # mutants of the fuzzer tried; about a third are valid decks (asserted below)


def _accepted_mutants():
    for index in range(FUZZ):
        text, what = mutant(SEED, index)
        data, problems = loads(text, "mutant")
        if problems:
            continue
        try:
            parse_deck(data, "mutant", problems)
        except DeckError:
            continue
        yield index, text, what


ACCEPTED = list(_accepted_mutants())


def test_the_fuzzer_gives_enough_valid_decks_to_round_trip():
    assert len(ACCEPTED) >= 20, len(ACCEPTED)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_valid_fuzzed_deck_round_trips(fmt, tmp_path):
    refused = 0
    for index, text, what in ACCEPTED:
        source = tmp_path / f"m{index}.json"
        source.write_text(text, encoding="utf-8")
        original = load_deck(source)
        if fmt == "xlsx" and max(map(len, _texts(json.loads(text)))) > LONG_CELL:
            with pytest.raises(SheetError, match="a workbook cell holds at most 32,767"):
                export_deck(source, tmp_path / "long.xlsx")
            refused += 1
            continue
        # Over its own file: the same data in the same order, in the project's formatting.
        deck, written = _round_trip(source, tmp_path, fmt, template=True)
        assert written == dumps(json.loads(text)), (index, what)
        assert deck.model_dump() == original.model_dump(), (index, what)
        # Into a new file (the project's key order): the same deck.
        fresh = dumps(deck_data(deck))
        assert deck_fingerprint(parse_deck(json.loads(fresh))) == deck_fingerprint(original)
    assert refused < len(ACCEPTED) // 2


def _texts(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, dict):
        for value in node.values():
            yield from _texts(value)
    elif isinstance(node, list):
        for value in node:
            yield from _texts(value)


# -- hypothesis: random decks with hostile text ------------------------------------------------

HOSTILE = st.one_of(
    st.text(min_size=1, max_size=30),
    st.sampled_from(["a\r\nb", "\x00\x01\x1f", "_x0041_", "=SUM(A1)", "-5% de impostos",
                     " borda ", "\u202eabc", "\U0001f600", "1-2", "0012", "x;y,z\t", '"q"',
                     "[cartas]", "#nota", "TRUE", "\ufeffbom", "a\u2028b", "_x005F_x0041_"]),
)


@st.composite
def hostile_decks(draw):
    deck = draw(decks())
    data = deck.model_dump(mode="json")
    for card in data["cartas"]:
        if draw(st.booleans()):
            card["titulo"] = draw(HOSTILE)
        if draw(st.booleans()):
            card["texto"] = draw(st.one_of(st.just(""), HOSTILE))
        if draw(st.booleans()):
            card["aprendizado"]["texto"] = draw(HOSTILE)
        for option in card["opcoes"]:
            if draw(st.booleans()):
                option["texto"] = draw(HOSTILE)
    data["nome"] = draw(st.one_of(st.just(""), HOSTILE))
    return parse_deck(data)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow,
                                                                  HealthCheck.data_too_large,
                                                                  HealthCheck.function_scoped_fixture])
@given(deck=hostile_decks(), fmt=st.sampled_from(FORMATS))
def test_random_decks_with_hostile_text_round_trip(deck, fmt, tmp_path):
    source = tmp_path / "deck.json"
    source.write_text(dumps(deck.model_dump(mode="json")), encoding="utf-8")
    sheet = tmp_path / f"deck.{fmt}"
    export_deck(source, sheet)
    back, _ = read_sheet(sheet)
    assert back.model_dump() == deck.model_dump()
    assert deck_fingerprint(back) == deck_fingerprint(deck)
