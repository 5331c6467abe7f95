"""The card table's requests (issue 15, "Author cards where designers work"): ``deck_table``
reads a deck's cards as rows of text, ``deck_edit`` writes a designer's edits back into the deck
file (stable key order, integers kept integers, the file's own layout, so a diff shows only the
edited lines) and validates it; every edit comes with the edits that undo and redo it."""

import json
import shutil

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sorteio.bridge.handler import RequestHandler
from sorteio.cardtable import FileStyle, TableError, parse_effects
from sorteio.loader import BUILTIN_DECKS


def call(method, **params):
    return RequestHandler().handle({"id": 3, "method": method, "params": params})


def ok(method, **params):
    reply = call(method, **params)
    assert reply["ok"] is True, reply
    return reply["result"]


def refused(method, code, **params):
    reply = call(method, **params)
    assert reply["ok"] is False and reply["error"]["code"] == code, reply
    return reply["error"]["message"]


@pytest.fixture
def deck(tmp_path):
    path = tmp_path / "baralho.sorteio.json"
    shutil.copy(BUILTIN_DECKS["padrao"], path)
    return path


def changed_lines(before: str, after: str):
    a, b = before.splitlines(), after.splitlines()
    assert len(a) == len(b)
    return [(x, y) for x, y in zip(a, b) if x != y]


def test_the_table_has_one_row_per_card_with_mode_names_year_type_actor_and_options(deck):
    data = json.loads(deck.read_text("utf-8"))
    table = ok("deck_table", deck=str(deck), limit=5000)
    assert table["total"] == len(data["cartas"]) == len(table["rows"])
    assert [r["id"] for r in table["rows"]] == [c["id"] for c in data["cartas"]]
    first = table["rows"][0]
    assert first["titulo"] == data["cartas"][0]["titulo"] and first["modo_nome"] == "Economia"
    assert first["ano"] == 1 and first["tipo"] == "comum"
    assert first["opcoes"][0]["efeitos"] == "caixa +10, dignidade +6, governabilidade -8"
    actor = next(r for r, c in zip(table["rows"], data["cartas"]) if c["tipo"] == "ator")
    assert actor["ator"] and actor["funcao"]


def test_the_table_comes_in_pages_that_fit_a_bridge_frame(deck):
    page = ok("deck_table", deck=str(deck), offset=10, limit=20)
    assert page["offset"] == 10 and len(page["rows"]) == 20 and page["total"] > 30
    assert page["rows"][0]["id"] == ok("deck_table", deck=str(deck))["rows"][10]["id"]


def test_editing_a_cell_changes_only_that_line_and_undo_restores_the_file_byte_for_byte(deck):
    before = deck.read_text("utf-8")
    result = ok("deck_edit", deck=str(deck), edits=[
        {"op": "set", "index": 0, "card": "eco-01", "column": "titulo", "text": "Reforma"}])
    after = deck.read_text("utf-8")
    assert changed_lines(before, after) == [
        ('      "titulo": "Reforma tributária",', '      "titulo": "Reforma",')]
    assert result["splices"] == [{"at": 0, "removed": 1, "rows": [
        ok("deck_table", deck=str(deck), limit=1)["rows"][0]]}]
    assert result["validation"]["valid"] is True
    ok("deck_edit", deck=str(deck), edits=result["undo"])
    assert deck.read_text("utf-8") == before
    ok("deck_edit", deck=str(deck), edits=result["redo"])
    assert deck.read_text("utf-8") == after


def test_numbers_typed_in_cells_are_written_as_integers(deck):
    ok("deck_edit", deck=str(deck), edits=[
        {"op": "set", "index": 0, "card": "eco-01", "column": "ano", "text": " 3 "},
        {"op": "set", "index": 0, "card": "eco-01", "column": "efeitos", "option": 1,
         "text": "Caixa +5; Saúde: -3, governabilidade=2"}])
    card = json.loads(deck.read_text("utf-8"))["cartas"][0]
    assert card["pre_requisitos"]["ano_minimo"] == 3
    assert card["opcoes"][1]["efeitos"] == {"caixa": 5, "saude": -3, "governabilidade": 2}
    assert all(type(v) is int for v in card["opcoes"][1]["efeitos"].values())
    assert '"ano_minimo": 3' in deck.read_text("utf-8")


