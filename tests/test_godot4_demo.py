"""The Godot 4 demo (demo_project/) plays whole matches headless, on the real engine.

The demo is copied to a throwaway folder (its addon linked to this repository's), its own
project.godot kept with the tests' warning levels added (every GDScript warning is an error), and
run with --autoplay: it starts a match, picks sides at random, moves on with Sorteio.advance(),
prints how the match ended and quits. Any SCRIPT ERROR / ERROR: / WARNING: fails the run
(tests/godot4_harness.py).
"""

import json
import shutil

import pytest

from godot4_harness import ROOT, import_project, run_godot, user_dir, warning_levels

pytestmark = pytest.mark.godot

DEMO = ROOT / "demo_project"


def demo_copy(where):
    """demo_project copied to `where` (addons/sorteio linked to the repo's addon), with the
    tests' warning levels added to its own project.godot, imported once."""
    shutil.copytree(DEMO, where, symlinks=True,
                    ignore=shutil.ignore_patterns("addons", ".godot", "export_presets.cfg"))
    (where / "addons").mkdir()
    (where / "addons" / "sorteio").symlink_to(ROOT / "addons" / "sorteio")
    (where / "tests").symlink_to(ROOT / "tests" / "godot4")
    debug = ["", "[debug]", "", "gdscript/warnings/exclude_addons=false",
             'gdscript/warnings/directory_rules={"res://addons": 1}']
    debug += [f"gdscript/warnings/{name}={level}" for name, level in warning_levels().items()]
    text = (where / "project.godot").read_text("utf-8")
    (where / "project.godot").write_text(text + "\n".join(debug) + "\n", "utf-8")
    import_project(where)
    return where


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    return demo_copy(tmp_path_factory.mktemp("demo4") / "demo")


def play(demo, home, *args):
    run = run_godot(demo, ["--", "--autoplay", "--delay=0", "--quit-at-end", *args], home=home)
    assert run.returncode == 0, run.tail()
    return run


def test_demo_plays_a_whole_match_by_itself(demo, tmp_path):
    run = play(demo, tmp_path, "--seed=7")
    endings = run.lines("sorteio demo: semente 7:")
    assert len(endings) == 1, run.tail()
    assert endings[0].endswith("."), endings


def test_demo_saves_mid_match_loads_it_back_and_ends_as_without_the_save(demo, tmp_path):
    """§ Determinism: saving after 10 choices (year 2, mid-turn) and loading it back continues
    exactly: the match ends as the same seed's match played straight through."""
    straight = play(demo, tmp_path / "a", "--seed=11").lines("sorteio demo: semente 11:")
    saved = play(demo, tmp_path / "b", "--seed=11", "--save-after=10")
    assert saved.lines("sorteio demo: semente 11:") == straight
    save = json.loads((user_dir(tmp_path / "b", demo) / "demo_save.json").read_text("utf-8"))
    assert save["engine"]["year"] == 2, save["engine"].keys()


def test_demo_buttons_stay_in_place_and_the_end_says_how_the_mandate_went(demo, tmp_path):
    """Issue 15: the left and right option buttons sit at the same place on every card of a
    whole match; a choice shows what it moved; the end screen says how it went."""
    run = run_godot(demo, ["-s", "res://tests/demo_layout.gd", "--", "--seed=33"], home=tmp_path)
    run.passed("the option buttons never move", "the choice and its effects are shown",
               "the end screen says how the mandate went", "a match played card by card")
