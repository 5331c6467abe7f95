"""GDD 06 §8 acceptance criteria CA-01..CA-13, each a test named after it, at the GDD's sizes."""

import math
from collections import Counter

import pytest

from scenario import (
    FURIOUS,
    INSATISFIED,
    NEUTRAL,
    attack_cards,
    build,
    card,
    engine_at,
    fillers,
    play_turn,
)
from sorteio import load_deck
from sorteio.engine import ENDED, Engine
from sorteio.match import MatchObserver, play_match
from sorteio.results import CATASTROPHE, END_OF_MANDATE


class Recorder(MatchObserver):
    def __init__(self):
        self.cards, self.turns, self.turn_sizes = [], [], []

    def turn_started(self, turn):
        self.turns.append(turn)

    def card_played(self, step):
        self.cards.append(step.draw)

    def turn_ended(self, end):
        self.turn_sizes.append(end.cards)


@pytest.fixture(scope="module")
def padrao():
    return load_deck("padrao")


def test_CA_01_no_card_repeats_in_1000_matches(padrao):
    for seed in range(1000):
        rec = Recorder()
        play_match(padrao, seed, "random", observer=rec)
        ids = [d.card_id for d in rec.cards]
        assert len(ids) == len(set(ids)), f"seed {seed} repeated a card"
        assert len(ids) > 0


def test_CA_02_every_turn_has_exactly_7_cards_with_the_full_deck(padrao):
    closed = 0
    for seed in range(200):
        rec = Recorder()
        end = play_match(padrao, seed, "protect", observer=rec)
        assert all(size == 7 for size in rec.turn_sizes), (seed, rec.turn_sizes)
        closed += len(rec.turn_sizes)
        if end.reason == END_OF_MANDATE:
            assert len(rec.cards) == 28
            assert not end.short  # §5 "Partida curta" is only a mandate that ran out of cards
    assert closed >= 600  # most matches run all 4 turns: the check is not vacuous


def test_CA_03_draft_late_and_impeachment_cards_are_never_drawn():
    deck = build([
        card("rascunho", "x1", status="rascunho"),
        card("ano3", "x2", ano=3),
        card("impeachment", "x3", tipo="impeachment"),
        *fillers(10),
    ])
    banned = {"rascunho", "ano3", "impeachment"}
    for seed in range(300):
        engine = engine_at(deck, year=2, seed=seed)
        engine.start_turn()
        drawn = {d.card_id for d in play_turn(engine)}
        assert not drawn & banned
        assert len(drawn) == 7
    year3 = engine_at(deck, year=3)
    assert year3.is_eligible(year3.index.card_index["ano3"])  # the exclusion is the year, only


def test_CA_04_actor_in_neutral_only_its_demand_can_come():
    functions = ["ataque", "pressao", "exigencia", "apoio", "favor"]
    deck = build([card(f"bq-{f}", f"bq{f}", tipo="ator", ator="banqueiros", funcao=f)
                  for f in functions] + fillers(3))
    seen = Counter()
    for seed in range(200):
        engine = engine_at(deck, moods={"banqueiros": NEUTRAL}, seed=seed)
        engine.start_turn()
        seen.update(d.card_id for d in play_turn(engine) if d.card_id.startswith("bq-"))
    assert set(seen) == {"bq-exigencia"}


def test_CA_05_attack_of_a_furious_actor_is_among_the_first_3_cards_of_next_turn():
    deck = build([*attack_cards(), *fillers(30)])
    for seed in range(50):
        engine = engine_at(deck, seed=seed)
        engine.start_turn()
        play_turn(engine, close=False)
        engine.satisfaction[engine.index.actor_index["sindicatos"]] = FURIOUS  # end of turn 1
        engine.draw()  # closes turn 1
        engine.start_turn()
        first3 = [d.card_id for d in play_turn(engine)][:3]
        assert "sindicatos-ataque" in first3


def test_CA_06_dignidade_closing_at_8_gives_a_first_card_raising_dignidade():
    deck = build([card(f"dig{i}", f"d{i}", up=["dignidade"]) for i in range(4)] + fillers(20))
    for seed in range(50):
        engine = engine_at(deck, year=2, meters={"dignidade": 8}, seed=seed)
        engine.start_turn()
        first = engine.draw()
        assert any(o["efeitos"].get("dignidade", 0) > 0 for o in first.card["opcoes"])
        assert first.reason == {"kind": "mandatory", "obligation": "emergency",
                                "target": "dignidade"}


def _ca07_engine(seed=0, **params):
    deck = build([
        card("dig", "m-dig", up=["dignidade"]),
        card("cx", "m-cx", up=["caixa"], down=()),
        card("sau", "m-sau", up=["saude"]),
        *attack_cards(),
        *fillers(20),
    ], **params)
    return engine_at(deck, year=2, meters={"dignidade": 8, "caixa": 20, "saude": 25},
                     moods={"latifundiarios": 5, "sindicatos": 15}, seed=seed)


