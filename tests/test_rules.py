"""GDD 06 §3 rules, the §4 worked example, the §5 edge cases and the boundaries of each limit."""

import json

import pytest

from scenario import (
    FURIOUS,
    NEUTRAL,
    attack_cards,
    build,
    card,
    engine_at,
    fillers,
    play_turn,
)
from sorteio.engine import AWAITING_CHOICE, DRAWING, ENDED, TURN_START, Engine
from sorteio.errors import EngineError
from sorteio.results import CATASTROPHE


def obligations(engine):
    return [(ob.kind, ob.target) for ob in engine.start_turn().mandatory]


# -- §4 worked example ----------------------------------------------------------------------

def test_section_4_example_year_3_dignidade_8_latifundiarios_furious_caixa_25():
    deck = build([
        card("dig", "m1", up=["dignidade"]),
        card("cx", "m2", up=["caixa"], down=()),
        *attack_cards(["latifundiarios"]),
        *fillers(40),
    ])
    engine = engine_at(deck, year=3, meters={"dignidade": 8, "caixa": 25},
                       moods={"latifundiarios": FURIOUS})
    turn = engine.start_turn()
    # O = Em + min(C, max(0, T - Em)) = 1 + min(2, 3 - 1) = 3; S = N - O = 4.
    assert [(o.kind, o.target, o.card_id) for o in turn.mandatory] == [
        ("emergency", "dignidade", "dig"),
        ("actor", "latifundiarios", "latifundiarios-ataque"),
        ("meter", "caixa", "cx"),
    ]
    # The emergency card also serves Dignidade < 30: counted once (§5), so Caixa enters.
    assert turn.mandatory[0].merged == (("meter", "dignidade"),)
    draws = play_turn(engine)
    assert [d.reason["kind"] for d in draws] == ["mandatory"] * 3 + ["random"] * 4
    # 3 modes seen, 40 eligible cards of new modes: each has 1/40 on the next card.
    assert draws[3].reason["candidates"] == 40 and not draws[3].reason["mode_relaxed"]


# -- boundaries -----------------------------------------------------------------------------

@pytest.mark.parametrize("closing, emergency", [(10, True), (11, False)])
def test_emergency_limit_boundary_10_vs_11(closing, emergency):
    deck = build([card("dig", "m1", up=["dignidade"]), *fillers(10)])
    engine = engine_at(deck, year=2, meters={"dignidade": 40}, closing={"dignidade": closing})
    assert (("emergency", "dignidade") in obligations(engine)) is emergency


@pytest.mark.parametrize("value, mandatory", [(29, True), (30, False)])
def test_meter_limit_boundary_29_vs_30(value, mandatory):
    deck = build([card("cx", "m1", up=["caixa"], down=()), *fillers(10)])
    engine = engine_at(deck, meters={"caixa": value})
    assert (("meter", "caixa") in obligations(engine)) is mandatory


@pytest.mark.parametrize("year, eligible", [(2, True), (3, False)])
def test_ano_minimo_boundary(year, eligible):
    deck = build([card("late", "m1", ano=year), *fillers(3)])
    engine = engine_at(deck, year=2)
    assert engine.is_eligible(engine.index.card_index["late"]) is eligible


@pytest.mark.parametrize("mood, furious", [(19, True), (20, False), (NEUTRAL, False)])
def test_furious_boundary_19_vs_20(mood, furious):
    deck = build([*attack_cards(), *fillers(10)])
    engine = engine_at(deck, moods={"banqueiros": mood})
    assert (("actor", "banqueiros") in obligations(engine)) is furious


# -- §3.3 order -----------------------------------------------------------------------------

def test_furious_actor_whose_attack_card_is_out_is_not_mandatory_again():
    # §3.3.2 "para cada ator Furioso cuja carta de ataque não saiu": banqueiros stays Furious
    # after its attack came in year 1, so year 2 has no actor obligation, although a second
    # attack card of banqueiros is still in the deck (README "Rule decisions" 7).
    deck = build([*attack_cards(["banqueiros"]),
                  card("banqueiros-ataque-2", "ataque2", tipo="ator", ator="banqueiros",
                       funcao="ataque"), *fillers(20)])
    engine = engine_at(deck, moods={"banqueiros": FURIOUS})
    assert obligations(engine) == [("actor", "banqueiros")]
    play_turn(engine)
    assert engine.satisfaction[engine.index.actor_index["banqueiros"]] == FURIOUS
    assert obligations(engine) == []


