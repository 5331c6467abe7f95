"""The designers' sentences (sorteio.wording): names with accents, not ids (issue 8), one text
for every consumer; each reason of GDD 06 §3.3, §3.4 and §5 has its words."""

import pytest

from sorteio.loader import load_deck
from sorteio.wording import (
    Names,
    ending_text,
    mandatory_text,
    meters_text,
    reason_text,
)

# These tests read the Portuguese sentences (pt-BR, the default; the English ones are checked
# in tests/test_i18n.py).
pytestmark = pytest.mark.usefixtures("pt_br")

NAMES = Names.of(load_deck("padrao"))
CARD = {"opcoes": [{"texto": "Mutirão", "efeitos": {"saude": 5}},
                   {"texto": "Nada", "efeitos": {"saude": -2}}]}


def test_mandatory_reasons_name_the_meter_or_actor():
    emergency = {"kind": "mandatory", "obligation": "emergency", "target": "dignidade"}
    assert reason_text(NAMES, emergency) == "obrigatória: emergência de Dignidade"
    attack = {"kind": "mandatory", "obligation": "actor", "target": "latifundiarios"}
    assert reason_text(NAMES, attack) == "obrigatória: ataque de Latifundiários"
    meter = {"kind": "mandatory", "obligation": "meter", "target": "saude"}
    assert reason_text(NAMES, meter, CARD) == ("obrigatória: medidor baixo: Saúde "
                                               "(a opção «Mutirão» sobe Saúde)")


def test_a_card_serving_two_obligations_says_both():
    """§5 "Mesma carta atende duas obrigações — conta uma vez" (when the engine reports it)."""
    reason = {"kind": "mandatory", "obligation": "emergency", "target": "saude",
              "merged": [{"kind": "meter", "target": "saude"}]}
    assert "também atende: medidor baixo: Saúde" in reason_text(NAMES, reason)
    row = {"kind": "emergency", "target": "saude", "card_id": "sau-01",
           "merged": [{"kind": "actor", "target": "banqueiros"}]}
    assert mandatory_text(NAMES, row) == ("emergência de Saúde -> sau-01 (também atende: ataque "
                                          "de Banqueiros; conta uma vez, §5)")


def test_random_reasons_count_the_candidates_and_agree_in_number():
    many = {"kind": "random", "candidates": 40, "mode_relaxed": False, "replaces": None}
    assert reason_text(NAMES, many) == "sorteada entre 40 elegíveis de modo novo"
    one = dict(many, candidates=1)
    assert reason_text(NAMES, one) == "a única elegível de modo novo"
    relaxed = dict(many, mode_relaxed=True)
    assert "nenhum modo novo: regra relaxada" in reason_text(NAMES, relaxed)
    lost = dict(many, replaces={"kind": "meter", "target": "educacao"})
    assert reason_text(NAMES, lost).endswith(
        "no lugar da obrigatória medidor baixo: Educação (sem carta elegível, §5)")


def test_an_obligation_without_a_card_says_where_its_slot_goes():
    row = {"kind": "meter", "target": "seguranca", "card_id": None, "merged": []}
    assert mandatory_text(NAMES, row) == ("medidor baixo: Segurança -> sem carta elegível: "
                                          "a vaga vai ao sorteio (§5)")


def test_endings_and_meters_use_names():
    ending = {"reason": "catastrophe", "year": 3, "cards_played": 17, "short": False,
              "zeroed": "saude"}
    assert ending_text(NAMES, ending) == "catástrofe: Saúde chegou a 0 no ano 3, 17 cartas jogadas"
    mandate = dict(ending, reason="end_of_mandate", zeroed=None, year=4, cards_played=1,
                   short=True)
    assert ending_text(NAMES, mandate) == ("fim do mandato no ano 4, 1 carta jogada (partida "
                                           "curta: faltaram cartas elegíveis)")
    assert meters_text(NAMES, {"saude": 28, "ambiente": 55}) == "Saúde 28 · Meio Ambiente 55"


def test_an_unknown_id_stands_for_itself():
    empty = Names({}, {}, {}, {})
    assert reason_text(empty, {"kind": "mandatory", "obligation": "meter",
                               "target": "x"}) == "obrigatória: medidor baixo: x"
    assert NAMES.mode("nenhum") == "nenhum"
