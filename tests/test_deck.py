"""Deck validation: every error names the file, the card id and the field (issue 2)."""

import copy
import json
import os

import pytest

from sorteio.checks import deck_warnings
from sorteio.deck import RANGES, Deck, Issue
from sorteio.jsonfile import MAX_FILE_BYTES
from sorteio.loader import BUILTIN_DECKS, DeckError, load_deck, parse_deck
from sorteio.synthetic import synthetic_deck


@pytest.fixture
def base():
    return json.loads(BUILTIN_DECKS["padrao"].read_text(encoding="utf-8"))


def errors_for(tmp_path, data):
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    with pytest.raises(DeckError) as caught:
        load_deck(path)
    return str(path), caught.value


def first_card(data, **changes):
    data = copy.deepcopy(data)
    data["cartas"][0].update(changes)
    return data


@pytest.mark.parametrize("change, field, words", [
    ({"pre_requisitos": {"ano_minimo": 5}}, "cartas.0.pre_requisitos.ano_minimo",
     "5 is out of range: ano_minimo must be 1 to 4 (a mandate has 4 years"),
    ({"opcoes": []}, "cartas.0.opcoes", "at least 1 item"),
    ({"opcoes": [{"texto": "x", "efeitos": {"petroleo": 3}}]}, "cartas.0.opcoes.0.efeitos",
     "unknown meter 'petroleo'"),
    ({"opcoes": [{"texto": "x", "efeitos_atores": {"ets": 3}}]},
     "cartas.0.opcoes.0.efeitos_atores", "unknown actor 'ets'"),
    ({"tipo": "ator"}, "cartas.0.ator", "needs 'ator'"),
    ({"tipo": "ator", "ator": "banqueiros"}, "cartas.0.funcao", "needs 'funcao'"),
    ({"ator": "banqueiros"}, "cartas.0.ator", "only actor cards"),
    ({"tipo": "ator", "ator": "banqueiros", "funcao": "danca"}, "cartas.0.funcao",
     "no level calls for function 'danca'"),
    ({"tipo": "ator", "ator": "marcianos", "funcao": "ataque"}, "cartas.0.ator",
     "unknown actor 'marcianos'"),
    ({"modo": 7}, "cartas.0.modo", "valid string"),
    ({"cor": "azul"}, "cartas.0.cor", "Extra inputs"),
])
def test_card_errors_name_file_card_and_field(tmp_path, base, change, field, words):
    card_id = base["cartas"][0]["id"]
    source, error = errors_for(tmp_path, first_card(base, **change))
    line = next(line for line in str(error).splitlines() if field in line)
    assert line.startswith(f"{source}: card '{card_id}': {field}")
    assert words in line


def test_duplicate_card_ids_are_named(tmp_path, base):
    data = copy.deepcopy(base)
    data["cartas"][5]["id"] = data["cartas"][0]["id"]
    _, error = errors_for(tmp_path, data)
    assert f"card '{data['cartas'][0]['id']}': cartas.5.id: duplicate id" in str(error)


def test_every_problem_is_reported_not_only_the_first(tmp_path, base):
    data = first_card(base, pre_requisitos={"ano_minimo": 0})
    data["cartas"][1]["opcoes"] = []
    _, error = errors_for(tmp_path, data)
    assert len(error.issues) == 2


@pytest.mark.parametrize("change, words", [
    ({"parametros": {"cartas_por_turno": 9}}, "parametros.cartas_por_turno"),
    ({"parametros": {"teto_obrigatorias": 1}}, "parametros.teto_obrigatorias"),
    ({"parametros": {"limite_medidor": 40}}, "parametros.limite_medidor"),
    ({"medidores": []}, "medidores"),
])
def test_parameters_outside_the_section_7_safe_ranges_are_errors(tmp_path, base, change, words):
    data = copy.deepcopy(base)
    data.update(change)
    _, error = errors_for(tmp_path, data)
    assert words in str(error)


def test_satisfaction_bands_must_cover_0_to_100(tmp_path, base):
    data = copy.deepcopy(base)
    data["niveis"][1]["minimo"] += 1
    _, error = errors_for(tmp_path, data)
    assert "without gaps" in str(error)


