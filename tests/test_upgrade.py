"""Saves survive deck updates (issue 14, README rule decision 12): a save made with one version of
a deck loads into the next one and plays to the match end with no card shown twice (§3.1.2,
CA-01), the counters and the RNG kept; only what cannot be kept is refused, in words naming the
meter, actor or parameter.

The deck versions: v1 the shipped default deck; v2 texts and effects changed; v3 cards added;
v4 cards removed (among them cards the saves showed, reserved or had on screen)."""

import copy
import json

import pytest

from sorteio import load_deck
from sorteio.compiled import compile_deck
from sorteio.deck import Deck
from sorteio.engine import AWAITING_CHOICE, DRAWING, ENDED, TURN_START, Engine
from sorteio.errors import StateError
from sorteio.match import make_policy
from sorteio.state import restore_state
from sorteio.upgrade import _RETIRED_VALUES, with_retired


def _raw(deck):
    return deck.model_dump(mode="json")


def _v1():
    return _raw(load_deck("padrao"))


def _v2(raw):
    """Texts and effects changed: every title and text edited, every option's effects shifted
    (some links to meters appear or go, §3.2)."""
    raw = copy.deepcopy(raw)
    for i, card in enumerate(raw["cartas"]):
        card["titulo"] += " (rev. 2)"
        card["texto"] = (card.get("texto") or "") + " Revisado."
        for option in card["opcoes"]:
            option["texto"] += "!"
            if i % 3 == 0:
                option["efeitos"] = {k: -v for k, v in option["efeitos"].items()}
    return raw


def _v3(raw):
    """Cards added: 12 new common cards over the existing modes, some late (ano_minimo 3)."""
    raw = copy.deepcopy(raw)
    modes = sorted({c["modo"] for c in raw["cartas"]})
    for i in range(12):
        raw["cartas"].append({
            "id": f"nova-{i:02d}", "titulo": f"Nova {i}", "texto": "Uma carta nova.",
            "modo": modes[i % len(modes)], "tipo": "comum",
            "aprendizado": {"status": "aprovado", "texto": "ok"},
            "pre_requisitos": {"ano_minimo": 3 if i % 4 == 0 else 1},
            "opcoes": [{"texto": "Sim", "efeitos": {"caixa": -3, "saude": 4}},
                       {"texto": "Não", "efeitos": {"aprovacao": -2}}]})
    return raw


REMOVED = ("sau-02", "seg-02", "eco-01", "pol-03", "soc-01", "des-02", "inf-04", "nova-03")


def _v4(raw, removed=REMOVED):
    """Cards removed (ids the matches below show, reserve and have on screen)."""
    raw = copy.deepcopy(raw)
    raw["cartas"] = [c for c in raw["cartas"] if c["id"] not in removed]
    return raw


def _versions():
    v1 = _v1()
    v2 = _v2(v1)
    v3 = _v3(v2)
    v4 = _v4(v3)
    return [Deck.model_validate(v) for v in (v1, v2, v3, v4)]


VERSIONS = _versions()


def _step(engine, chooser):
    if engine.phase == TURN_START:
        engine.start_turn()
    elif engine.phase == AWAITING_CHOICE:
        engine.choose(chooser(engine, engine.current))
    else:
        engine.draw()


def _saves(deck, seed, every=5):
    """Saves every ``every`` calls of a whole match: all phases, mid-turn and between turns."""
    engine, chooser = Engine(deck, seed), make_policy("random", seed)
    saves, steps = [], 0
    while engine.phase != ENDED:
        _step(engine, chooser)
        steps += 1
        if steps % every == 0:
            saves.append(engine.to_state())
    return saves


def _play_out(engine, seed):
    """Play to the match end; return every card id the match showed, in order."""
    chooser = make_policy("random", seed)
    while engine.phase != ENDED:
        _step(engine, chooser)
    return engine.to_state()["played"]


def _assert_no_repeat(played, deck):
    assert len(played) == len(set(played)), "a card was shown twice (§3.1.2, CA-01)"


@pytest.mark.parametrize("old, new", [(0, 1), (1, 2), (2, 3), (0, 3)],
                         ids=["v1-v2-texts-effects", "v2-v3-added", "v3-v4-removed",
                              "v1-v4-all"])
