"""Issue 13's QA findings on the Godot 4 node, each tried as a new user met it: messages say what
is wrong and what to do (choose_side with no match, load_state({}), a Dictionary that is not a
save, script_mismatch), and a `-s` script may play from `_initialize`, before any frame ran."""

import pytest

from godot4_harness import run_script, shared_project

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