@pytest.mark.parametrize("content, words", [
    ("{not json", "invalid JSON"),
    (b"\xff\xfe", "not UTF-8"),
])
def test_unreadable_files_name_the_problem(tmp_path, content, words):
    path = tmp_path / "deck.json"
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(DeckError, match=words):
        load_deck(path)


def test_missing_file_names_the_built_in_decks(tmp_path):
    # issue 10 "What a new user met": `--deck nope` said only "No such file or directory".
    for missing in (tmp_path / "nope.json", "nope"):
        with pytest.raises(DeckError) as caught:
            load_deck(missing)
        assert caught.value.issues == [Issue(None, "(file)", "no such file (the built-in decks are "
                                             "padrao, curto; a path names a .json file)")]


def test_shipped_decks_meet_the_issue():
    padrao = load_deck("padrao")
    playable = [c for c in padrao.cartas if c.playable]
    assert len(padrao.medidores) == 8 and {"caixa", "dignidade"} <= {m.id for m in padrao.medidores}
    assert len(padrao.atores) >= 5 and "latifundiarios" in {a.id for a in padrao.atores}
    assert len({c.modo for c in playable}) >= 8 and len(playable) >= 50
    assert {c.pre_requisitos.ano_minimo for c in playable} == {1, 2, 3, 4}
    assert any(c.aprendizado.status == "rascunho" for c in padrao.cartas)
    assert any(c.tipo == "impeachment" for c in padrao.cartas)
    for meter in padrao.medidores:
        assert sum(c.linked_to(meter.id) for c in playable) >= 3, meter.id
    functions = {lv.funcao for lv in padrao.niveis}
    for actor in padrao.atores:
        assert {c.funcao for c in playable if c.ator == actor.id} == functions, actor.id
    assert deck_warnings(padrao) == []
    curto = load_deck("curto")
    assert sum(c.playable for c in curto.cartas) == 22


def test_warnings_for_legal_but_risky_decks():
    deck = synthetic_deck(cards=5, actors=2, meters=8)
    fields = {w.field for w in deck_warnings(deck)}
    assert "cartas" in fields  # fewer playable cards than 28 slots
    lonely = synthetic_deck(cards=0, actors=0, meters=3)
    assert any(w.field.startswith("medidores.") for w in deck_warnings(lonely))


@pytest.mark.parametrize("change, field, words", [
    ({"pre_requisitos": {"ano_minimo": "2"}}, "cartas.0.pre_requisitos.ano_minimo",
     "valid integer"),
    ({"pre_requisitos": {"ano_minimo": True}}, "cartas.0.pre_requisitos.ano_minimo",
     "valid integer"),
    ({"opcoes": [{"texto": "x", "efeitos": {"caixa": "10"}}]}, "cartas.0.opcoes.0.efeitos.caixa",
     "valid integer"),
    ({"opcoes": [{"texto": "x", "efeitos": {"caixa": 10**30}}]},
     "cartas.0.opcoes.0.efeitos.caixa", "a huge number is out of range: efeitos must be -100 to "
                                         "100 (an effect moves a meter that lives on 0-100"),
    ({"id": "   "}, "cartas.0.id", "should match pattern"),
    ({"modo": " economia"}, "cartas.0.modo", "should match pattern"),
])
def test_typos_are_errors_not_guesses(tmp_path, base, change, field, words):
    _, error = errors_for(tmp_path, first_card(base, **change))
    line = next(line for line in str(error).splitlines() if field in line)
    assert words in line


@pytest.mark.parametrize("text, field, words", [
    ("[" * 100_000, "(line 1, column 65)", "nested too deeply"),
    ('{\n  "cartas": [{"a": [\n' + "[" * 2000, "(line 3, column 61)", "nested too deeply"),
    ('{"nome": ' + "9" * 5000 + "}", "nome", "a number of 5,000 digits"),
    ('{\n"nome": "ok",\n "x": "\xe9"}'.encode("latin-1"), "(line 3, column 8)", "not UTF-8"),
], ids=["deep-array", "deep-inside", "long-number", "latin-1"])
def test_pathological_json_names_the_line_and_column_or_the_field(tmp_path, text, field, words):
    # issue 10: these said only "(file)" (or CPython's own "Exceeds the limit (4300 digits)").
    path = tmp_path / "deck.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(DeckError) as caught:
        load_deck(path)
    assert any(i.field == field and words in i.message for i in caught.value.issues), \
        caught.value.issues