def test_saves_of_one_version_load_into_the_next_and_play_to_the_end_with_no_repeat(old, new):
    # Every save (all phases: between turns, drawing, a card on screen) of 6 matches on the old
    # version loads into the new one and plays to the end: no card twice, every counter kept.
    loaded = touched = 0
    for seed in range(6):
        for saved in _saves(VERSIONS[old], seed, every=4):
            touched += bool(set(REMOVED) & set(saved["played"]))
            engine = Engine.from_state(VERSIONS[new], copy.deepcopy(saved))
            assert engine.year == saved["year"] and engine.meter_values() == saved["meters"]
            assert engine.rng.get_state() == saved["rng"]
            assert engine.to_state()["played"] == saved["played"]  # removed cards stay shown
            if saved["phase"] != ENDED:
                played = _play_out(engine, seed)
                _assert_no_repeat(played, VERSIONS[new])
                assert played[:len(saved["played"])] == saved["played"]
                assert engine.ending.cards_played == len(played)
                if engine.ending.reason == "end_of_mandate":
                    assert not engine.ending.short  # every turn kept its N slots (CA-02)
                    assert len(played) == 28
            loaded += 1
    assert loaded > 60
    if new == 3:  # the removal is exercised: saves that showed cards v4 no longer has
        assert touched > 20


def test_a_save_walks_through_every_version_to_the_end_with_no_repeat():
    # One match saved on v1, continued for a while on v2, saved, then v3, then v4, to the end:
    # each re-save is made on the deck it continued on (format 2, earlier decks recorded).
    for seed in range(4):
        engine = Engine(VERSIONS[0], seed)
        chooser = make_policy("random", seed)
        for version in VERSIONS[1:]:
            for _ in range(9):
                if engine.phase != ENDED:
                    _step(engine, chooser)
            saved = json.loads(json.dumps(engine.to_state()))
            engine = Engine.from_state(version, saved)
        saved = engine.to_state()
        assert saved["format"] == "sorteio-match/2" and len(saved["earlier_decks"]) == 3
        played = _play_out(engine, seed)
        _assert_no_repeat(played, VERSIONS[3])
        assert engine.ending is not None


def test_an_updated_save_saved_again_loads_on_the_fast_path_and_continues_the_same():
    # Determinism after an update: the same save + the same new deck + the same choices give the
    # same continuation, whether loaded from the old save or from its re-save on the new deck.
    for saved in _saves(VERSIONS[0], 1, every=7):
        if saved["phase"] == ENDED:
            continue
        first = Engine.from_state(VERSIONS[3], copy.deepcopy(saved))
        again = Engine.from_state(VERSIONS[3], json.loads(json.dumps(first.to_state())))
        twice = Engine.from_state(VERSIONS[3], copy.deepcopy(saved))
        assert _play_out(first, 5) == _play_out(again, 5) == _play_out(twice, 5)


def test_an_unchanged_deck_keeps_format_1_saves():
    saved = _mid_match_save()
    engine = Engine.from_state(VERSIONS[0], copy.deepcopy(saved))
    assert engine.to_state() == saved and saved["format"] == "sorteio-match/1"


def _mid_match_save():
    """A save of year 2 or later, mid-turn, with a closed turn behind it (first such match)."""
    return _save_where(VERSIONS[0], lambda e: e.year >= 2 and e.phase == DRAWING and e.slot >= 2)


def _save_where(deck, test, seeds=range(40)):
    for seed in seeds:
        engine, chooser = Engine(deck, seed), make_policy("random", seed)
        while engine.phase != ENDED:
            _step(engine, chooser)
            if test(engine):
                return engine.to_state()
    raise AssertionError("no such save")


def test_a_removed_card_reserved_for_an_obligation_gives_its_slot_to_the_random_draw():
    # §5 "Obrigatória deixa de ser elegível antes de aparecer — a vaga vai ao sorteio" (rule
    # decisions 3 and 12): the emergency is not spent.
    deck = VERSIONS[0]
    saved = _save_where(deck, lambda e: e.phase == DRAWING and any(
        ob[0] == "emergency" and ob[2] >= 0 for ob in e.pending) and e.pending[0][0] ==
        "emergency")
    ob = saved["pending"][0]
    new = Deck.model_validate(_v4(_v1(), removed=(ob["card_id"],)))
    engine = Engine(new)
    notes = restore_state(engine, copy.deepcopy(saved))
    assert any(ob["card_id"] in n and "random draw" in n for n in notes)
    draw = engine.draw()
    assert draw.reason["kind"] == "random"
    assert draw.reason["replaces"]["kind"] == "emergency"
    assert draw.reason["replaces"]["target"] == ob["target"]
    assert not engine.emergency_spent[engine.index.meter_index[ob["target"]]]