def test_a_bad_cell_names_the_card_and_column_and_writes_nothing(deck):
    before = deck.read_text("utf-8")
    message = refused("deck_edit", "bad_request", deck=str(deck), edits=[
        {"op": "set", "index": 0, "card": "eco-01", "column": "titulo", "text": "ok"},
        {"op": "set", "index": 0, "card": "eco-01", "column": "ano", "text": "dois"}])
    assert message == "card 'eco-01': ano: 'dois' is not a whole number from 1 to 4 (§3.1.3)"
    message = refused("deck_edit", "bad_request", deck=str(deck), edits=[
        {"op": "set", "index": 0, "card": "eco-01", "column": "efeitos", "option": 0,
         "text": "caixa muito"}])
    assert "card 'eco-01': opcoes.0.efeitos: 'caixa muito'" in message
    assert deck.read_text("utf-8") == before


def test_a_deck_with_thousands_of_problems_still_fits_a_bridge_frame(tmp_path):
    """A 6,000-card deck in progress (no texto: one warning a card): validate and a cell edit
    answered "frame of 1182696 bytes exceeds the 1048576-byte limit", the edit written all the
    same (QA pass 15). The rows now stop at MAX_PROBLEM_BYTES and the rest are counted."""
    from sorteio.bridge import designer, protocol
    from sorteio.synthetic import synthetic_deck

    data = json.loads(synthetic_deck(cards=6000, modes=300).model_dump_json(
        by_alias=True, exclude_none=True))
    for card in data["cartas"]:
        card.pop("texto", None)
        card["opcoes"][1]["texto"] += " (b)"  # one warning a card: the missing text
    path = tmp_path / "grande.sorteio.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    total = len(data["cartas"])
    for method, params in (
            ("validate", {"deck": str(path)}),
            ("deck_edit", {"deck": str(path), "edits": [
                {"op": "set", "index": 0, "card": data["cartas"][0]["id"], "column": "titulo",
                 "text": "Editada"}]})):
        reply = RequestHandler().handle({"id": 1, "method": method, "params": params})
        assert reply["ok"], reply
        assert len(protocol.encode_frame(reply)) <= protocol.MAX_FRAME
        report = reply["result"] if method == "validate" else reply["result"]["validation"]
        shown = len(report["warnings"])
        assert 0 < shown < total and shown + report["more_warnings"] >= total, method
        assert report["more_errors"] == 0
    assert designer.MAX_PROBLEM_BYTES <= protocol.MAX_FRAME // 2


def test_a_stale_table_cannot_edit_the_wrong_card(deck):
    before = deck.read_text("utf-8")
    message = refused("deck_edit", "bad_request", deck=str(deck), edits=[
        {"op": "delete", "index": 1, "card": "eco-01"}])
    assert "no longer at index 1" in message
    digest = ok("deck_table", deck=str(deck), limit=1)["digest"]
    deck.write_text(before.replace("Reforma tributária", "Outra"), encoding="utf-8")
    refused("deck_edit", "stale", deck=str(deck), expect=digest, edits=[
        {"op": "delete", "index": 0, "card": "eco-01"}])


def test_the_edit_is_validated_at_once_a_problem_names_card_and_field(deck):
    result = ok("deck_edit", deck=str(deck), edits=[
        {"op": "set", "index": 2, "card": "eco-03", "column": "modo", "text": "economa"}])
    report = result["validation"]
    assert report["valid"] is False
    assert [(r["card_id"], r["field"]) for r in report["errors"]] == [("eco-03", "cartas.2.modo")]
    assert result["validate_ms"] > 0


def test_a_mode_or_actor_can_be_typed_by_its_display_name(deck):
    data = json.loads(deck.read_text("utf-8"))
    index = next(i for i, c in enumerate(data["cartas"]) if c["tipo"] == "ator")
    card = data["cartas"][index]
    ok("deck_edit", deck=str(deck), edits=[
        {"op": "set", "index": index, "card": card["id"], "column": "modo", "text": "saúde"}])
    assert json.loads(deck.read_text("utf-8"))["cartas"][index]["modo"] == "saude"


