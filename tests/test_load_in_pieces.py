"""Issue 13: a big deck's load in the in-process bridge's work thread lets go of the GIL often.

The windowed regex search (``jsonfile.search_windowed``) answers as one search would; a deck
validated in pieces (``load_deck(in_pieces=True)``) is the same deck, and a bad one gives the
same errors, naming file, card and field the same way; the bridge runs a slow job with the
garbage collector off then freezes, and frees the previous match in pieces in a thread.
(How long the GIL is kept is measured, not tested: benchmarks/bench_deck_load.py.)
"""

import copy
import gc
import json
import re
import threading
import weakref

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bridge_fakes import wait_reply
from sorteio import jsonfile, loader
from sorteio.bridge import inprocess
from sorteio.bridge.inprocess import InProcessBridge, release_in_pieces
from sorteio.jsonfile import MAX_DIGITS, search_windowed
from sorteio.loader import BUILTIN_DECKS, DeckError, load_deck, parse_deck, read_deck_data
from sorteio.synthetic import synthetic_deck


@pytest.fixture(autouse=True)
def unfrozen():
    """A slow job ends with gc.freeze(): later tests get the collector as it was."""
    yield
    gc.unfreeze()


@pytest.fixture
def small_pieces(monkeypatch):
    monkeypatch.setattr(loader, "CARDS_PER_PIECE", 7)


@settings(max_examples=200, deadline=None)
@given(text=st.text(alphabet="0123456789a\\uUdD8", max_size=120),
       window=st.integers(min_value=1, max_value=20), longest=st.integers(1, 6))
def test_windowed_search_answers_as_one_search(text, window, longest):
    pattern = re.compile(f"[0-9]{{{longest}}}")
    assert search_windowed(pattern, text, longest, window) == (pattern.search(text) is not None)
    surrogate = jsonfile._SURROGATE_ESCAPE
    assert search_windowed(surrogate, text, 4, window) == (surrogate.search(text) is not None)


@pytest.mark.parametrize("offset", [0, 1, 4000, 5000, 9000])
def test_a_long_number_across_a_window_boundary_is_found(tmp_path, monkeypatch, offset):
    monkeypatch.setattr(jsonfile, "WINDOW_CHARS", 4096)
    text = json.dumps({"nome": "x" * offset, "n": 1}).replace("1}", "9" * (MAX_DIGITS + 1) + "}")
    _, problems = jsonfile.loads(text)
    assert [p.kind for p in problems] == ["long_number"]


def same_deck(one, other):
    assert one == other
    assert one.model_dump() == other.model_dump()
    assert one.model_fields_set == other.model_fields_set
    assert [c.model_fields_set for c in one.cartas] == [c.model_fields_set for c in other.cartas]


@pytest.mark.parametrize("name", sorted(BUILTIN_DECKS))
def test_a_deck_in_pieces_is_the_same_deck(small_pieces, name):
    same_deck(load_deck(name, in_pieces=True), load_deck(name))


def test_a_big_deck_in_pieces_is_the_same_deck(tmp_path):
    path = tmp_path / "big.json"
    path.write_text(synthetic_deck(cards=1200).model_dump_json(), encoding="utf-8")
    same_deck(load_deck(path, in_pieces=True), load_deck(path))


def base():
    return json.loads(BUILTIN_DECKS["padrao"].read_text(encoding="utf-8"))


def card(data, index, **changes):
    data = copy.deepcopy(data)
    data["cartas"][index].update(changes)
    return data


BROKEN = {
    "range in a late piece": lambda d: card(d, 30, pre_requisitos={"ano_minimo": 5}),
    "no options": lambda d: card(d, 8, opcoes=[]),
    "unknown meter": lambda d: card(d, 15, opcoes=[{"texto": "x", "efeitos": {"petroleo": 3}}]),
    "actor card without actor": lambda d: card(d, 0, tipo="ator"),
    "extra field": lambda d: card(d, 21, cor="azul"),
    "duplicate ids": lambda d: card(d, 9, id=d["cartas"][2]["id"]),
    "errors in two pieces and the deck": lambda d: {
        **card(card(d, 1, modo=7), 25, titulo=""), "medidores": []},
    "cards not a list": lambda d: {**d, "cartas": {"a": 1}},
    "a card not an object": lambda d: {**d, "cartas": [*d["cartas"][:10], 5, *d["cartas"][10:]]},
    "not an object": lambda d: [d],
}


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_a_bad_deck_in_pieces_gives_the_same_errors(tmp_path, small_pieces, name):
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(BROKEN[name](base()), ensure_ascii=False), encoding="utf-8")
    errors = []
    for in_pieces in (False, True):
        with pytest.raises(DeckError) as caught:
            load_deck(path, in_pieces=in_pieces)
        errors.append((str(caught.value), caught.value.issues))
    assert errors[0] == errors[1]
    assert str(path) in errors[0][0]


