"""How the CLI tells a match (issue 8 "Names", issue 10 "What a new user met"): names with
accents instead of ids, the same sentence as the bridges' ``reason.texto``, lines that wrap at
word boundaries in an 80-column terminal, and a heading for the preview of a mid-turn save."""

import io
import json

import pytest
from rich.console import Console

from cli_run import sorteio
from sorteio.bridge.handler import RequestHandler
from sorteio.loader import load_deck
from sorteio.match import play_match
from sorteio.narration import Printer
from sorteio.wording import Names, reason_text

# These tests read the Portuguese narration (pt-BR, the default; the English one has its
# own tests in tests/test_i18n.py).
pytestmark = pytest.mark.usefixtures("pt_br")


def narrate(seed: int, width: int, terminal: bool) -> str:
    deck = load_deck("padrao")
    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=terminal, color_system=None,
                      markup=False, highlight=False)
    play_match(deck, seed, "random", observer=Printer(False, Names.of(deck), console))
    return buffer.getvalue()


def test_play_shows_names_with_accents_not_ids():
    text = sorteio("play", "--seed", "10091").stdout
    assert "medidor baixo: Saúde" in text
    assert "Saúde · comum" in text or "Saúde" in text
    assert "Desinformação · comum" in text  # a mode's display name (modos)
    assert "desinformacao · comum" not in text and "medidor baixo: saude" not in text
    assert "saude=" not in text and "Saúde " in text  # meters: "Saúde 36", not "saude=36"


def test_the_cli_reason_is_the_bridge_reason_texto():
    """One sentence for every consumer: the CLI line quotes what card_drawn's reason.texto says."""
    deck = load_deck("padrao")
    names = Names.of(deck)
    text = sorteio("play", "--seed", "7").stdout
    handler = RequestHandler()
    handler.handle({"method": "new_match", "params": {"seed": 7}})
    handler.handle({"method": "start_turn"})
    draw = handler.handle({"method": "draw"})["result"]["draw"]
    assert draw["reason"]["texto"] == reason_text(names, draw["reason"], draw["card"])
    assert draw["reason"]["texto"] in text


def test_play_wraps_at_word_boundaries_in_an_80_column_terminal():
    wide = narrate(10091, 400, terminal=False)
    words = set(wide.split())
    narrow = narrate(10091, 80, terminal=True)
    assert max(len(line) for line in narrow.splitlines()) <= 80
    broken = [t for t in narrow.split() if t not in words and set(t) != {"─"}]
    assert not broken, f"words cut at the line end: {broken[:10]}"
    assert len(narrow.splitlines()) > len(wide.splitlines())  # it did wrap


def test_a_file_keeps_each_line_whole():
    text = narrate(10091, 80, terminal=False)
    assert any(len(line) > 80 for line in text.splitlines())


def test_turn_on_a_mid_turn_save_starts_with_a_heading(tmp_path):
    state = tmp_path / "state.json"
    sorteio("play", "--seed", "4", "--stop-after", "4", "--save", str(state))
    first = sorteio("turn", "--state", str(state)).stdout.splitlines()[0]
    assert "Ano 1, a partir da vaga 5 de 7 (partida salva no meio do turno)" in first


def test_turn_on_a_save_with_a_card_on_screen_says_so(tmp_path):
    handler = RequestHandler()
    handler.handle({"method": "new_match", "params": {"seed": 4}})
    handler.handle({"method": "start_turn"})
    handler.handle({"method": "draw"})
    saved = handler.handle({"method": "save"})["result"]["state"]
    state = tmp_path / "godot_save.json"
    state.write_text(json.dumps(saved), encoding="utf-8")
    first = sorteio("turn", "--state", str(state)).stdout.splitlines()[0]
    assert "Ano 1, a carta 1 de 7, na tela (partida salva no meio do turno)" in first


def test_turn_between_turns_has_the_year_heading_only(tmp_path):
    handler = RequestHandler()
    handler.handle({"method": "new_match", "params": {"seed": 4}})
    handler.handle({"method": "start_turn"})
    while (draw := handler.handle({"method": "draw"})["result"]["draw"]) is not None:
        handler.handle({"method": "choose", "params": {"option": draw["option_order"][0]}})
    state = tmp_path / "between.json"
    state.write_text(json.dumps(handler.handle({"method": "save"})["result"]["state"]),
                     encoding="utf-8")
    text = sorteio("turn", "--state", str(state)).stdout
    assert text.splitlines()[0].startswith("── Ano 2 ")
    assert "meio do turno" not in text


def test_play_json_carries_each_reason_texto():
    data = json.loads(sorteio("play", "--seed", "10091", "--json").stdout)
    cards = [e for e in data["events"] if e["event"] == "card_played"]
    assert cards and all(e["draw"]["reason"]["texto"] for e in cards)
    assert any("medidor baixo: Saúde" in e["draw"]["reason"]["texto"] for e in cards)
    turns = [e for e in data["events"] if e["event"] == "turn_started"]
    assert all("texto" in m for t in turns for m in t["mandatory"])
    assert data["ending"]["texto"].startswith(("fim do mandato", "catástrofe"))


@pytest.mark.parametrize("terminal", [True, False])
def test_say_lines_prints_the_bytes_say_prints_line_by_line(terminal):
    """Issue 16: ``sorteio validate`` prints a big deck's warnings in batches (one rich print per
    2,000 lines, not per line); wrapped in a terminal or whole in a file, the output is the
    same as one ``say`` per line, batch edges included."""
    from sorteio.narration import say, say_lines

    lines = [(("warning", "yellow"), ": ", "x" * i + " palavra" * (i % 13))
             for i in range(0, 400, 7)]

    def console():
        return Console(file=io.StringIO(), force_terminal=terminal, width=60, highlight=False,
                       markup=False, emoji=False)

    one, batched = console(), console()
    for parts in lines:
        say(one, *parts)
    say_lines(batched, lines, batch=5)
    assert batched.file.getvalue() == one.file.getvalue()
    assert one.file.getvalue().count("warning") == len(lines)
