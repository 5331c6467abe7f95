"""Cost that must not grow faster than the deck (issue 10): work is counted, never timed.

- a deck is compiled (and fingerprinted) once per ``Deck`` object, however many engines, lints,
  checks or saves use it;
- the Python lines run by a bridge ``new_match`` and ``load``, ``lint`` and a ``simulate`` sweep
  grow with the cards, not with cards x modes: the same per card for 10 or 600 modes, and for 300
  or 1,200 cards;
- the bitmask deck (``masks.FastDeck``) takes memory linear in the cards: no per-card bit list and
  no full-width bit set per small mode.

Speed itself is measured by ``benchmarks/growth.py``.
"""

import sys
from pathlib import Path

import pytest

import sorteio.compiled as compiled
from sorteio.bridge.handler import RequestHandler
from sorteio.checks import deck_warnings
from sorteio.compiled import compile_deck
from sorteio.deck import Parameters
from sorteio.engine import Engine
from sorteio.lint import lint_deck
from sorteio.loader import load_deck
from sorteio.match import play_match
from sorteio.sim.masks import FastDeck, MaskTable, fast_deck
from sorteio.sim.sweep import run_sweep
from sorteio.synthetic import synthetic_deck

PACKAGE = str(Path(compiled.__file__).parent)


@pytest.fixture
def compiles(monkeypatch):
    """Counts ``CompiledDeck`` builds and fingerprints."""
    counts = {"compile": 0, "fingerprint": 0, "fast": 0}
    build, fingerprint, fast = (compiled.CompiledDeck.__init__, compiled.deck_fingerprint,
                                FastDeck.__init__)

    def counted_build(self, deck):
        counts["compile"] += 1
        build(self, deck)

    def counted_fingerprint(deck):
        counts["fingerprint"] += 1
        return fingerprint(deck)

    def counted_fast(self, index):
        counts["fast"] += 1
        fast(self, index)

    monkeypatch.setattr(compiled.CompiledDeck, "__init__", counted_build)
    monkeypatch.setattr(compiled, "deck_fingerprint", counted_fingerprint)
    monkeypatch.setattr(FastDeck, "__init__", counted_fast)
    return counts


def test_a_deck_is_compiled_and_fingerprinted_once_per_deck_object(compiles):
    deck = load_deck("padrao")
    engines = [Engine(deck, seed) for seed in range(5)]
    for seed, engine in enumerate(engines[:4]):
        play_match(deck, seed, "random", engine=engine)
    lint_deck(deck)
    deck_warnings(deck)
    state = engines[0].to_state()
    Engine.from_state(deck, state)
    fast_deck(engines[0].index)
    fast_deck(engines[1].index)  # the kernels' bitmask deck: built once, then shared
    engines[1].to_state()
    assert compiles == {"compile": 1, "fingerprint": 1, "fast": 1}
    assert all(e.index is engines[0].index for e in engines)


def test_a_copy_with_other_parameters_is_compiled_again_not_served_stale(compiles):
    deck = load_deck("curto")
    first = compile_deck(deck)
    other = deck.model_copy(update={"parametros": Parameters(teto_obrigatorias=2)})
    again = compile_deck(other)
    assert compiles["compile"] == 2 and again is not first
    assert first.cap == 3 and again.cap == 2 and Engine(other).index is again


def test_bridge_new_match_and_load_compile_once_each(compiles):
    handler = RequestHandler()
    assert "result" in handler.handle({"method": "new_match", "params": {"seed": 1}})
    handler.handle({"method": "start_turn"})
    handler.handle({"method": "draw"})
    state = handler.handle({"method": "save"})["result"]["state"]
    assert compiles == {"compile": 1, "fingerprint": 1, "fast": 0}  # the oracle: no bitmasks
    assert "result" in handler.handle({"method": "load", "params": {"state": state}})
    assert compiles == {"compile": 2, "fingerprint": 2, "fast": 0}  # a new deck object


def _lines(fn) -> int:
    """Python lines of the sorteio package run by ``fn()`` (a deterministic count of work)."""
    count = 0

    def local(frame, event, arg):
        nonlocal count
        if event == "line":
            count += 1
        return local

    def tracer(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(PACKAGE) else None

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count


def _work_per_card(tmp_path, cards: int, modes: int) -> dict:
    deck = synthetic_deck(cards=cards, modes=modes, actors=6, seed=1)
    path = tmp_path / f"deck-{cards}-{modes}.json"
    path.write_text(deck.model_dump_json(), encoding="utf-8")
    handler = RequestHandler()
    work = {"new_match": _lines(lambda: handler.handle(
        {"method": "new_match", "params": {"deck": str(path), "seed": 1}}))}
    handler.handle({"method": "start_turn"})
    handler.handle({"method": "draw"})
    state = handler.handle({"method": "save"})["result"]["state"]
    work["load"] = _lines(lambda: handler.handle({"method": "load",
                                                  "params": {"state": state}}))
    loaded = load_deck(str(path))
    work["lint"] = _lines(lambda: lint_deck(loaded))
    work["simulate"] = _lines(lambda: run_sweep(loaded, {}, 10, jobs=1))
    return {k: v / cards for k, v in work.items()}


def test_work_grows_with_the_cards_not_with_cards_times_modes(tmp_path):
    few = _work_per_card(tmp_path, 1200, 10)
    many = _work_per_card(tmp_path, 1200, 600)
    small = _work_per_card(tmp_path, 300, 30)
    big = _work_per_card(tmp_path, 1200, 120)
    for step in ("new_match", "load", "lint", "simulate"):
        assert many[step] <= 1.2 * few[step], (step, few[step], many[step])
        assert big[step] <= 1.2 * small[step], (step, small[step], big[step])


def _bytes(x, seen=None) -> int:
    """Deep size of ints, lists, tuples and MaskTables (what a FastDeck holds)."""
    seen = set() if seen is None else seen
    if id(x) in seen:
        return 0
    seen.add(id(x))
    if isinstance(x, MaskTable):
        return _bytes(x.dense, seen) + _bytes(x.cards, seen)
    size = sys.getsizeof(x)
    if isinstance(x, (list, tuple)):
        size += sum(_bytes(item, seen) for item in x)
    return size


def _fast_deck_bytes_per_card(cards: int) -> float:
    fd = fast_deck(compile_deck(synthetic_deck(cards=cards, modes=cards // 10, seed=1)))
    return sum(_bytes(v) for k, v in vars(fd).items() if k != "index") / cards


def test_bitmask_deck_memory_is_linear_in_the_cards():
    assert _fast_deck_bytes_per_card(8000) <= 1.3 * _fast_deck_bytes_per_card(1000)


def test_a_deck_no_longer_used_is_freed_at_once_with_its_index():
    """No reference cycle between a deck, its compiled index and its bitmask deck: a bridge that
    replaces a big deck frees the old one at once, not at the next full garbage collection."""
    import gc
    import weakref

    enabled = gc.isenabled()
    gc.disable()
    try:
        deck = load_deck("padrao")
        engine = Engine(deck, 1)
        engine.start_turn()
        engine.draw()
        engine.to_state()
        refs = [weakref.ref(x) for x in (deck, engine.index, fast_deck(engine.index))]
        del deck
        assert all(r() is not None for r in refs)  # the engine keeps its deck
        del engine
        assert [r() for r in refs] == [None, None, None]
    finally:
        if enabled:
            gc.enable()
