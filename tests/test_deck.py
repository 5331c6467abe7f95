"""Deck validation: every error names the file, the card id and the field (issue 2)."""

import copy
import json

import pytest

from sorteio.checks import deck_warnings
from sorteio.loader import BUILTIN_DECKS, DeckError, load_deck
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
     "less than or equal to 4"),
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


def test_missing_file(tmp_path):
    with pytest.raises(DeckError, match="cannot read"):
        load_deck(tmp_path / "nope.json")


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
     "cartas.0.opcoes.0.efeitos.caixa", "less than or equal to 100"),
    ({"id": "   "}, "cartas.0.id", "should match pattern"),
    ({"modo": " economia"}, "cartas.0.modo", "should match pattern"),
])
def test_typos_are_errors_not_guesses(tmp_path, base, change, field, words):
    _, error = errors_for(tmp_path, first_card(base, **change))
    line = next(line for line in str(error).splitlines() if field in line)
    assert words in line


@pytest.mark.parametrize("text, words", [
    ("[" * 100_000, "nested too deeply"),
    ('{"nome": ' + "9" * 5000 + "}", "invalid JSON"),
], ids=["deep-array", "long-number"])
def test_pathological_json_is_a_deck_error_not_a_crash(tmp_path, text, words):
    path = tmp_path / "deck.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(DeckError, match=words):
        load_deck(path)


def test_empty_deck_path():
    with pytest.raises(DeckError, match="empty deck path"):
        load_deck("")


def test_warnings_for_a_lonely_mode_and_a_card_without_two_sides(base):
    from sorteio.loader import parse_deck

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
    demo = BUILTIN_DECKS["padrao"].parents[3] / "demo_project" / "decks" / "padrao.json"
    assert demo.read_bytes() == BUILTIN_DECKS["padrao"].read_bytes()


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
def test_warning_for_an_actor_starting_furious_quotes_gdd_5_ano_1(base, start, warned):
    """GDD 06 §5 "Ano 1 ... nenhum ator Furioso (todos em 50)": a deck may start an actor
    elsewhere, but one starting in the Furioso band (0-19 in the default levels) is warned."""
    from sorteio.loader import parse_deck

    data = copy.deepcopy(base)
    data["atores"][1]["satisfacao_inicial"] = start
    warnings = [w for w in deck_warnings(parse_deck(data))
                if w.field == "atores.1.satisfacao_inicial"]
    assert bool(warnings) is warned
    if warned:
        assert data["atores"][1]["id"] in warnings[0].message
        assert "nenhum ator Furioso (todos em 50)" in warnings[0].message