@pytest.mark.parametrize("op", ["add", "duplicate", "delete"])
def test_add_duplicate_delete_and_their_undo(deck, op):
    before = deck.read_text("utf-8")
    count = len(json.loads(before)["cartas"])
    edit = {"op": op, "index": 4, "card": "eco-05"} if op != "add" else {"op": "add", "after": 4}
    result = ok("deck_edit", deck=str(deck), edits=[edit])
    cards = json.loads(deck.read_text("utf-8"))["cartas"]
    if op == "delete":
        assert len(cards) == count - 1 and "eco-05" not in [c["id"] for c in cards]
        assert result["splices"] == [{"at": 4, "removed": 1, "rows": []}]
    else:
        assert len(cards) == count + 1 and result["splices"][0]["at"] == 5
        new = cards[5]
        assert new["id"] == ("nova-1" if op == "add" else "eco-05-copia")
        if op == "duplicate":
            assert {k: v for k, v in new.items() if k != "id"} == {
                k: v for k, v in cards[4].items() if k != "id"}
        else:  # a new card is a valid card whose empty options the validator warns about
            assert result["validation"]["valid"] is True
            assert any(w["card_id"] == "nova-1" for w in result["validation"]["warnings"])
    ok("deck_edit", deck=str(deck), edits=result["undo"])
    assert deck.read_text("utf-8") == before


def test_a_second_copy_gets_a_new_id(deck):
    ok("deck_edit", deck=str(deck), edits=[{"op": "duplicate", "index": 0, "card": "eco-01"}])
    ok("deck_edit", deck=str(deck), edits=[{"op": "duplicate", "index": 0, "card": "eco-01"}])
    ids = [c["id"] for c in json.loads(deck.read_text("utf-8"))["cartas"][:3]]
    assert ids == ["eco-01", "eco-01-copia1", "eco-01-copia"]


def test_a_key_the_table_adds_goes_where_the_deck_model_puts_it(tmp_path):
    data = json.loads(BUILTIN_DECKS["padrao"].read_text("utf-8"))
    card = data["cartas"][0]
    del card["texto"], card["pre_requisitos"]
    path = tmp_path / "d.sorteio.json"
    path.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
    ok("deck_edit", deck=str(path), edits=[
        {"op": "set", "index": 0, "card": "eco-01", "column": "texto", "text": "Um texto"},
        {"op": "set", "index": 0, "card": "eco-01", "column": "ano", "text": "2"}])
    keys = list(json.loads(path.read_text("utf-8"))["cartas"][0])
    assert keys == ["id", "titulo", "texto", "modo", "tipo", "pre_requisitos", "aprendizado",
                    "opcoes"]


@pytest.mark.parametrize("layout", ["tab", "crlf", "bom", "escaped", "one-line"])
def test_the_file_keeps_its_own_layout(tmp_path, layout):
    data = json.loads(BUILTIN_DECKS["padrao"].read_text("utf-8"))
    text = {"tab": json.dumps(data, ensure_ascii=False, indent="\t") + "\n",
            "crlf": json.dumps(data, ensure_ascii=False, indent=4).replace("\n", "\r\n")
            + "\r\n",
            "bom": "\ufeff" + json.dumps(data, ensure_ascii=False, indent=2),
            "escaped": json.dumps(data, indent=2) + "\n",
            "one-line": json.dumps(data, ensure_ascii=False)}[layout]
    path = tmp_path / "d.sorteio.json"
    path.write_bytes(text.encode("utf-8"))
    ok("deck_edit", deck=str(path), edits=[
        {"op": "set", "index": 0, "card": "eco-01", "column": "titulo", "text": "Reforma já"}])
    data["cartas"][0]["titulo"] = "Reforma já"
    expected = text.replace("Reforma tribut\\u00e1ria", "Reforma j\\u00e1").replace(
        "Reforma tributária", "Reforma já")
    assert path.read_bytes().decode("utf-8") == expected
    assert FileStyle.of(expected).dump(data) == expected


def test_the_built_in_decks_are_read_only():
    message = refused("deck_edit", "bad_request", deck="padrao", edits=[{"op": "add"}])
    assert "read-only" in message
    refused("deck_edit", "bad_request", deck=str(BUILTIN_DECKS["curto"]), edits=[{"op": "add"}])


def test_a_file_with_duplicate_keys_is_not_rewritten(tmp_path):
    path = tmp_path / "d.sorteio.json"
    text = BUILTIN_DECKS["padrao"].read_text("utf-8").replace(
        '"titulo": "Reforma tributária",', '"titulo": "A", "titulo": "B",', 1)
    path.write_text(text, encoding="utf-8")
    message = refused("deck_edit", "deck_error", deck=str(path), edits=[{"op": "add"}])
    assert "cartas.0" in message and "titulo" in message
    assert path.read_text("utf-8") == text