def test_a_reserved_card_that_no_longer_serves_its_obligation_gives_its_slot_to_the_draw():
    deck = VERSIONS[0]
    saved = _save_where(deck, lambda e: e.phase == DRAWING and bool(e.pending) and
                        e.pending[0][0] == "meter" and e.pending[0][2] >= 0)
    ob = saved["pending"][0]
    raw = _v1()
    for card in raw["cartas"]:
        if card["id"] == ob["card_id"]:  # it no longer raises the low meter (§3.2)
            for option in card["opcoes"]:
                option["efeitos"].pop(ob["target"], None)
    engine = Engine.from_state(Deck.model_validate(raw), copy.deepcopy(saved))
    draw = engine.draw()
    assert draw.reason["kind"] == "random" and draw.reason["replaces"]["target"] == ob["target"]


def test_a_removed_card_on_screen_keeps_its_slot_and_is_closed_unanswered():
    saved = _save_where(VERSIONS[0], lambda e: e.phase == AWAITING_CHOICE and e.year == 2)
    card = saved["current"]["card_id"]
    new = Deck.model_validate(_v4(_v1(), removed=(card,)))
    engine = Engine(new)
    notes = restore_state(engine, copy.deepcopy(saved))
    assert any("closed unanswered" in n for n in notes)
    assert engine.phase == DRAWING and engine.current is None
    assert engine.slot == saved["slot"]
    resaved = engine.to_state()
    assert resaved["turn_cards"] == saved["turn_cards"] and card in resaved["played"]
    assert resaved["retired"] == [{"id": card, "slot": True}]
    played = _play_out(engine, 0)
    _assert_no_repeat(played, new)


def test_a_card_removed_and_brought_back_is_never_shown_twice():
    saved = _mid_match_save()
    gone = saved["played"][:3]
    v_gone = Deck.model_validate(_v4(_v1(), removed=tuple(gone)))
    resaved = Engine.from_state(v_gone, copy.deepcopy(saved)).to_state()
    assert [r["id"] for r in resaved["retired"]] == gone
    back = Engine.from_state(VERSIONS[0], resaved)  # the cards are in the deck again
    assert all(back.is_played[back.index.card_index[c]] for c in gone)
    assert back.to_state()["retired"] == []
    _assert_no_repeat(_play_out(back, 2), VERSIONS[0])


def test_a_lowered_cap_drops_the_excess_of_the_turn_in_progress():
    # §3.3 "o excedente é descartado e checado de novo no turno seguinte".
    engine = Engine(VERSIONS[0], 0)
    engine.meters = [20] * len(engine.meters)  # every meter below 30: T = 3 meter obligations
    engine.start_turn()
    saved = engine.to_state()
    assert [ob["kind"] for ob in saved["pending"]] == ["meter"] * 3
    raw = _v1()
    raw["parametros"]["teto_obrigatorias"] = 2
    engine = Engine(Deck.model_validate(raw))
    notes = restore_state(engine, copy.deepcopy(saved))
    assert sum(ob[0] != "emergency" for ob in engine.pending) == 2
    assert any("cap T = 2" in n for n in notes)


def _changed(edit):
    raw = _v1()
    edit(raw)
    return Deck.model_validate(raw)


def _rename_meter(raw):
    for m in raw["medidores"]:
        if m["id"] == "dignidade":
            m["id"] = "dignidade_humana"
    for c in raw["cartas"]:
        for o in c["opcoes"]:
            if "dignidade" in o["efeitos"]:
                o["efeitos"]["dignidade_humana"] = o["efeitos"].pop("dignidade")


def _drop_actor(raw):
    raw["atores"] = [a for a in raw["atores"] if a["id"] != "imprensa"]
    raw["cartas"] = [c for c in raw["cartas"] if c.get("ator") != "imprensa"]
    for c in raw["cartas"]:
        for o in c["opcoes"]:
            o["efeitos_atores"].pop("imprensa", None)