@pytest.mark.parametrize("mood, function", [(0, "ataque"), (19, "ataque"), (20, "pressao"),
                                            (39, "pressao"), (40, "exigencia"),
                                            (60, "exigencia"), (61, "apoio"), (80, "apoio"),
                                            (81, "favor"), (100, "favor")])
def test_actor_card_eligible_only_for_the_level_at_every_band_edge(mood, function):
    # §3.1.4 "função igual ao nível atual do ator" (GDD 07 §3.2 bands, both ends inclusive).
    functions = ["ataque", "pressao", "exigencia", "apoio", "favor"]
    deck = build([card(f"bq-{f}", f"bq{f}", tipo="ator", ator="banqueiros", funcao=f)
                  for f in functions] + fillers(3))
    engine = engine_at(deck, moods={"banqueiros": mood})
    eligible = {engine.index.card_ids[c] for c in engine.eligible_cards()}
    assert {f"bq-{f}" for f in functions} & eligible == {f"bq-{function}"}


def test_emergencies_follow_gdd_01_order_and_ignore_the_cap():
    meters = ["caixa", "dignidade", "saude", "educacao"]
    deck = build([card(m, f"m-{m}", up=[m]) for m in meters] + fillers(10))
    low = {"educacao": 3, "caixa": 9, "saude": 1, "dignidade": 10}
    engine = engine_at(deck, year=2, meters={m: 40 for m in meters}, closing=low)
    assert obligations(engine) == [("emergency", m) for m in meters]  # 4 > T = 3


def test_actors_lowest_satisfaction_first_ties_by_lowest_id():
    deck = build([*attack_cards(), *fillers(10)])
    engine = engine_at(deck, moods={"sindicatos": 5, "latifundiarios": 12, "banqueiros": 12})
    assert obligations(engine) == [("actor", "sindicatos"), ("actor", "banqueiros"),
                                   ("actor", "latifundiarios")]


def test_meters_lowest_value_first_ties_by_gdd_01_order():
    meters = ["caixa", "dignidade", "saude"]
    deck = build([card(m, f"m-{m}", up=[m], down=()) for m in meters] + fillers(10))
    engine = engine_at(deck, meters={"saude": 20, "dignidade": 25, "caixa": 25})
    assert obligations(engine) == [("meter", "saude"), ("meter", "caixa"), ("meter", "dignidade")]


def test_actor_ties_break_by_lowest_id_not_by_the_order_the_deck_lists_them():
    # §3.3.2 "empate pelo menor id": the deck lists sindicatos first, yet banqueiros (lower id)
    # comes first at equal satisfaction.
    deck = build([*attack_cards(), *fillers(10)],
                 actors=["sindicatos", "latifundiarios", "banqueiros"])
    engine = engine_at(deck, moods={"sindicatos": 12, "latifundiarios": 12, "banqueiros": 12})
    assert obligations(engine) == [("actor", "banqueiros"), ("actor", "latifundiarios"),
                                   ("actor", "sindicatos")]


def test_meter_ties_break_by_gdd_01_table_order_not_by_id():
    # §3.3.3 "empate pela ordem da tabela do GDD 01": saude precedes educacao in the table,
    # though "educacao" < "saude" as text.
    meters = ["saude", "educacao"]
    deck = build([card(m, f"m-{m}", up=[m], down=()) for m in meters] + fillers(10))
    engine = engine_at(deck, meters={"educacao": 25, "saude": 25})
    assert obligations(engine) == [("meter", "saude"), ("meter", "educacao")]


def test_emergency_count_reduces_room_for_actor_and_meter():
    deck = build([card(m, f"m-{m}", up=[m]) for m in ["caixa", "dignidade", "saude"]]
                 + attack_cards() + fillers(10))
    engine = engine_at(deck, year=2, meters={"caixa": 40, "dignidade": 40, "saude": 40},
                       closing={"caixa": 5, "dignidade": 5, "saude": 5},
                       moods={"banqueiros": FURIOUS})
    assert [k for k, _ in obligations(engine)] == ["emergency"] * 3  # Em >= T: none else