def test_empty_deck_path():
    with pytest.raises(DeckError, match="empty deck path"):
        load_deck("")


def test_warnings_for_a_lonely_mode_and_a_card_without_two_sides(base):
    data = first_card(base, modo="economa")
    del data["modos"]  # without mode names a new mode is legal: the warning catches the typo
    data["cartas"][1]["opcoes"] = data["cartas"][1]["opcoes"][:1]
    warnings = {(w.card_id, w.field) for w in deck_warnings(parse_deck(data))}
    assert (data["cartas"][0]["id"], "cartas.0.modo") in warnings
    assert (data["cartas"][1]["id"], "cartas.1.opcoes") in warnings


# -- modes and their display names (issue 8 "Names") -----------------------------------------

def test_built_in_decks_name_every_mode_and_the_demo_copy_is_identical():
    from sorteio.wording import Names

    for name in ("padrao", "curto"):
        deck = load_deck(name)
        used = {c.modo for c in deck.cartas}
        assert {m.id for m in deck.modos} == used
        assert Names.of(deck).mode("saude") == "Saúde"
        assert Names.of(deck).mode("desinformacao") == "Desinformação"
    root = BUILTIN_DECKS["padrao"].parents[3]
    for demo in (root / "demo_project", root / "godot3" / "demo_project"):  # Godot 4 and 3
        assert (demo / "decks" / "padrao.json").read_bytes() == BUILTIN_DECKS["padrao"].read_bytes()


def test_modes_are_optional_and_fall_back_to_the_id(base):
    from sorteio.loader import parse_deck
    from sorteio.wording import Names

    del base["modos"]
    deck = parse_deck(base)
    assert deck.modos == []
    assert Names.of(deck).mode("saude") == "saude"


def test_a_card_with_a_mode_modos_does_not_declare_is_an_error(tmp_path, base):
    source, error = errors_for(tmp_path, first_card(base, modo="economa"))
    issue = next(i for i in error.issues if i.field == "cartas.0.modo")
    assert issue.card_id == base["cartas"][0]["id"]
    assert "unknown mode 'economa'" in issue.message and "economia" in issue.message
    assert source in str(error)


def test_a_duplicate_mode_is_an_error_and_an_unused_one_a_warning(tmp_path, base):
    from sorteio.loader import parse_deck

    data = copy.deepcopy(base)
    data["modos"].append({"id": "saude", "nome": "Saúde de novo"})
    _source, error = errors_for(tmp_path, data)
    assert any(i.field == f"modos.{len(base['modos'])}.id" and "duplicate" in i.message
               for i in error.issues)
    data = copy.deepcopy(base)
    data["modos"].append({"id": "esporte", "nome": "Esporte"})
    warnings = deck_warnings(parse_deck(data))
    assert any(w.field == f"modos.{len(base['modos'])}" and "esporte" in w.message
               for w in warnings)


def test_mode_names_do_not_change_the_rules_nor_a_nameless_deck_fingerprint(base):
    from sorteio.compiled import deck_fingerprint
    from sorteio.engine import Engine
    from sorteio.loader import parse_deck
    from sorteio.match import play_match

    named = parse_deck(base)
    nameless = copy.deepcopy(base)
    del nameless["modos"]
    bare = parse_deck(nameless)
    for seed in range(5):
        a, b = Engine(named, seed), Engine(bare, seed)
        play_match(named, seed, "random", engine=a)
        play_match(bare, seed, "random", engine=b)
        assert a.played == b.played
    # A deck without modos hashes as it did before the field existed (saves stay loadable).
    import hashlib

    old = json.dumps(bare.model_dump(mode="json", exclude={"modos"}), sort_keys=True,
                     ensure_ascii=False)
    assert deck_fingerprint(bare) == hashlib.sha256(old.encode("utf-8")).hexdigest()[:16]


@pytest.mark.parametrize("start, warned", [(19, True), (0, True), (20, False), (50, False)])


