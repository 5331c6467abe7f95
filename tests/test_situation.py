"""Designers' situations (issue 14): a hand-written match state to preview or simulate from.
GDD 06 §4's worked example ships as the sample ``secao4`` and previews as §4 says."""

import json

import pytest

from cli_run import sorteio
from sorteio import load_deck
from sorteio.bridge import designer
from sorteio.bridge.handler import RequestHandler
from sorteio.match import make_policy
from sorteio.sim.from_situation import simulate_situation
from sorteio.situation import SITUATIONS, load_situation, situation_engine

SECTION_4 = [("emergency", "dignidade"), ("actor", "latifundiarios"), ("meter", "caixa")]


def _preview(seed=0, **params):
    # the protect player keeps the match alive through the turn (Dignidade starts at 8)
    return designer.preview(dict({"situation": "secao4", "seed": seed, "policy": "protect"},
                                 **params))


def test_section_4_example_previews_as_section_4_says(pt_br):
    # §4: "início do Ano 3; Dignidade fechou em 8 (Em = 1); Latifundiários Furiosos e Caixa em
    # 25 (C = 2). O = 1 + min(2, 3 − 1) = 3 — emergência de Dignidade, ataque dos
    # Latifundiários, carta ligada a Caixa — e S = 4." The list at turn start does not depend on
    # the seed; the cards shown after the first do on the options chosen (rule decision 5: a
    # Latifundiários' option can calm them before their attack shows; a meter can reach 0), so O
    # and S are checked on every seed whose turn went whole, and at least half of 20 do.
    whole = 0
    for seed in range(20):
        result = _preview(seed)
        assert result["from"] == "situation"
        start = result["rows"][0]
        assert start["event"] == "turn_started" and start["year"] == 3
        assert [(ob["kind"], ob["target"]) for ob in start["mandatory"]] == SECTION_4
        # Dignidade is also below 30: its meter obligation is the emergency's, counted once (§5)
        assert start["mandatory"][0]["merged"] == [{"kind": "meter", "target": "dignidade"}]
        assert "emergência de Dignidade" in start["mandatory"][0]["texto"]
        cards = [r for r in result["rows"] if r["event"] == "card_played"]
        kinds = [c["reason"]["kind"] for c in cards]
        if kinds[:3] == ["mandatory"] * 3 and result["ending"] is None:
            whole += 1
            assert [(c["reason"]["obligation"], c["reason"]["target"]) for c in cards[:3]] == \
                SECTION_4
            assert len(cards) == 7 and kinds[3:] == ["random"] * 4  # S = N - O = 4
            for c in cards[3:]:  # "cada uma tem 1/E": E in the reason, said in words
                e = c["reason"]["candidates"]
                assert f"sorteada entre {e} elegíveis de modo novo" in c["reason_text"]
    assert whole >= 10


def test_the_first_random_slot_counts_e_as_section_4_defines_it():
    # §4 "E: elegíveis de modo novo no momento do sorteio": at the first random slot, the modes
    # already seen are the three mandatory cards' (§3.4 "contando as obrigatórias").
    deck = load_deck("padrao")
    situation = load_situation("secao4", deck)
    checked = 0
    for seed in range(10):
        engine = situation_engine(deck, situation, seed)
        chooser = make_policy("protect", seed)
        engine.start_turn()
        kinds = []
        for _ in range(3):
            draw = engine.draw()
            kinds.append(draw.reason["kind"])
            engine.choose(chooser(engine, draw))
        if kinds != ["mandatory"] * 3 or engine.phase != "drawing":
            continue  # an attack card lost eligibility, or a meter reached 0 (§5)
        ix = engine.index
        seen = {ix.mode[c] for c in engine.turn_cards}
        expected = sum(1 for c in engine.eligible_cards() if ix.mode[c] not in seen)
        draw = engine.draw()
        assert draw.reason["kind"] == "random" and draw.reason["candidates"] == expected
        checked += 1
    assert checked >= 5