def test_decoding_problems_are_reported_the_same_in_pieces(tmp_path, small_pieces):
    text = json.dumps(base(), ensure_ascii=False).replace(
        '"ano_minimo": 1', '"ano_minimo": ' + "1" * (MAX_DIGITS + 1), 1).replace(
        '"titulo": "', '"titulo": "\\ud800', 1)
    path = tmp_path / "deck.json"
    path.write_text(text, encoding="utf-8")
    source, data, problems = read_deck_data(path)
    errors = []
    for in_pieces in (False, True):
        with pytest.raises(DeckError) as caught:
            parse_deck(copy.deepcopy(data), source, problems, in_pieces=in_pieces)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    assert "digits" in errors[0] and "surrogate" in errors[0]


def test_the_threaded_bridge_loads_in_pieces_with_gc_off_then_freezes(monkeypatch):
    seen = []
    real = loader.parse_deck

    def spy(*args, **kwargs):
        seen.append((kwargs.get("in_pieces"), gc.isenabled()))
        return real(*args, **kwargs)

    monkeypatch.setattr(loader, "parse_deck", spy)
    assert InProcessBridge(threaded=False).handler.load_in_pieces is False
    bridge = InProcessBridge()
    gc.enable()
    assert bridge.submit(1, '{"id": 1, "method": "new_match", "params": {"seed": 3}}') == ""
    assert wait_reply(bridge, 1, limit=60.0)["ok"] is True
    assert seen == [(True, False)]
    assert gc.isenabled() and gc.get_freeze_count() > 0


def test_a_game_that_turned_gc_off_keeps_it_off():
    bridge = InProcessBridge()
    gc.disable()
    try:
        bridge.submit(1, '{"id": 1, "method": "new_match", "params": {"seed": 3}}')
        assert wait_reply(bridge, 1, limit=60.0)["ok"] is True
        assert not gc.isenabled()
    finally:
        gc.enable()


def release_threads():
    return [t for t in threading.enumerate() if t.name == "sorteio-release"]


def test_the_previous_match_is_freed_aside_and_the_new_one_plays(tmp_path, monkeypatch):
    monkeypatch.setattr(inprocess, "BIG", 10)  # padrao's lists count as big: taken apart
    bridge = InProcessBridge()
    bridge.submit(1, '{"id": 1, "method": "new_match", "params": {"seed": 3}}')
    assert wait_reply(bridge, 1, limit=60.0)["ok"] is True
    old = weakref.ref(bridge.handler.deck)
    released = []
    monkeypatch.setattr(inprocess, "release_in_pieces",
                        lambda box, keep: released.append(threading.get_ident())
                        or release_in_pieces(box, keep))
    bridge.submit(2, '{"id": 2, "method": "new_match", "params": {"seed": 4}}')
    assert wait_reply(bridge, 2, limit=60.0)["ok"] is True
    for thread in release_threads():
        thread.join(10)
    assert released and released[0] != threading.get_ident()
    assert old() is None
    assert len(bridge.handler.deck.cartas) > 10
    for key, method in ((3, "start_turn"), (4, "draw")):
        reply = json.loads(bridge.submit(key, json.dumps({"id": key, "method": method})))
        assert reply["ok"] is True, reply


def test_release_in_pieces_empties_big_containers_but_those_kept(monkeypatch):
    monkeypatch.setattr(inprocess, "BIG", 3)
    shared = list(range(50))

    class Holder:
        pass

    Holder.__module__ = "sorteio.test"
    holder = Holder()
    holder.mine, holder.shared, holder.small = list(range(40)), shared, [1, 2]
    mine = holder.mine
    box = [holder]
    del holder
    release_in_pieces(box, {id(shared)})
    assert box == [] and mine == [] and shared == list(range(50))