def test_a_zero_effect_does_not_link_a_card_to_the_meter():
    # §3.2 "alguma opção tem efeito positivo em M": 0 is not positive.
    zero = card("zero", "m1", down=())
    zero["opcoes"][0]["efeitos"] = {"caixa": 0}
    deck = build([zero, *fillers(10)])
    engine = engine_at(deck, meters={"caixa": 20})
    assert [(o.kind, o.target, o.card_id) for o in engine.start_turn().mandatory] == [
        ("meter", "caixa", None)]


def test_a_card_is_linked_by_any_of_its_options_not_only_the_first():
    # §3.2 "alguma opção tem efeito positivo em M".
    second = card("second", "m1", down=())
    second["opcoes"][1]["efeitos"] = {"caixa": 4}
    deck = build([second, *fillers(10)])
    engine = engine_at(deck, meters={"caixa": 20})
    assert [(o.target, o.card_id) for o in engine.start_turn().mandatory] == [("caixa", "second")]


def test_linked_card_is_drawn_with_equal_weight_among_eligible_linked_cards():
    deck = build([card(f"cx{i}", f"m{i}", up=["caixa"], down=()) for i in range(4)]
                 + fillers(10))
    picked = {engine_at(deck, meters={"caixa": 20}, seed=s).start_turn().mandatory[0].card_id
              for s in range(60)}
    assert picked == {"cx0", "cx1", "cx2", "cx3"}


# -- §5 edge cases --------------------------------------------------------------------------

def test_year_1_no_emergency_no_furious_but_calibrated_low_meter_counts():
    deck = build([card("sau", "m1", up=["saude"]), *attack_cards(), *fillers(10)],
                 initial={"saude": 28, "caixa": 10})
    engine = engine_at(deck)
    assert engine.last_closing is None and all(s == 50 for s in engine.satisfaction)
    # Caixa at 10 asks no emergency in year 1 (no closing yet), only a meter obligation.
    assert obligations(engine) == [("meter", "caixa"), ("meter", "saude")]


def test_more_emergencies_than_slots_fill_the_turn_and_open_the_next():
    from sorteio.synthetic import METERS

    deck = build([card(f"e-{m}", f"m-{m}", up=[m], down=()) for m in METERS] + fillers(20))
    engine = engine_at(deck, year=2, meters={m: 40 for m in METERS},
                       closing={m: 5 for m in METERS})
    assert len(engine.start_turn().mandatory) == 8
    draws = play_turn(engine)
    assert [d.reason["obligation"] for d in draws] == ["emergency"] * 7
    assert engine.carried == [engine.index.meter_index["governabilidade"]]
    engine.start_turn()
    first = engine.draw()
    assert first.reason == {"kind": "mandatory", "obligation": "emergency",
                            "target": "governabilidade"}


def test_carried_emergency_whose_meter_closes_low_again_is_listed_once():
    # §5 "Em > 7 ... as restantes são as primeiras do turno seguinte" and §3.3.1 "ainda não teve
    # emergência": governabilidade did not fit in year 2 and closes year 2 at 5 again; it is one
    # emergency in year 3, not two (nor one merged into itself); its meter < 30 is served by it.
    from sorteio.synthetic import METERS

    deck = build([card(f"e-{m}", f"m-{m}", up=[m], down=()) for m in METERS] + fillers(20))
    engine = engine_at(deck, year=2, meters={m: 40 for m in METERS},
                       closing={m: 5 for m in METERS})
    engine.start_turn()
    play_turn(engine, close=False)
    engine.meters[engine.index.meter_index["governabilidade"]] = 5
    engine.draw()  # closes year 2: governabilidade carried, and at 5 again
    turn = engine.start_turn()
    assert [(o.kind, o.target, o.merged) for o in turn.mandatory] == [
        ("emergency", "governabilidade", (("meter", "governabilidade"),))]


def test_no_eligible_linked_card_slot_goes_to_random_and_emergency_is_not_spent():
    deck = build([card("dig-late", "m1", up=["dignidade"], ano=4), *fillers(20)])
    engine = engine_at(deck, year=2, meters={"dignidade": 40}, closing={"dignidade": 5})
    turn = engine.start_turn()
    assert [(o.kind, o.card_id) for o in turn.mandatory] == [("emergency", None)]
    first = engine.draw()
    assert first.reason["kind"] == "random"
    assert first.reason["replaces"]["target"] == "dignidade"
    engine.choose(1)
    play_turn(engine, close=False)
    engine.meters[engine.index.meter_index["dignidade"]] = 4
    engine.draw()  # closes year 2 with Dignidade at 4: the emergency comes back
    assert not engine.emergency_spent[engine.index.meter_index["dignidade"]]
    assert obligations(engine) == [("emergency", "dignidade")]