def test_the_situation_sets_every_counter_it_names():
    deck = load_deck("padrao")
    situation = load_situation("secao4", deck)
    engine = situation_engine(deck, situation, 0)
    ix = engine.index
    assert engine.year == 3 and engine.phase == "turn_start"
    assert engine.meter_values()["caixa"] == 25 and engine.meter_values()["educacao"] == 50
    assert engine.last_closing[ix.meter_index["dignidade"]] == 8
    assert engine.satisfaction[ix.actor_index["latifundiarios"]] == 12
    assert [ix.card_ids[c] for c in engine.played] == situation.cartas_jogadas
    eligible = {ix.card_ids[c] for c in engine.eligible_cards()}
    assert not eligible & set(situation.cartas_jogadas)  # never drawn again (§3.1.2)


def test_turn_situation_on_the_command_line_gives_the_same_rows(pt_br):
    proc = sorteio("turn", "--situation", "secao4", "--json")
    events = json.loads(proc.stdout)["events"]
    turn = next(e for e in events if e.get("event") == "turn_started")
    assert [(ob["kind"], ob["target"]) for ob in turn["mandatory"]] == SECTION_4
    text = sorteio("turn", "--situation", str(SITUATIONS / "secao4.json")).stdout
    assert "emergência de Dignidade" in text and "ataque de Latifundiários" in text


def test_turn_needs_exactly_one_of_state_and_situation(tmp_path):
    sorteio("turn", check_code=2)
    state = tmp_path / "s.json"
    sorteio("play", "--stop-after", "3", "--save", str(state))
    sorteio("turn", "--state", str(state), "--situation", "secao4", check_code=2)


BAD = [
    ('{"ano": 5}', "ano: Input should be less than or equal to 4"),
    ('{"ano": 2, "medidores": {"caixa": 150}}', "medidores.caixa: Input should be less"),
    ('{"ano": 2, "medidores": {"caxa": 40}}', "medidores.caxa: unknown meter 'caxa'"),
    ('{"ano": 2, "satisfacao": {"latifundiario": 10}}', "satisfacao.latifundiario: unknown actor"),
    ('{"ano": 2, "cor": 1}', "cor: Extra inputs are not permitted"),
    ('{"ano": 2, "ano": 3}', "duplicate key 'ano'"),
    ('{"ano": 2, "medidores": {"saude": 0}}', "medidores.saude: 0 ends the match at once"),
    ('{"ano": 1, "fechamento_anterior": {"caixa": 5}}', "fechamento_anterior: year 1 has no"),
    ('{"ano": 2, "cartas_jogadas": ["eco-01", "eco-01"]}', "cartas_jogadas.1: card 'eco-01' is "
                                                           "listed twice"),
    ('{"ano": 2, "cartas_jogadas": ["nada"]}', "cartas_jogadas.0: unknown card 'nada'"),
    ('{"ano": 2, "emergencias_gastas": ["x"]}', "emergencias_gastas.x: unknown meter"),
    ('{"ano": 2', "invalid JSON"),
]


@pytest.mark.parametrize("text, words", BAD)
def test_a_bad_situation_file_names_the_file_and_field_and_exits_2(tmp_path, text, words):
    path = tmp_path / "situ.json"
    path.write_text(text, encoding="utf-8")
    for command in (["turn", "--situation", str(path)],
                    ["simulate", "--situation", str(path), "--matches", "5"]):
        proc = sorteio(*command, check_code=2)
        assert str(path) in proc.stderr and words in proc.stderr, proc.stderr


def test_a_card_shown_before_its_ano_minimo_is_refused(tmp_path):
    deck = load_deck("padrao")
    late = next(c.id for c in deck.cartas if c.pre_requisitos.ano_minimo == 4)
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"ano": 2, "cartas_jogadas": [late]}), encoding="utf-8")
    proc = sorteio("turn", "--situation", str(path), check_code=2)
    assert f"cartas_jogadas.0: card '{late}' has ano_minimo 4" in proc.stderr


