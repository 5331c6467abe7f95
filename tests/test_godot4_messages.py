"""Issue 13's QA findings on the Godot 4 node, each tried as a new user met it: messages say what
is wrong and what to do (choose_side with no match, load_state({}), a Dictionary that is not a
save, script_mismatch), and a `-s` script may play from `_initialize`, before any frame ran."""

import sys

import pytest

from godot4_harness import ROOT, run_script, shared_project

pytestmark = pytest.mark.godot


def test_misuse_messages_say_what_is_wrong_and_what_to_do(tmp_path_factory, tmp_path):
    project = shared_project(tmp_path_factory, autoload=False)
    run = run_script(project, "test_messages.gd", home=tmp_path / "home")
    run.passed(
        "choose_side with no match says start_match(), not advance()",
        "and not advance() first",
        "load_state({}) says the Dictionary is empty, not that it must be a dict",
        "and to pass what save_state() returned",
        "a Dictionary without format is not a save, said before Python says 'format None'",
        "a deck given to load_state is named a deck",
        "no Python None in the messages",
        "a scripted match starts",
        "choose_side between cards says advance() first",
        "script_mismatch says what to do",
    )


def test_a_script_plays_from_initialize_before_any_frame(tmp_path_factory, tmp_path):
    project = shared_project(tmp_path_factory)
    run = run_script(project, "initialize_caller.gd", home=tmp_path / "home")
    run.passed(
        "in _initialize the autoload was not in the tree yet",
        "start_match() from _initialize succeeds",
        "advance() then hands the first card",
    )


def test_a_save_loaded_into_an_updated_deck_says_what_changed(tmp_path_factory, tmp_path):
    """QA (issue 14): Python's load answers deck_update; the node hands it to the game
    (deck_updated, deck_update) and prints it as one warning."""
    deck = (ROOT / "python" / "sorteio" / "decks" / "padrao.json").read_text("utf-8")
    project = shared_project(tmp_path_factory, name="deck update", files={"decks/meu.json": deck})
    allowed = [(r"WARNING: sorteio: o save foi carregado num baralho atualizado: ",
                "provoked: the save of a deck whose card on screen was removed")]
    run = run_script(project, "test_deck_update.gd", home=tmp_path / "home", allowed=allowed)
    run.passed(
        "a save loads into a deck without its card on screen",
        "deck_updated hands the game what changed, deck_update too",
        "deck_updated comes right before state_loaded",
        "the card on screen was closed",
        "a save of this very deck gives no deck_updated",
    )
    assert run.log.count("WARNING: sorteio:") == 1, run.tail()


def test_a_bridge_that_cannot_start_is_said_once_without_a_traceback(tmp_path_factory, tmp_path):
    """QA: a python3 without sorteio printed Python's traceback on the console and bridge_down
    twice for one start_match; a missing interpreter was said to have "exited before it was
    ready"; the hint's bare pip install fails on Debian/Ubuntu (PEP 668): it names a venv."""
    project = shared_project(tmp_path_factory, autoload=False)
    bare = tmp_path / "python_without_sorteio.sh"
    bare.write_text(f'#!/bin/sh\nexec "{sys.executable}" -I -S "$@"\n', encoding="utf-8")
    bare.chmod(0o755)
    allowed = [(r"WARNING: sorteio: .*\(bridge_down\)", "provoked, one per start_match")]
    run = run_script(project, "test_bridge_down_once.gd", f"--bare={bare}",
                     home=tmp_path / "home", allowed=allowed)
    run.passed(
        "a Python without sorteio fails start_match",
        "...bridge_down once",
        "...saying why, with a venv to make",
        "a missing interpreter fails start_match",
        "...bridge_down once too",
        "...said not found, naming it",
        "a name not on the PATH fails too",
        "...saying PATH",
    )
    assert "Traceback" not in run.log and "Could not create child process" not in run.log, run.log
    assert run.log.count("WARNING: sorteio:") == 3, run.tail()