def test_emergency_is_spent_once_per_match():
    deck = build([card(f"dig{i}", f"m{i}", up=["dignidade"]) for i in range(3)] + fillers(30))
    engine = engine_at(deck, year=2, meters={"dignidade": 40}, closing={"dignidade": 5})
    engine.start_turn()
    play_turn(engine, close=False)
    engine.meters[engine.index.meter_index["dignidade"]] = 5
    engine.draw()
    assert ("emergency", "dignidade") not in obligations(engine)


def test_same_card_serving_two_obligations_counts_once_and_next_candidate_enters():
    deck = build([
        card("both", "m1", up=["caixa", "dignidade"]),
        card("sau", "m2", up=["saude"]),
        card("edu", "m3", up=["educacao"]),
        *fillers(10),
    ])
    engine = engine_at(deck, meters={"caixa": 10, "dignidade": 12, "saude": 20,
                                     "educacao": 25})
    turn = engine.start_turn()
    assert [(o.target, o.card_id) for o in turn.mandatory] == [
        ("caixa", "both"), ("saude", "sau"), ("educacao", "edu")]
    assert turn.mandatory[0].merged == (("meter", "dignidade"),)


# §5 "Mesma carta atende duas obrigações — conta uma vez; entra a próxima candidata", for every
# pair of kinds in list order (emergency, actor, meter; §3.3). Card "x" is the only card that can
# serve the first obligation and it also serves the second; caixa 25 and saude 27 are the next
# candidates, each with its own linked card. The second obligation is recorded on the first, takes
# no place under T = 3 and reserves nothing, so both candidates enter.
_PAIRS = {
    "emergency+emergency": (dict(up=["governabilidade", "ambiente"]),
                            {"governabilidade": 8, "ambiente": 5}, {},
                            ("emergency", "ambiente"), ("emergency", "governabilidade")),
    "emergency+actor": (dict(up=["governabilidade"], tipo="ator", ator="latifundiarios",
                             funcao="ataque"),
                        {"governabilidade": 8}, {"latifundiarios": FURIOUS},
                        ("emergency", "governabilidade"), ("actor", "latifundiarios")),
    "emergency+meter": (dict(up=["governabilidade", "dignidade"]), {"governabilidade": 8}, {},
                        ("emergency", "governabilidade"), ("meter", "dignidade")),
    "actor+meter": (dict(up=["dignidade"], tipo="ator", ator="latifundiarios", funcao="ataque"),
                    {}, {"latifundiarios": FURIOUS},
                    ("actor", "latifundiarios"), ("meter", "dignidade")),
    "meter+meter": (dict(up=["dignidade", "educacao"]), {}, {},
                    ("meter", "dignidade"), ("meter", "educacao")),
}


@pytest.mark.parametrize("pair", list(_PAIRS))
def test_same_card_serves_two_obligations_of_any_kinds_counts_once_next_candidate_enters(pair):
    x, closing, moods, first, second = _PAIRS[pair]
    deck = build([card("x", "mx", **x), card("cx", "m1", up=["caixa"], down=()),
                  card("sau", "m2", up=["saude"], down=()), *fillers(20)])
    low = {m: 20 + i for i, (k, m) in enumerate((first, second)) if k == "meter"}
    engine = engine_at(deck, year=2, meters={"governabilidade": 40, "ambiente": 40,
                                             "caixa": 25, "saude": 27, **low},
                       closing=closing, moods=moods)
    turn = engine.start_turn()
    assert [(o.kind, o.target, o.card_id) for o in turn.mandatory] == [
        (*first, "x"), ("meter", "caixa", "cx"), ("meter", "saude", "sau")]
    assert turn.mandatory[0].merged[0] == second
    draws = play_turn(engine)
    assert [d.card_id for d in draws[:3]] == ["x", "cx", "sau"]
    assert [d.reason["kind"] for d in draws] == ["mandatory"] * 3 + ["random"] * 4
    assert not any(d.reason.get("replaces") for d in draws)  # no obligation lost its card
    ix = engine.index
    for kind, target in (first, second):  # both are served by the one card shown
        if kind == "emergency":
            assert engine.emergency_spent[ix.meter_index[target]]
        if kind == "actor":
            assert engine.attacked[ix.actor_index[target]]


