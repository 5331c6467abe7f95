"""The deck coverage report (``sorteio lint``): static answers the draw of GDD 06 depends on."""

import json

import pytest

from cli_run import sorteio
from sorteio.deck import Deck
from sorteio.lint import lint_deck
from sorteio.loader import load_deck
from sorteio.sim.sweep import run_sweep
from sorteio.synthetic import LEVELS


def test_default_deck_has_full_coverage():
    report = lint_deck(load_deck("padrao"))
    assert report["problems"] == []
    assert [y["status"] for y in report["years"]] == ["ok"] * 4
    assert [y["need"] for y in report["years"]] == [7, 14, 21, 28]  # N per turn, cumulative
    assert all(m["status"] == "ok" for m in report["meters"])
    assert all(a["functions"]["ataque"] == 1 and not a["missing"] for a in report["actors"])
    reasons = {n["card"]: n["reason"] for n in report["never_drawn"]}
    assert all("draft" in r or "impeachment" in r for r in reasons.values())


def test_short_deck_reports_its_known_gaps():
    """curto: 22 playable cards for 28 slots (§5, D-102, CA-11) and no attack cards."""
    report = lint_deck(load_deck("curto"))
    assert report["playable"] == 22
    assert report["years"][-1]["status"] == "short"
    text = "\n".join(report["problems"])
    assert "22 playable cards for 28 slots" in text
    assert "no playable attack card" in text
    drafts = {d["card"]: d["would_cover"] for d in report["drafts_blocking"]}
    assert drafts and all("year 4 slots" in v for v in drafts.values())


def _tiny_deck(actor_moods: bool) -> Deck:
    """One actor, two meters; 'ambiente' gets no linked card. Without ``actor_moods`` no option
    moves the actor, so it stays Neutro (50) and only its 'exigencia' card can ever be drawn."""
    cards = []
    for i in range(10):
        effects = {"caixa": 5, "dignidade": -3}
        moods = {"a0": -30} if actor_moods and i % 2 else {}
        cards.append({"id": f"c{i}", "titulo": "t", "modo": f"m{i % 8}",
                      "pre_requisitos": {"ano_minimo": 1 + i % 2},
                      "opcoes": [{"texto": "o", "efeitos": effects, "efeitos_atores": moods}]})
    for level in LEVELS:
        cards.append({"id": f"a0-{level['funcao']}", "titulo": "t", "modo": "m0", "tipo": "ator",
                      "ator": "a0", "funcao": level["funcao"],
                      "opcoes": [{"texto": "o", "efeitos": {"dignidade": 2}}]})
    cards.append({"id": "draft-amb", "titulo": "t", "modo": "m1",
                  "aprendizado": {"status": "rascunho"},
                  "opcoes": [{"texto": "o", "efeitos": {"ambiente": 4}}]})
    return Deck.model_validate({
        "medidores": [{"id": "caixa", "nome": "c"}, {"id": "dignidade", "nome": "d"},
                      {"id": "ambiente", "nome": "a"}],
        "niveis": LEVELS, "atores": [{"id": "a0", "nome": "a"}], "cartas": cards,
    })


def test_unreachable_levels_unserved_meters_and_blocking_drafts():
    deck = _tiny_deck(actor_moods=False)
    report = lint_deck(deck)
    never = {n["card"]: n["reason"] for n in report["never_drawn"]}
    for fn in ("ataque", "pressao", "apoio", "favor"):
        assert "never reaches a level" in never[f"a0-{fn}"]
    assert "a0-exigencia" not in never
    meters = {m["meter"]: m for m in report["meters"]}
    assert meters["ambiente"]["status"] == "none" and meters["caixa"]["status"] == "ok"
    drafts = {d["card"]: d["would_cover"] for d in report["drafts_blocking"]}
    assert "meter a" in drafts["draft-amb"]  # the meter's display name (nome "a")
    assert report["actors"][0]["unreachable_levels"] == ["furioso", "insatisfeito", "satisfeito",
                                                         "aliado"]
    # What lint says can never be drawn, the simulator never draws.
    sim = run_sweep(deck, {}, matches=200, jobs=1).scenarios[0]
    assert {c for c in never if c.startswith("a0-")} <= set(sim.never_drawn())


def test_an_actor_that_can_be_angered_reaches_the_levels_below():
    report = lint_deck(_tiny_deck(actor_moods=True))
    assert report["actors"][0]["unreachable_levels"] == ["satisfeito", "aliado"]
    never = {n["card"] for n in report["never_drawn"]}
    assert "a0-ataque" not in never and "a0-favor" in never


@pytest.mark.parametrize("deck", ["padrao", "curto"])
def test_lint_command_on_shipped_decks(deck, pt_br):
    text = sorteio("lint", deck).stdout
    assert "Cartas ligadas por medidor" in text and "Cartas por modo" in text
    data = json.loads(sorteio("lint", deck, "--json").stdout)
    assert data["file"].endswith(f"{deck}.json")
    assert {"years", "modes", "meters", "actors", "never_drawn", "drafts_blocking",
            "problems"} <= set(data)


def test_lint_a_broken_deck_exits_2(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{}", encoding="utf-8")
    sorteio("lint", str(path), check_code=2)


def test_strict_lint_fails_a_deck_with_coverage_problems():
    sorteio("lint", "padrao", "--strict")
    proc = sorteio("lint", "curto", "--strict", check_code=1)
    assert "would help cover a gap" in proc.stdout or "ajudariam" in proc.stdout


def test_lint_shows_display_names_and_its_json_carries_them(monkeypatch):
    """Issue 8: the coverage report names meters, modes and actors as the deck does."""
    monkeypatch.setenv("COLUMNS", "300")  # pytest leaves COLUMNS=80 to child processes
    text = sorteio("lint", "padrao").stdout
    for name in ("Saúde", "Meio Ambiente", "Desinformação", "Movimentos Sociais"):
        assert name in text
    assert "desinformacao" not in text and "movimentos_sociais" not in text
    data = json.loads(sorteio("lint", "padrao", "--json").stdout)
    assert {"mode": "saude", "nome": "Saúde"}.items() <= next(
        m for m in data["modes"] if m["mode"] == "saude").items()
    assert next(m for m in data["meters"] if m["meter"] == "educacao")["nome"] == "Educação"
    assert next(a for a in data["actors"]
                if a["actor"] == "latifundiarios")["nome"] == "Latifundiários"


@pytest.mark.parametrize("deck", ["padrao", "curto"])
def test_lint_tables_fit_80_columns_without_cutting_a_name(monkeypatch, deck):
    monkeypatch.setenv("COLUMNS", "80")
    text = sorteio("lint", deck).stdout
    rows = [line for line in text.splitlines() if line[:1] in "│┃┏┡└"]
    assert rows and max(len(line) for line in rows) <= 80
    assert "…" not in text  # "Governab…": a name cut by the table
    assert "Governabilidade" in text and "Latifundiários" in text