def test_CA_07_cap_emergency_then_lowest_actor_then_other_actor_no_meter():
    engine = _ca07_engine()
    turn = engine.start_turn()
    listed = [(ob.kind, ob.target) for ob in turn.mandatory]
    assert listed == [("emergency", "dignidade"), ("actor", "latifundiarios"),
                      ("actor", "sindicatos")]
    shown = [d.reason for d in play_turn(engine)][:4]
    assert [r["kind"] for r in shown] == ["mandatory"] * 3 + ["random"]


@pytest.mark.parametrize("mood_next_turn, mandatory_next_turn", [(INSATISFIED, False),
                                                                  (FURIOUS, True)])
def test_CA_08_surplus_is_dropped_and_checked_again_next_turn(mood_next_turn,
                                                               mandatory_next_turn):
    # The CA-07 case with T = 2, so the second Furious actor (sindicatos) is the surplus.
    engine = _ca07_engine(teto_obrigatorias=2)
    turn = engine.start_turn()
    assert [o.target for o in turn.mandatory] == ["dignidade", "latifundiarios"]
    play_turn(engine, close=False)
    engine.satisfaction[engine.index.actor_index["sindicatos"]] = mood_next_turn
    engine.draw()  # the closing
    turn = engine.start_turn()
    assert (("actor", "sindicatos") in [(o.kind, o.target) for o in turn.mandatory]) is (
        mandatory_next_turn)


def test_CA_09_turn_without_mandatory_cards_has_7_different_modes(padrao):
    for seed in range(200):
        engine = Engine(padrao, seed)
        engine.meters = [max(v, 30) for v in engine.meters]  # no meter below 30: no obligation
        turn = engine.start_turn()
        assert turn.mandatory == []
        draws = play_turn(engine)
        assert len(draws) == 7
        assert len({d.card["modo"] for d in draws}) == 7
        assert not any(d.reason["mode_relaxed"] for d in draws)


def test_CA_10_mode_rule_relaxes_when_only_seen_modes_are_left():
    deck = build(fillers(3) + fillers(9, prefix="g", modes=3))  # 3 + 3 modes for 7 slots
    engine = engine_at(deck)
    engine.start_turn()
    draws = play_turn(engine)
    assert len(draws) == 7
    relaxed = [d.reason["mode_relaxed"] for d in draws]
    assert relaxed == [False] * 6 + [True]


def test_CA_11_short_deck_of_22_cards_ends_with_22_cards_without_hanging():
    deck = load_deck("curto")
    assert sum(c.playable for c in deck.cartas) == 22
    for seed in range(100):
        rec = Recorder()
        end = play_match(deck, seed, "protect", observer=rec)
        if end.reason == CATASTROPHE:
            continue
        assert end.reason == END_OF_MANDATE and end.year == 4  # the endings are checked (GDD 02)
        assert end.cards_played == 22 and end.short
        assert rec.turn_sizes == [7, 7, 7, 1]


def test_CA_12_equal_chance_for_40_eligible_cards_over_10000_draws():
    # 40 eligible cards, each of a new mode: one random slot, drawn 10,000 times.
    deck = build(fillers(40))
    engine = engine_at(deck, seed=12)
    engine.start_turn()
    counts = Counter()
    draws = 10_000
    for _ in range(draws):
        draw = engine.draw()
        assert draw.reason["candidates"] == 40
        counts[draw.card_id] += 1
        _undo_last_draw(engine)
    p = 1 / 40
    sd = math.sqrt(draws * p * (1 - p))  # binomial(10000, 1/40): sd = 15.6 draws
    low, high = draws * p - 3 * sd, draws * p + 3 * sd  # 203..297 draws = 2.03%..2.97%
    assert len(counts) == 40
    for ident, n in counts.items():
        assert low <= n <= high, (ident, n)
        assert 0.020 <= n / draws <= 0.030  # the GDD's own bounds


def _undo_last_draw(engine):
    """Put the drawn card back (white-box): the same slot is drawn again with the RNG moved on."""
    c = engine.played.pop()
    engine.is_played[c] = False
    engine.turn_cards.pop()
    engine.slot -= 1
    engine.current, engine.current_card, engine.phase = None, -1, "drawing"


def test_CA_13_meter_at_or_below_10_at_year_4_closing_gives_no_emergency_and_ends():
    deck = build([card(f"dig{i}", f"d{i}", up=["dignidade"]) for i in range(6)] + fillers(30))
    engine = engine_at(deck, year=4, meters={"dignidade": 40})
    engine.start_turn()
    play_turn(engine, close=False)
    engine.meters[engine.index.meter_index["dignidade"]] = 5
    assert engine.draw() is None  # the year-4 closing
    assert engine.phase == ENDED
    assert engine.ending.reason == END_OF_MANDATE
    assert engine.carried == [] and not any(engine.emergency_spent)