def test_same_card_serves_two_obligations_a_merged_attack_survives_save_and_load():
    x, closing, moods, _, _ = _PAIRS["emergency+actor"]
    deck = build([card("x", "mx", **x), *fillers(20)])
    engine = engine_at(deck, year=2, closing=closing, moods=moods)
    engine.start_turn()
    state = json.loads(json.dumps(engine.to_state()))
    assert state["pending"][0]["merged"] == [{"kind": "actor", "target": "latifundiarios"}]
    again = Engine.from_state(deck, state)
    assert again.pending == engine.pending
    assert [d.to_dict() for d in play_turn(again)] == [d.to_dict() for d in play_turn(engine)]


def test_same_card_serves_two_obligations_the_attack_is_not_reported_without_a_card():
    """The case of issue 10 (default deck, ``sorteio play --seed 10091``, year 4): an emergency's
    linked card is also a Furious actor's attack card. The actor's obligation is not listed as
    having no eligible card; it is served by the emergency's card and counted once (§5)."""
    from sorteio.loader import load_deck
    from sorteio.match import MatchObserver, play_match

    starts = []

    class Turns(MatchObserver):
        def turn_started(self, turn):
            starts.append(turn)

    play_match(load_deck("padrao"), 10091, "random", observer=Turns())
    year4 = starts[3].mandatory
    assert year4[0].kind == "emergency" and year4[0].card_id == "lat-ataque"
    assert ("actor", "latifundiarios") in year4[0].merged
    assert all(ob.kind != "actor" for ob in year4)


def test_same_card_serves_two_obligations_play_narrates_the_attack_as_served(pt_br):
    from cli_run import sorteio

    year4 = sorteio("play", "--seed", "10091").stdout.split("Ano 4", 1)[1]
    assert "ataque de Latifundiários -> sem carta elegível" not in year4
    assert ("emergência de Governabilidade -> lat-ataque (também atende: ataque de "
            "Latifundiários") in year4


def test_same_card_serves_two_obligations_its_reason_names_both(pt_br):
    """§5 "Mesma carta atende duas obrigações": the card's own reason (what ``card_drawn``
    carries) lists the obligations it also serves, and its ``texto`` names them; a saved match
    holding that reason on screen loads and goes on identically."""
    from sorteio.loader import load_deck
    from sorteio.match import MatchObserver, play_match
    from sorteio.wording import Names, reason_text

    deck = load_deck("padrao")
    shown = []

    class Draws(MatchObserver):
        def card_played(self, step):
            shown.append(step.draw)

    play_match(deck, 10091, "random", observer=Draws())
    attack = next(d for d in shown if d.card_id == "lat-ataque")
    assert attack.reason["obligation"] == "emergency"
    assert attack.reason["merged"][0] == {"kind": "actor", "target": "latifundiarios"}
    text = reason_text(Names.of(deck), attack.reason, attack.card)
    assert "emergência de Governabilidade" in text
    assert "também atende: ataque de Latifundiários" in text
    single = [d for d in shown if d.reason["kind"] == "mandatory" and d is not attack]
    assert single and all("merged" not in d.reason for d in single)  # only when there is one


def test_mandatory_card_that_lost_eligibility_gives_its_slot_to_the_random_draw():
    deck = build([*attack_cards(["banqueiros", "sindicatos"]), *fillers(20)])
    engine = engine_at(deck, moods={"banqueiros": 5, "sindicatos": 6})
    engine.start_turn()
    engine.draw()
    engine.satisfaction[engine.index.actor_index["sindicatos"]] = NEUTRAL  # before it is shown
    engine.choose(1)
    second = engine.draw()
    assert second.reason["kind"] == "random"
    assert second.reason["replaces"] == {"kind": "actor", "target": "sindicatos",
                                         "card_id": "sindicatos-ataque", "merged": []}