# -- issue 10 "Other bad input" and issue 8 "every problem at once" ----------------------------

def _write(tmp_path, text):
    path = tmp_path / "deck.json"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize("place, field", [
    (lambda d: d["cartas"][0]["opcoes"][0]["efeitos"].update({"\ud800": 3}),
     "cartas.0.opcoes.0.efeitos.\ufffd"),
    (lambda d: d["cartas"][0].update({"\udfff": 1}), "cartas.0.\ufffd"),
    (lambda d: d["cartas"][0].update(titulo="ok \ud800"), "cartas.0.titulo"),
    (lambda d: d["medidores"][0].update(id="\ud800"), "medidores.0.id"),
    (lambda d: d.update({"\ud800": 1}), "\ufffd"),
], ids=["effect-key", "card-key", "card-title", "meter-id", "top-key"])
def test_lone_surrogates_are_deck_errors_naming_the_field(tmp_path, base, place, field):
    # issue 10: a lone surrogate in an effect's key raised UnicodeEncodeError (loader.py:79).
    place(base)
    text = json.dumps(base)  # ensure_ascii: the surrogate travels as the escape "\ud800"
    assert "\\ud8" in text or "\\udf" in text
    for load in (lambda: load_deck(_write(tmp_path, text)), lambda: parse_deck(base)):
        with pytest.raises(DeckError) as caught:
            load()
        rows = [i for i in caught.value.issues if "lone surrogate" in i.message]
        assert [i.field for i in rows] == [field]
        str(caught.value).encode("utf-8")  # the message itself can be printed anywhere


def test_a_surrogate_card_id_is_named_by_position_in_card_errors(base):
    base["cartas"][2]["id"] = "\ud800"
    with pytest.raises(DeckError) as caught:
        parse_deck(base)
    assert caught.value.issues[0] == Issue("\ufffd", "cartas.2.id", caught.value.issues[0].message)


@pytest.mark.parametrize("text, field", [
    ('{"nome": "a", "nome": "b"}', "nome"),
    ('{"cartas": [{}, {"opcoes": [{"efeitos": {"caixa": 1, "caixa": 2}}]}]}',
     "cartas.1.opcoes.0.efeitos.caixa"),
])
def test_duplicate_keys_are_errors_naming_the_key_path(tmp_path, text, field):
    # issue 10: 34 of 1,000 mutants had a duplicate key; json kept the last one silently.
    with pytest.raises(DeckError) as caught:
        load_deck(_write(tmp_path, text))
    rows = [i for i in caught.value.issues if "duplicate key" in i.message]
    assert [i.field for i in rows] == [field]


def test_duplicate_keys_in_the_default_deck_name_the_card(tmp_path):
    text = BUILTIN_DECKS["padrao"].read_text(encoding="utf-8")
    first = text.index('"titulo"')
    text = text[:first] + '"titulo": "outra", ' + text[first:]
    with pytest.raises(DeckError) as caught:
        load_deck(_write(tmp_path, text))
    assert caught.value.issues == [Issue("eco-01", "cartas.0.titulo", "duplicate key 'titulo': "
                                         "json would silently keep the last value")]