def _add_meter(raw):
    raw["medidores"].append({"id": "cultura", "nome": "Cultura", "inicial": 50})


def _n8(raw):
    raw["parametros"]["cartas_por_turno"] = 8


@pytest.mark.parametrize("edit, words", [
    (_rename_meter, ["meter 'dignidade'", "removed or renamed"]),
    (_drop_actor, ["actor 'imprensa'", "removed or renamed"]),
    (_add_meter, ["meter 'Cultura' (cultura) is new"]),
    (_n8, ["N = 7", "N = 8", "cartas_por_turno"]),
], ids=["meter-renamed", "actor-removed", "meter-added", "N-changed"])
def test_what_cannot_be_kept_is_refused_in_words_a_designer_understands(edit, words):
    saved = _mid_match_save()  # after the first turn closed
    assert saved["last_turn_end"] is not None
    with pytest.raises(StateError) as caught:
        Engine.from_state(_changed(edit), saved)
    message = str(caught.value)
    assert "another version of it" in message and "fingerprint" not in message
    for word in words:
        assert word in message


def test_n_may_change_before_a_match_has_shown_a_card():
    saved = Engine(VERSIONS[0], 4).to_state()
    engine = Engine.from_state(_changed(_n8), saved)
    assert engine.index.n_slots == 8


def test_a_save_between_turns_and_after_the_mandate_loads_too():
    phases = set()
    for saved in _saves(VERSIONS[0], 3, every=1):
        if saved["phase"] in (TURN_START, ENDED) and saved["played"]:
            Engine.from_state(VERSIONS[3], copy.deepcopy(saved))
            phases.add(saved["phase"])
    assert phases == {TURN_START, ENDED}


def test_a_retired_card_holds_a_value_in_every_per_card_list_of_the_index():
    # A new per-card list in CompiledDeck must be given a retired card's value in upgrade.py.
    ix = compile_deck(VERSIONS[2])
    n = len(ix.card_ids)
    assert n != 101  # level_of has 101 entries (satisfaction 0-100), not one per card
    per_card = {k for k, v in vars(ix).items() if isinstance(v, list) and len(v) == n}
    out = with_retired(ix, [{"id": "gone", "slot": True}], ["x"])
    handled = set(_RETIRED_VALUES) | {"card_ids", "mode", "is_scene", "_cards"}
    assert per_card <= handled, per_card - handled
    for name in per_card - {"_cards"}:
        assert len(getattr(out, name)) == n + 1, name
    assert out.card_index["gone"] == n and len(ix.card_ids) == n  # the shared index untouched


def test_forged_retired_cards_are_refused():
    saved = _mid_match_save()
    updated = Engine.from_state(VERSIONS[3], copy.deepcopy(saved)).to_state()
    plain = dict(updated, earlier_decks=[], format="sorteio-match/1")
    plain["retired"] = [{"id": "eco-99", "slot": True}]
    with pytest.raises(StateError, match="crossed a deck update"):
        Engine.from_state(VERSIONS[3], plain)
    present = copy.deepcopy(updated)
    present["retired"].append({"id": "eco-05", "slot": True})
    with pytest.raises(StateError, match="'eco-05' is in the deck"):
        Engine.from_state(VERSIONS[3], present)
    unplayed = copy.deepcopy(updated)
    unplayed["retired"].append({"id": "zz-99", "slot": True})
    with pytest.raises(StateError, match="each retired card is a played card"):
        Engine.from_state(VERSIONS[3], unplayed)


def test_a_save_of_a_deck_of_another_name_is_refused_by_name():
    # curto holds 25 of padrao's card ids: only the decks' names tell them apart.
    saved = _mid_match_save()
    with pytest.raises(StateError, match="saved with the deck 'Padrão' and this deck is 'Curto"):
        Engine.from_state(load_deck("curto"), saved)
    renamed = dict(saved, deck_name=None)  # a save made before issue 14 has no name
    Engine.from_state(VERSIONS[1], renamed)


# -- a game patch as a game meets it: the same deck file, a new content ------------------------

def _write(path, deck):
    path.write_text(json.dumps(_raw(deck), ensure_ascii=False), encoding="utf-8")