def _lapsed_attack_then_caixa(seed, **params):
    """Turn start with [attack of banqueiros, meter caixa -> 'cx' (mode 'mx')]; then banqueiros
    calms down before its card is shown (§5 "Obrigatória deixa de ser elegível"), so the first
    slot goes to the random draw while the caixa obligation is still to come."""
    deck = build([*attack_cards(["banqueiros"]), card("cx", "mx", up=["caixa"], down=()),
                  *(card(f"g{i}", "mx", down=()) for i in range(10)), *fillers(3)], **params)
    engine = engine_at(deck, meters={"caixa": 20}, moods={"banqueiros": FURIOUS}, seed=seed)
    assert [(o.target, o.card_id) for o in engine.start_turn().mandatory] == [
        ("banqueiros", "banqueiros-ataque"), ("caixa", "cx")]
    engine.satisfaction[engine.index.actor_index["banqueiros"]] = NEUTRAL
    return engine


def test_random_slot_counts_the_modes_of_mandatory_cards_still_to_come():
    # §3.4 "cujo modo ainda não apareceu no turno (contando as obrigatórias)": the caixa card of
    # mode 'mx' is still to come, so the ten 'g' cards of that same mode are not of a new mode.
    for seed in range(40):
        engine = _lapsed_attack_then_caixa(seed)
        first = engine.draw()
        assert first.reason["kind"] == "random" and first.reason["replaces"]["target"] == (
            "banqueiros")
        assert first.card["modo"] != "mx" and first.reason["candidates"] == 3
        engine.choose(1)
        assert engine.draw().card_id == "cx"


def test_random_slot_never_takes_a_card_reserved_for_a_later_obligation():
    # README "Rule decisions" 6: with two cards allowed per mode, 'cx' is of a new enough mode,
    # but it is reserved for the caixa obligation, so the random slot never takes it.
    for seed in range(40):
        engine = _lapsed_attack_then_caixa(seed, limite_por_modo=2)
        first = engine.draw()
        assert first.reason["kind"] == "random" and first.card_id != "cx"
        engine.choose(1)
        second = engine.draw()
        assert second.card_id == "cx" and second.reason["kind"] == "mandatory"


def test_obligation_with_nothing_to_replace_it_does_not_stop_the_later_ones():
    # §5 "Nenhuma carta ligada elegível": the emergency has no card and the random draw has none
    # either (the only card is reserved), yet the caixa obligation after it is still served.
    deck = build([card("cx", "mx", up=["caixa"], down=())])
    engine = engine_at(deck, year=2, meters={"dignidade": 40, "caixa": 20},
                       closing={"dignidade": 5})
    assert [(o.kind, o.target, o.card_id) for o in engine.start_turn().mandatory] == [
        ("emergency", "dignidade", None), ("meter", "caixa", "cx")]
    draws = play_turn(engine)
    assert [(d.card_id, d.reason["kind"]) for d in draws] == [("cx", "mandatory")]
    assert engine.last_turn_end.cards == 1 and engine.last_turn_end.short


def test_fewer_eligible_cards_than_slots_ends_the_turn_short_and_closes_normally():
    deck = build(fillers(4) + fillers(3, prefix="late", ano=2))
    engine = engine_at(deck)
    engine.start_turn()
    assert len(play_turn(engine)) == 4
    assert engine.last_turn_end.short and engine.last_turn_end.cards == 4
    assert engine.phase == TURN_START and engine.year == 2
    engine.start_turn()
    assert len(play_turn(engine)) == 3  # never falls back to used cards


def test_turn_without_any_eligible_card_closes_without_cards():
    deck = build(fillers(2, ano=3))
    engine = engine_at(deck)
    engine.start_turn()
    assert engine.draw() is None
    assert engine.last_turn_end.cards == 0 and engine.year == 2


def test_impeachment_scene_cards_are_extra_and_the_turn_continues():
    deck = build([card("imp", "cena", tipo="impeachment"), *fillers(20)])
    engine = engine_at(deck)
    engine.start_turn()
    for _ in range(3):
        engine.draw()
        engine.choose(1)
    scene = engine.show_scene_card("imp")
    assert scene.slot == 0 and scene.reason == {"kind": "scene"}
    engine.choose(0)
    rest = play_turn(engine)
    assert [d.slot for d in rest] == [4, 5, 6, 7]
    engine.start_turn()
    with pytest.raises(EngineError, match="already shown"):
        engine.show_scene_card("imp")


