"""Property tests over random decks, parameters, choices and events (hypothesis).

Invariants of GDD 06: no card twice in a match (§3.1.2), never more than N cards a turn (§4), the
mandatory list is emergencies, then actors, then meters, with at most T actor+meter obligations
(§3.3, §4), mandatory cards come first and in list order (§3.3), every card shown was eligible at
the moment it was shown (§3.1, §5), and a saved match continues exactly (issue 2).
"""

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sorteio.engine import DRAWING, ENDED, TURN_START, Engine
from strategies import decks

KIND_ORDER = {"emergency": 0, "actor": 1, "meter": 2}


choices = st.lists(st.integers(0, 1), min_size=1, max_size=60)
shocks = st.lists(st.tuples(st.integers(0, 7), st.integers(-60, 30)), max_size=8)


def run(engine, options, shocks, on_draw=None):
    """Play to the end. ``options`` cycle as the player's choices; ``shocks`` are events (GDD 08)
    applied before each turn (meter position, delta)."""
    transcript, k = [], 0
    while engine.phase != ENDED:
        if engine.phase == TURN_START:
            for m, delta in shocks[engine.year - 1::4]:
                engine.meters[m] = min(100, max(0, engine.meters[m] + delta))
            turn = engine.start_turn()
            transcript.append(("turn", engine.year, tuple(turn.mandatory)))
            continue
        if engine.phase == DRAWING:
            before = set(engine.eligible_cards())
            draw = engine.draw()
            if draw is None:
                transcript.append(("closed", engine.last_turn_end))
                continue
            if on_draw is not None:
                on_draw(engine, draw, before)
            transcript.append(("draw", draw.to_dict()))
        option = options[k % len(options)] % len(engine.current.card["opcoes"])
        k += 1
        transcript.append(("choice", engine.choose(option)))
    transcript.append(("end", engine.ending))
    return transcript


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deck=decks(), seed=st.integers(0, 2**32), options=choices, shocks=shocks)
def test_draw_invariants_hold_on_random_decks_and_states(deck, seed, options, shocks):
    engine = Engine(deck, seed)
    n, cap = deck.parametros.cartas_por_turno, deck.parametros.teto_obrigatorias
    shown, turn_state = set(), {}

    def advance(kind, target):
        """Mandatory slots are served in list order; skipped ones went to the random draw."""
        listed, position = turn_state["list"], turn_state["next"]
        while (listed[position].kind, listed[position].target) != (kind, target):
            position += 1
        turn_state["next"] = position + 1

    def check(engine, draw, eligible_before):
        ix = engine.index
        c = ix.card_index[draw.card_id]
        assert draw.card_id not in shown, "a card repeated"
        shown.add(draw.card_id)
        assert c in eligible_before, "a card was not eligible when shown"
        assert 1 <= draw.slot <= n
        reason = draw.reason
        if reason["kind"] == "mandatory":
            advance(reason["obligation"], reason["target"])
            assert not turn_state["free_random"], "a mandatory card after a free random slot"
        elif reason["replaces"] is None:
            turn_state["free_random"] = True
        else:
            advance(reason["replaces"]["kind"], reason["replaces"]["target"])
        assert sorted(draw.option_order) == list(range(len(draw.card["opcoes"])))

    def start_hook(turn):
        kinds = [KIND_ORDER[ob.kind] for ob in turn.mandatory]
        assert kinds == sorted(kinds)
        assert sum(ob.kind != "emergency" for ob in turn.mandatory) <= cap
        emergencies = sum(ob.kind == "emergency" for ob in turn.mandatory)
        assert emergencies >= cap or sum(k > 0 for k in kinds) <= cap - emergencies
        turn_state.update(list=turn.mandatory, next=0, free_random=False)

    original_start = engine.start_turn

    def start_turn():
        turn = original_start()
        start_hook(turn)
        return turn

    engine.start_turn = start_turn
    transcript = run(engine, options, shocks, on_draw=check)
    sizes = [entry[1].cards for entry in transcript if entry[0] == "closed"]
    assert all(size <= n for size in sizes)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(deck=decks(), seed=st.integers(0, 2**32), options=choices, shocks=shocks,
       stop=st.integers(0, 80))
def test_save_and_load_at_any_point_continues_exactly(deck, seed, options, shocks, stop):
    whole = run(Engine(deck, seed), options, shocks)
    engine, calls = Engine(deck, seed), 0
    # Advance by ``stop`` engine calls (start, draw, choose), then save and reload through JSON.
    prefix = []
    while engine.phase != ENDED and calls < stop:
        if engine.phase == TURN_START:
            for m, delta in shocks[engine.year - 1::4]:
                engine.meters[m] = min(100, max(0, engine.meters[m] + delta))
            prefix.append(("turn", engine.year, tuple(engine.start_turn().mandatory)))
        elif engine.phase == DRAWING:
            draw = engine.draw()
            prefix.append(("closed", engine.last_turn_end) if draw is None
                          else ("draw", draw.to_dict()))
        else:
            option = options[sum(e[0] == "choice" for e in prefix) % len(options)]
            prefix.append(("choice", engine.choose(option % len(engine.current.card["opcoes"]))))
        calls += 1
    saved = json.loads(json.dumps(engine.to_state()))
    loaded = Engine.from_state(deck, saved)
    assert loaded.to_state() == saved
    rest = _continue(loaded, options, shocks, prefix)
    assert prefix + rest == whole


def _continue(engine, options, shocks, prefix):
    """Continue a loaded match exactly as ``run`` would have, with the same choice counter."""
    k = sum(e[0] == "choice" for e in prefix)
    rest = []
    if engine.phase == "awaiting_choice":
        option = options[k % len(options)] % len(engine.current.card["opcoes"])
        rest.append(("choice", engine.choose(option)))
        k += 1
    tail = run(engine, options[k % len(options):] + options[:k % len(options)], shocks)
    return rest + tail