def test_a_saved_match_given_as_a_situation_is_refused_with_the_way_out(tmp_path):
    state = tmp_path / "s.json"
    sorteio("play", "--stop-after", "3", "--save", str(state))
    proc = sorteio("turn", "--situation", str(state), check_code=2)
    assert "saved match, not a situation" in proc.stderr and "--state" in proc.stderr


def test_simulate_from_the_situation_on_the_cli_and_the_panel_give_the_same_figures():
    cli = json.loads(sorteio("simulate", "--situation", "secao4", "--matches", "120",
                             "--seed", "3", "--json").stdout)
    handler = RequestHandler()
    started = handler.handle({"id": 1, "method": "simulate_start", "params": {
        "situation": "secao4", "matches": 120, "seed": 3}})["result"]
    while True:
        step = handler.handle({"id": 2, "method": "simulate_step",
                               "params": {"job": started["job"], "budget_ms": 5}})["result"]
        if step["finished"]:
            break
    panel = step["result"]
    for key in ("catastrophes", "catastrophe_rate", "cards_played_mean"):
        if key in cli["scenarios"][0]:
            assert cli["scenarios"][0][key] == panel["scenarios"][0][key], key
    assert cli["kernel"] == panel["kernel"] == "oracle"
    assert cli["scenarios"][0]["catastrophes"] == panel["scenarios"][0]["catastrophes"]
    # the same seeds played directly
    deck = load_deck("padrao")
    direct = simulate_situation(deck, load_situation("secao4", deck), 120, 3)
    assert direct.scenarios[0].tally.catastrophes == cli["scenarios"][0]["catastrophes"]


def test_simulate_from_the_situation_refuses_a_sweep():
    handler = RequestHandler()
    reply = handler.handle({"id": 1, "method": "simulate_start", "params": {
        "situation": "secao4", "sweep": ["teto_obrigatorias=2..4"]}})
    assert reply["ok"] is False and "no 'sweep'" in reply["error"]["message"]
    sorteio("simulate", "--situation", "secao4", "--param", "teto_obrigatorias=2..3",
            check_code=2)


def test_a_situation_starts_where_the_matches_it_simulates_start():
    # Every simulated match starts at the situation's year with its cards already shown: none
    # ends before year 3, and the cards it lists are never drawn.
    deck = load_deck("padrao")
    situation = load_situation("secao4", deck)
    result = simulate_situation(deck, situation, 200, 0)
    tally = result.scenarios[0].tally
    assert tally.matches == 200 and sum(tally.end_year[:3]) == 0
    ix = result.scenarios[0]
    for ident in situation.cartas_jogadas:
        assert tally.card_draws[ix.card_ids.index(ident)] == 0


def test_preview_refuses_state_and_situation_together():
    handler = RequestHandler()
    reply = handler.handle({"id": 1, "method": "preview", "params": {
        "situation": "secao4", "state": "/x.json"}})
    assert reply["ok"] is False and "not both" in reply["error"]["message"]


def test_the_situation_schema_is_printed_and_describes_the_fields():
    schema = json.loads(sorteio("schema", "--situation").stdout)
    assert schema["title"] == "Situation"
    assert {"ano", "medidores", "fechamento_anterior", "satisfacao", "cartas_jogadas",
            "emergencias_gastas", "ataques_saidos", "$schema"} <= set(schema["properties"])
    assert schema["required"] == ["ano"]


def test_the_shipped_situation_schema_is_up_to_date():
    # secao4.json names "./situation.schema.json" for editors that validate while you type;
    # regenerate it with `sorteio schema --situation > python/sorteio/situations/...`.
    shipped = json.loads((SITUATIONS / "situation.schema.json").read_text("utf-8"))
    assert shipped == json.loads(sorteio("schema", "--situation").stdout)