def test_effects_text_reads_names_signs_and_separators():
    names = {"saude": "Saúde", "caixa": "Caixa"}
    assert parse_effects("SAÚDE -5; caixa: +3, outro=7", names, "x") == {
        "saude": -5, "caixa": 3, "outro": 7}
    assert parse_effects("  ", names, "x") == {}
    assert parse_effects("caixa \u22125", names, "x") == {"caixa": -5}  # a program's minus


@pytest.mark.parametrize("text", ["caixa +8,5", "caixa 8.5", "Saúde -5; caixa +1.000"])
def test_a_decimal_comma_or_point_in_an_effect_is_refused_as_not_whole(text):
    """A Brazilian designer's "8,5" was split at its comma ("'5' is not 'name +N'"), and "8.5"
    became a meter named 'caixa 8.' with an effect of 5 (QA pass 15)."""
    with pytest.raises(TableError, match=r"'[+-]?\d+[.,]\d+' is not a whole number"):
        parse_effects(text, {"saude": "Saúde", "caixa": "Caixa"}, "x")


cell_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=20)


@settings(max_examples=40, deadline=None)
@given(edits=st.lists(st.tuples(st.integers(0, 94), st.sampled_from(
    ["titulo", "texto", "tipo", "funcao", "status", "opcao"]), cell_text), min_size=1,
    max_size=6))
def test_any_edits_then_their_undo_give_back_the_file_byte_for_byte(tmp_path_factory, edits):
    path = tmp_path_factory.mktemp("fuzz") / "d.sorteio.json"
    shutil.copy(BUILTIN_DECKS["padrao"], path)
    before = path.read_bytes()
    cards = json.loads(before)["cartas"]
    batch = [{"op": "set", "index": i, "card": cards[i]["id"], "column": column, "text": text,
              "option": 0} for i, column, text in edits]
    result = ok("deck_edit", deck=str(path), edits=batch)
    written = json.loads(path.read_text("utf-8"))
    for i, column, _text in edits:  # the last edit of a cell wins, typed text kept as typed
        if column in ("titulo", "texto"):
            assert written["cartas"][i][column] == [t for j, c, t in edits
                                                    if (j, c) == (i, column)][-1]
    ok("deck_edit", deck=str(path), edits=result["undo"])
    assert path.read_bytes() == before


def test_the_preview_says_the_meters_after_each_choice_and_where_a_save_starts(tmp_path, pt_br):
    """Issue 15, "Preview: the meters after each choice and where a saved match starts, like
    the CLI's turn": the same sentences `sorteio turn` prints (sorteio.wording)."""
    import os
    import subprocess
    import sys
    state = tmp_path / "meio.json"
    subprocess.run([sys.executable, "-m", "sorteio.cli", "play", "--seed", "2", "--stop-after",
                    "10", "--save", str(state)], check=True, capture_output=True, timeout=120)
    result = ok("preview", state=str(state), seed=0)
    assert result["start_text"] == (
        "Ano 2, a partir da vaga 4 de 7 (partida salva no meio do turno)")
    played = [r for r in result["rows"] if r["event"] == "card_played"]
    assert played and played[0]["meters_text"].startswith("Caixa ")
    cli = subprocess.run([sys.executable, "-m", "sorteio.cli", "turn", "--state", str(state)],
                         capture_output=True, text=True, timeout=120,
                         env=dict(os.environ, COLUMNS="400")).stdout
    assert result["start_text"] in cli and played[0]["meters_text"] in cli
    assert ok("preview", seed=0)["start_text"] is None


def test_indexes_sent_as_whole_floats_are_read_as_integers(deck):
    """Godot's JSON makes every number a float: index 0.0 is card 0."""
    ok("deck_edit", deck=str(deck), edits=[
        {"op": "set", "index": 0.0, "card": "eco-01", "column": "efeitos", "option": 1.0,
         "text": "caixa +1"}, {"op": "add", "after": 3.0}])
    cards = json.loads(deck.read_text("utf-8"))["cartas"]
    assert cards[0]["opcoes"][1]["efeitos"] == {"caixa": 1} and cards[4]["id"] == "nova-1"