def test_modes_seen_are_those_of_this_turn_without_scene_cards():
    # §3.4 "cujo modo ainda não apareceu no turno": a mode seen in an earlier turn, or only on an
    # impeachment-scene card (outside the N slots, §3.5), is still new (README decision 6).
    deck = build([card("imp", "fmodo00", tipo="impeachment"), *fillers(7)])
    engine = engine_at(deck)
    engine.start_turn()
    engine.show_scene_card("imp")
    engine.choose(1)
    draws = play_turn(engine)
    assert len(draws) == 7 and not any(d.reason["mode_relaxed"] for d in draws)
    deck = build(fillers(14, modes=7))  # 7 modes, 2 cards each: two turns of 7 new modes
    engine = engine_at(deck)
    for _ in range(2):
        engine.start_turn()
        draws = play_turn(engine)
        assert len({d.card["modo"] for d in draws}) == 7
        assert not any(d.reason["mode_relaxed"] for d in draws)


def test_meter_at_zero_stops_the_draw_at_once():
    crash = card("crash", "m1", down=())
    crash["opcoes"][0]["efeitos"] = {"caixa": -50}
    deck = build([crash, *fillers(10)], initial={"caixa": 3})
    engine = engine_at(deck)
    engine.start_turn()
    while engine.current is None or engine.current.card_id != "crash":
        if engine.current is not None:
            engine.choose(1)
        engine.draw()
    choice = engine.choose(0)
    assert choice.ended and engine.phase == ENDED
    assert engine.ending.reason == CATASTROPHE and engine.ending.zeroed == "caixa"
    with pytest.raises(EngineError):
        engine.draw()


def test_meter_emptied_by_an_event_before_the_draw_ends_the_match_at_turn_start():
    # §5 "Fim imediato (medidor em 0): o sorteio para" with events before the draw (§1, GDD 08;
    # README "Rule decisions" 8): no card of that turn is shown.
    deck = build(fillers(20))
    engine = engine_at(deck, year=2, meters={"saude": 0})
    turn = engine.start_turn()
    assert turn.mandatory == [] and engine.phase == ENDED
    assert engine.ending.reason == CATASTROPHE and engine.ending.zeroed == "saude"
    assert engine.ending.year == 2 and engine.played == []
    with pytest.raises(EngineError):
        engine.draw()


def test_year_4_closing_leaves_no_emergency_even_those_that_did_not_fit():
    # §5 "Fim do Ano 4 com medidor ≤ 10: Sem emergência: o mandato acabou", with Em > 7 in year
    # 4: the emergency beyond N is not carried anywhere, not even in the saved match.
    from sorteio.synthetic import METERS

    deck = build([card(f"e-{m}", f"m-{m}", up=[m], down=()) for m in METERS] + fillers(20))
    engine = engine_at(deck, year=4, meters={m: 40 for m in METERS},
                       closing={m: 5 for m in METERS})
    assert len(engine.start_turn().mandatory) == 8
    assert len(play_turn(engine)) == 7
    assert engine.phase == ENDED and engine.ending.reason == "end_of_mandate"
    assert engine.carried == [] and engine.to_state()["carried"] == []


def test_wrong_calls_raise_clear_errors_and_change_nothing():
    engine = engine_at(build(fillers(10)))
    with pytest.raises(EngineError, match="phase 'turn_start'"):
        engine.draw()
    engine.start_turn()
    engine.draw()
    assert engine.phase == AWAITING_CHOICE
    for bad in (2, -1, "0", True):
        with pytest.raises(EngineError, match="option must be"):
            engine.choose(bad)
    engine.choose(0)
    assert engine.phase == DRAWING


def test_option_sides_are_drawn_when_the_card_is_shown():
    # GDD 05 §3.4 (cited in §3.5): each of 2 options lands on either side with chance 1/2.
    deck = build(fillers(40))
    flipped = total = 0
    for seed in range(400):
        engine = engine_at(deck, seed=seed)
        engine.start_turn()
        for draw in play_turn(engine):
            flipped += draw.option_order == [1, 0]
            total += 1
    sd = (total * 0.25) ** 0.5  # binomial(total, 1/2)
    assert abs(flipped - total / 2) <= 4 * sd