def test_a_game_patch_keeps_the_bridges_saves_and_says_what_changed(tmp_path):
    from sorteio.bridge.handler import RequestHandler

    deck_file = tmp_path / "baralho.json"
    _write(deck_file, VERSIONS[0])
    handler = RequestHandler()

    def call(method, **params):
        reply = handler.handle({"id": 1, "method": method, "params": params})
        assert reply["ok"], reply
        return reply["result"]

    call("new_match", deck=str(deck_file), seed=11)
    call("start_turn")
    shown = []
    for _ in range(9):  # into year 2, a card on screen
        drawn = call("draw")["draw"]
        if drawn is None:
            call("start_turn")
            drawn = call("draw")["draw"]
        shown.append(drawn["card_id"])
        call("choose", option=0)
    drawn = call("draw")["draw"]
    saved = call("save")["state"]
    patched = _raw(VERSIONS[0])
    gone = {shown[0], drawn["card_id"]}
    patched["cartas"] = [c for c in patched["cartas"] if c["id"] not in gone]
    patched["cartas"][0]["titulo"] = "Título novo"
    deck_file.write_text(json.dumps(patched, ensure_ascii=False), encoding="utf-8")
    loaded = call("load", state=json.loads(json.dumps(saved)))
    assert loaded["pending"] is None  # the removed card on screen was closed unanswered
    assert any(drawn["card_id"] in note and "closed unanswered" in note
               for note in loaded["deck_update"])
    assert any(shown[0] in note for note in loaded["deck_update"])
    played = [*shown, drawn["card_id"]]
    while True:
        result = call("draw")
        if result["draw"] is None:
            if result["ending"] is not None:
                break
            call("start_turn")
            continue
        played.append(result["draw"]["card_id"])
        if call("choose", option=0)["ending"] is not None:
            break
    assert len(played) == len(set(played))
    again = call("load", state=call("save")["state"])  # the re-save loads on the fast path
    assert again["deck_update"] == []


def test_turn_on_the_command_line_continues_an_old_save_and_says_what_changed(tmp_path):
    from cli_run import sorteio

    deck_file, state = tmp_path / "baralho.json", tmp_path / "s.json"
    _write(deck_file, VERSIONS[0])
    sorteio("play", "--deck", str(deck_file), "--seed", "3", "--stop-after", "9",
            "--save", str(state))
    played = json.loads(state.read_text("utf-8"))["played"]
    deck_file.write_text(json.dumps(_v4(_v1(), removed=tuple(played[:2]))), encoding="utf-8")
    proc = sorteio("turn", "--deck", str(deck_file), "--state", str(state))
    assert f"deck update: card '{played[0]}'" in proc.stderr
    assert "fingerprint" not in proc.stderr + proc.stdout
    data = json.loads(sorteio("turn", "--deck", str(deck_file), "--state", str(state),
                              "--json").stdout)
    assert len(data["deck_update"]) == 2
    _write(deck_file, _changed(_rename_meter))
    proc = sorteio("turn", "--deck", str(deck_file), "--state", str(state), check_code=2)
    assert f"{state}: meter 'dignidade' has a value in the save" in proc.stderr


def test_random_removals_never_make_a_card_show_twice_nor_lose_a_slot():
    # 40 versions of the default deck, each without a random tenth of its cards (fixed seeds), each
    # given a save from a random point of a match: every load plays to the end with no card
    # twice (§3.1.2), and a match reaching the end of the mandate has 4 x N slot cards (CA-02).
    import random

    raw = _v1()
    ids = [c["id"] for c in raw["cartas"]]
    touched = 0
    for k in range(40):
        rng = random.Random(k)
        removed = set(rng.sample(ids, len(ids) // 10))
        new = Deck.model_validate(_v4(raw, removed=removed))
        saves = [s for s in _saves(VERSIONS[0], k, every=3) if s["phase"] != ENDED]
        if not saves:
            continue
        saved = rng.choice(saves)
        touched += bool(removed & set(saved["played"]) or any(
            ob["card_id"] in removed for ob in saved["pending"]))
        engine = Engine.from_state(new, copy.deepcopy(saved))
        played = _play_out(engine, k)
        _assert_no_repeat(played, new)
        assert played[:len(saved["played"])] == saved["played"]
        if engine.ending.reason == "end_of_mandate":
            assert len(played) == 28 and not engine.ending.short
    assert touched >= 10  # loads that met a removed card shown or reserved
