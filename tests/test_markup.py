"""Text a deck carries is printed as text, never as markup (issue 10 "Text a deck carries reaches
the terminal as markup"): every command on a deck whose ids, names, titles and texts are full of
rich markup (``[/]``, ``[bold]``), emoji codes and matplotlib mathtext (``$x$``)."""

import copy
import json

import pytest

from cli_run import sorteio
from sorteio.loader import BUILTIN_DECKS

MARK = "[/]"


def marked(text: str) -> str:
    return f"[bold]{text}[/] $x$ :smile:"


@pytest.fixture(scope="module")
def markup_deck(tmp_path_factory):
    """The default deck with markup in every id, name, title and text (ids stay consistent)."""
    data = json.loads(BUILTIN_DECKS["padrao"].read_text(encoding="utf-8"))
    meters = {m["id"]: marked(m["id"]) for m in data["medidores"]}
    actors = {a["id"]: marked(a["id"]) for a in data["atores"]}
    data["nome"] = marked(data["nome"])
    for group, ids in (("medidores", meters), ("atores", actors)):
        for item in data[group]:
            item["id"] = ids[item["id"]]
            item["nome"] = marked(item["nome"]) + " [red]"
    for level in data["niveis"]:
        level["nome"] = marked(level["nome"])
    for mode in data["modos"]:
        mode["id"] = marked(mode["id"])
        mode["nome"] = marked(mode["nome"])
    for card in data["cartas"]:
        card["id"] = marked(card["id"])
        card["titulo"] = marked(card["titulo"]) + " [/bold]"
        card["texto"] = marked(card.get("texto", ""))
        card["modo"] = marked(card["modo"])
        if card.get("ator"):
            card["ator"] = actors[card["ator"]]
        for option in card["opcoes"]:
            option["texto"] = marked(option["texto"])
            option["efeitos"] = {meters[k]: v for k, v in option.get("efeitos", {}).items()}
            option["efeitos_atores"] = {actors[k]: v
                                        for k, v in option.get("efeitos_atores", {}).items()}
    folder = tmp_path_factory.mktemp("markup")
    path = folder / "deck.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    lonely = copy.deepcopy(data)  # warnings quote a mode id and a card id
    lonely["cartas"][0]["modo"] = marked("sozinho")
    del lonely["modos"]
    (folder / "lonely.json").write_text(json.dumps(lonely, ensure_ascii=False), encoding="utf-8")
    broken = copy.deepcopy(data)  # errors quote the unknown meter and the card
    broken["cartas"][0]["opcoes"][0]["efeitos"] = {marked("nenhum"): 5}
    (folder / "broken.json").write_text(json.dumps(broken, ensure_ascii=False), encoding="utf-8")
    return folder


@pytest.fixture(autouse=True)
def wide(monkeypatch):
    """Tables as wide as they need: pytest's readline leaves COLUMNS=80 to child processes,
    which would cut long names with an ellipsis and hide what this file checks."""
    monkeypatch.setenv("COLUMNS", "400")


def clean(proc):
    text = proc.stdout + proc.stderr
    assert "MarkupError" not in text and "Traceback" not in text, text[-3000:]
    return text


def test_validate_prints_a_markup_deck_as_text(markup_deck):
    text = clean(sorteio("validate", str(markup_deck / "deck.json")))
    assert "ok —" in text
    text = clean(sorteio("validate", str(markup_deck / "lonely.json")))
    assert marked("sozinho") in text  # the warning quotes the mode id as it is


def test_a_markup_deck_error_is_printed_as_text(markup_deck):
    text = clean(sorteio("validate", str(markup_deck / "broken.json"), check_code=2))
    assert f"unknown meter '{marked('nenhum')}'" in text


def test_lint_prints_a_markup_deck_as_text(markup_deck):
    text = clean(sorteio("lint", str(markup_deck / "deck.json")))
    assert marked("Saúde") + " [red]" in text  # a meter's name in the coverage table
    assert marked("Desinformação") in text  # a mode's name


def test_play_and_turn_print_a_markup_deck_as_text(markup_deck, tmp_path):
    deck = str(markup_deck / "deck.json")
    text = clean(sorteio("play", "--deck", deck, "--seed", "3"))
    assert " [/bold]»" in text and marked("Saúde") + " [red]" in text
    state = tmp_path / "state.json"
    clean(sorteio("play", "--deck", deck, "--stop-after", "4", "--save", str(state)))
    text = clean(sorteio("turn", "--deck", deck, "--state", str(state)))
    assert MARK in text and "[bold]" in text


@pytest.mark.plots  # --out writes the HTML report
def test_simulate_prints_and_reports_a_markup_deck_as_text(markup_deck, tmp_path):
    deck = str(markup_deck / "deck.json")
    text = clean(sorteio("simulate", "--deck", deck, "--matches", "20", "--jobs", "1"))
    assert marked("Saúde") + " [red]" in text and marked("Desinformação") in text
    out = tmp_path / "out"
    text = clean(sorteio("simulate", "--deck", deck, "--matches", "12", "--jobs", "1",
                         "--param", "teto_obrigatorias=2,3", "--out", str(out)))
    assert "[bold]" in text
    page = (out / "report.html").read_text(encoding="utf-8")
    assert marked("Padrão") in page  # the deck's name, as text
    assert page.count("data:image/svg+xml;base64,") == 5  # every plot rendered, $x$ labels too
    text = clean(sorteio("simulate", "--deck", deck, "--matches", "10", "--jobs", "1",
                         "--per-card", "--out", str(tmp_path / "pc")))
    assert "[bold]" in text  # --per-card: the table's ids and names as text
    page = (tmp_path / "pc" / "report.html").read_text(encoding="utf-8")
    assert page.count("data:image/png;base64,") == 1  # the ranked chart, $x$ labels too
    assert marked("Desinformação") in page  # the mode by its display name


def test_every_cli_console_prints_text_not_markup():
    """The class, not the examples: no console of the CLI parses markup or emoji codes."""
    from sorteio import narration
    from sorteio.sim import commands

    for console in (narration.out, narration.err, commands.out, commands.err):
        assert console._markup is False and console._emoji is False