def _load_in_a_thread(path):
    import threading

    outcome = {}

    def run():
        try:
            load_deck(path)
        except DeckError as exc:
            outcome["error"] = exc

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(10)
    assert not thread.is_alive(), f"load_deck({path}) blocked"
    return outcome["error"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    # issue 10: `sorteio validate FIFO` hung forever (and blocked the whole bridge server).
    fifo = tmp_path / "deck.json"
    os.mkfifo(fifo)
    error = _load_in_a_thread(fifo)
    assert error.issues == [Issue(None, "(file)", "not a regular file (a pipe, a device or a "
                                                  "socket): give the path of a .json file")]


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_a_device_is_refused_without_reading_it():
    # issue 10: /dev/zero gave MemoryError.
    assert "not a regular file" in _load_in_a_thread("/dev/zero").issues[0].message


def test_a_file_over_the_size_limit_is_refused_unread(tmp_path):
    big = tmp_path / "deck.json"
    with open(big, "wb") as fh:  # sparse: costs no disk
        fh.truncate(MAX_FILE_BYTES + 1)
    error = _load_in_a_thread(big)
    assert f"the limit is {MAX_FILE_BYTES:,} bytes (64 MiB)" in error.issues[0].message


def test_a_folder_is_named_as_a_folder(tmp_path):
    assert _load_in_a_thread(tmp_path).issues[0].message == "is a folder, not a file"


def test_schema_and_reference_errors_are_reported_in_one_pass(tmp_path, base):
    # issue 8: `validate` reported schema errors first and reference errors only once those were
    # fixed. Here: a schema error (a string delta), a reference error in another card (unknown
    # meter) and one in the same card (unknown actor), a duplicate id, all in one report.
    base["cartas"][0]["opcoes"][0]["efeitos"]["caixa"] = "10"
    base["cartas"][0]["opcoes"][1]["efeitos_atores"]["marcianos"] = 5
    base["cartas"][4]["opcoes"][0]["efeitos"]["petroleo"] = 3
    base["cartas"][6]["id"] = base["cartas"][5]["id"]
    base["medidores"][1]["inicial"] = 0
    _, error = errors_for(tmp_path, base)
    found = {(i.card_id, i.field) for i in error.issues}
    ids = [c["id"] for c in base["cartas"]]
    assert found == {
        (ids[0], "cartas.0.opcoes.0.efeitos.caixa"),
        (ids[0], "cartas.0.opcoes.1.efeitos_atores"),
        (ids[4], "cartas.4.opcoes.0.efeitos"),
        (ids[6], "cartas.6.id"),
        (None, "medidores.1.inicial"),
    }


@pytest.mark.parametrize("name", sorted(RANGES))
def test_out_of_range_errors_say_the_range_and_why(tmp_path, base, name):
    low, high, why = RANGES[name]
    where = {
        "efeitos": (lambda d: d["cartas"][0]["opcoes"][0]["efeitos"], "caixa"),
        "efeitos_atores": (lambda d: d["cartas"][0]["opcoes"][0]["efeitos_atores"], "banqueiros"),
        "inicial": (lambda d: d["medidores"][0], name),
        "minimo": (lambda d: d["niveis"][0], name),
        "maximo": (lambda d: d["niveis"][0], name),
        "satisfacao_inicial": (lambda d: d["atores"][0], name),
        "ano_minimo": (lambda d: d["cartas"][0]["pre_requisitos"], name),
    }.get(name, (lambda d: d.setdefault("parametros", {}), name))
    where[0](base)[where[1]] = high + 1
    _, error = errors_for(tmp_path, base)
    message = f"{high + 1} is out of range: {name} must be {low} to {high} ({why})"
    assert message in [i.message for i in error.issues]


def test_keys_with_newlines_and_control_characters_stay_on_one_line(tmp_path, base):
    # Found by the deck fuzzer: an effect key "\n\tan" split an error row in two.
    base["cartas"][0]["opcoes"][0]["efeitos"]["\n\tan\x00"] = 1
    _, error = errors_for(tmp_path, base)
    assert len(str(error).splitlines()) == len(error.issues) == 1
    assert error.issues[0].message == "unknown meter '\\n\\tan\\x00'"


@pytest.mark.parametrize("start, warned", [(19, True), (0, True), (20, False), (50, False)])
def test_warning_for_an_actor_starting_furious_quotes_gdd_5_ano_1(base, start, warned):
    """GDD 06 §5 "Ano 1 ... nenhum ator Furioso (todos em 50)": a deck may start an actor
    elsewhere, but one starting in the Furioso band (0-19 in the default levels) is warned."""
    data = copy.deepcopy(base)
    data["atores"][1]["satisfacao_inicial"] = start
    warnings = [w for w in deck_warnings(parse_deck(data))
                if w.field == "atores.1.satisfacao_inicial"]
    assert bool(warnings) is warned
    if warned:
        assert data["atores"][1]["id"] in warnings[0].message
        assert "nenhum ator Furioso (todos em 50)" in warnings[0].message


@pytest.mark.parametrize("name", ["\ud800.json", "a\x00b.json", "\udcff"])
def test_file_names_no_file_system_can_take_are_deck_errors(name):
    # issue 10: a lone surrogate in a bridge request's deck ended in a traceback.
    with pytest.raises(DeckError) as caught:
        load_deck(name)
    assert caught.value.issues[0].field == "(file)"
    str(caught.value).encode("utf-8")


@pytest.mark.parametrize("deck, words", [
    ("nope", "no such file (the built-in decks are padrao, curto"),
    ("/dev/zero", "not a regular file"),
])
def test_the_bridge_handler_reads_decks_through_the_same_loader(deck, words):
    # A lone surrogate in the deck never reaches the loader over the bridge: the handler refuses
    # it in any field as bad_request naming the field (test_bridge_handler.py, issue 10).
    # issue 10: `start_match(1, "nope")` said only "No such file or directory".
    from sorteio.bridge.handler import RequestHandler

    reply = RequestHandler().handle({"id": 1, "method": "new_match", "params": {"deck": deck}})
    assert reply["error"]["code"] == "deck_error" and words in reply["error"]["message"], reply


def test_rows_come_deck_first_then_card_by_card_in_file_order(tmp_path, base):
    base["cartas"][3]["opcoes"][0]["efeitos"]["petroleo"] = 1  # a reference error, card 3
    base["cartas"][1]["titulo"] = 5  # a schema error, card 1
    base["cartas"][3]["titulo"] = ""  # a schema error, card 3
    base["parametros"]["cartas_por_turno"] = 99  # deck level
    _, error = errors_for(tmp_path, base)
    assert [i.field for i in error.issues] == [
        "parametros.cartas_por_turno", "cartas.1.titulo", "cartas.3.titulo",
        "cartas.3.opcoes.0.efeitos"]


def test_a_number_too_long_for_int_in_a_card_names_card_field_and_range(tmp_path, base):
    text = json.dumps(base).replace('"caixa": 10,', '"caixa": ' + "9" * 5000 + ",", 1)
    with pytest.raises(DeckError) as caught:
        load_deck(_write(tmp_path, text))
    (issue,) = caught.value.issues
    assert (issue.card_id, issue.field) == ("eco-01", "cartas.0.opcoes.0.efeitos.caixa")
    assert issue.message.startswith("a number of 5,000 digits: far out of any range")
    assert issue.message.endswith("; efeitos must be -100 to 100 (an effect moves a meter that "
                                  "lives on 0-100, so a change beyond 100 either way can only "
                                  "be a mistake)")


def test_a_deck_may_name_its_json_schema_for_editors(tmp_path, base):
    # Found by qacli: `sorteio schema` is "for editors that validate while you type", but a deck
    # carrying the usual "$schema" key (how VS Code and others attach a schema to a file) was
    # refused as an unknown field. The key is accepted, shown in the schema, and changes neither
    # the deck nor its fingerprint (saves of the same deck still load).
    from sorteio.compiled import deck_fingerprint

    path = tmp_path / "deck.json"
    path.write_text(json.dumps({"$schema": "./deck.schema.json", **base}), encoding="utf-8")
    with_key = load_deck(str(path))
    path.write_text(json.dumps(base), encoding="utf-8")
    assert deck_fingerprint(with_key) == deck_fingerprint(load_deck(str(path)))
    assert "$schema" not in with_key.model_dump(mode="json")
    schema = Deck.model_json_schema()
    assert {"type": "string"} in schema["properties"]["$schema"]["anyOf"]
    path.write_text(json.dumps({"$schema": 3, **base}), encoding="utf-8")
    with pytest.raises(DeckError, match=r"\$schema"):
        load_deck(str(path))


def test_a_card_too_big_for_one_bridge_reply_is_refused_naming_the_card(tmp_path, base):
    """A drawn card travels whole in one 1 MiB bridge reply: a card over ``MAX_CARD_CHARS`` is a
    deck error naming the card (validate accepted it and the match broke at that draw)."""
    from sorteio.deck import MAX_CARD_CHARS

    card_id = base["cartas"][0]["id"]
    source, error = errors_for(tmp_path, first_card(base, texto="a" * (MAX_CARD_CHARS + 1)))
    line = str(error).splitlines()[0]
    assert line.startswith(f"{source}: card '{card_id}': cartas.0")
    assert "1 MiB reply of the Godot bridge" in line


def test_the_largest_card_allowed_fits_one_bridge_reply(base):
    """The bound holds for the worst text: control characters, each a 6-byte JSON escape."""
    from sorteio.bridge import protocol
    from sorteio.deck import MAX_CARD_CHARS

    data = first_card(base)
    card = data["cartas"][0]
    used = sum(len(card[k]) for k in ("id", "titulo", "texto", "modo"))
    used += len(card.get("aprendizado", {}).get("texto", ""))
    used += sum(len(o["texto"]) + sum(len(k) + 12 for k in o.get("efeitos", {}))
                + sum(len(k) + 12 for k in o.get("efeitos_atores", {})) for o in card["opcoes"])
    card["texto"] += "\x01" * (MAX_CARD_CHARS - used)
    deck = parse_deck(data)
    drawn = deck.cartas[0].model_dump(mode="json")
    reply = {"id": 1, "ok": True, "result": {"card": drawn, "slot": 1, "reason": {
        "kind": "random", "candidates": 40, "mode_relaxed": False, "replaces": None,
        "texto": "sorteada entre 40 elegíveis de modo novo"}, "option_order": [0, 1]}}
    assert len(protocol.encode_frame(reply)) - 4 <= protocol.MAX_FRAME


# -- issue 15: a card without text, an option that moves nothing, two options alike ----------

def test_warning_for_a_card_without_text_missing_or_blank(base):
    data = copy.deepcopy(base)
    del data["cartas"][0]["texto"]
    data["cartas"][1]["texto"] = " \n\t "
    warnings = {(w.card_id, w.field): w.message for w in deck_warnings(parse_deck(data))}
    for i in (0, 1):
        assert "has no text" in warnings[(data["cartas"][i]["id"], f"cartas.{i}.texto")]


def test_warning_for_an_option_without_meter_effects_says_whether_it_changes_nothing(base):
    data = copy.deepcopy(base)
    options = data["cartas"][0]["opcoes"]
    options[0]["efeitos"] = {}
    options[0]["efeitos_atores"] = {data["atores"][0]["id"]: 5}
    options[1]["efeitos"] = {}
    options[1].pop("efeitos_atores", None)
    warnings = {w.field: w.message for w in deck_warnings(parse_deck(data))}
    actors_only = warnings["cartas.0.opcoes.0.efeitos"]
    assert "moves no meter" in actors_only and "changes nothing" not in actors_only
    assert "the choice changes nothing" in warnings["cartas.0.opcoes.1.efeitos"]


def test_warning_for_two_options_with_the_same_text_names_the_other_option(base):
    data = copy.deepcopy(base)
    options = data["cartas"][0]["opcoes"]
    options[1]["texto"] = "  " + options[0]["texto"].upper() + "\n"
    warnings = [w for w in deck_warnings(parse_deck(data)) if w.field.startswith("cartas.0.")]
    assert [w.field for w in warnings] == ["cartas.0.opcoes.1.texto"]
    # Options numbered from 1, as a designer counts them (QA issue 15: "opção 0"); the field
    # keeps the file's JSON index (cartas.0.opcoes.1: a path into the file).
    assert "option 2 has the same text as option 1" in warnings[0].message
    assert warnings[0].card_id == data["cartas"][0]["id"]


def test_the_same_text_warning_numbers_options_from_1_in_pt_br(base, pt_br):
    data = copy.deepcopy(base)
    options = data["cartas"][0]["opcoes"]
    options[1]["texto"] = options[0]["texto"]
    warnings = [w for w in deck_warnings(parse_deck(data)) if w.field.startswith("cartas.0.")]
    assert "a opção 2 tem o mesmo texto da opção 1" in warnings[0].message


def test_a_card_with_text_and_distinct_options_that_move_meters_gets_none_of_them(base):
    card = base["cartas"][0]
    assert card["texto"].strip() and all(o["efeitos"] for o in card["opcoes"])
    assert len({o["texto"].strip().casefold() for o in card["opcoes"]}) == len(card["opcoes"])
    assert not [w for w in deck_warnings(parse_deck(base)) if w.field.startswith("cartas.0.")]
