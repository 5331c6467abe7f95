"""The Godot 4 harness itself (tests/godot4_harness.py + tests/godot4/lib/engine_test.gd):
checks are collected, a failed check fails the run, an engine WARNING is caught, a GDScript
warning is an error, and a project gets the addon linked and the autoload registered."""

import pytest

from godot4_harness import engine_version, project_godot, run_script, shared_project

pytestmark = pytest.mark.godot


@pytest.fixture(scope="module")
def bare(tmp_path_factory):
    return shared_project(tmp_path_factory, autoload=False, link_addon=False)


def test_checks_and_waits_are_collected(bare, tmp_path):
    run = run_script(bare, "harness_selftest.gd", "--mode=ok", home=tmp_path / "h")
    run.passed("wait_for hands the signal's arguments", "wait_for times out", "arguments are read")
    assert run.checks["a signal nobody emits"][0] is False
    assert engine_version().startswith("4.")


def test_a_failed_check_fails_the_run(bare, tmp_path):
    run = run_script(bare, "harness_selftest.gd", "--mode=fail", home=tmp_path / "h")
    assert run.returncode == 1 and "GODOT-TEST failed" in run.log
    assert run.checks["a failing check"] == (False, "on purpose")


def test_an_engine_warning_fails_unless_allowed(bare, tmp_path):
    with pytest.raises(AssertionError, match="a warning the harness must see"):
        run_script(bare, "harness_selftest.gd", "--mode=warn", home=tmp_path / "h")
    allowed = [(r"WARNING: a warning the harness must see", "provoked by the test")]
    run_script(bare, "harness_selftest.gd", "--mode=warn", home=tmp_path / "h2", allowed=allowed)


def test_a_gdscript_warning_is_an_error(bare, tmp_path):
    (tmp_path / "p").mkdir()
    script = bare / "untyped_probe.gd"
    script.write_text("extends SceneTree\n\n\nfunc _init() -> void:\n\tvar x = 1\n\tquit(x)\n")
    try:
        with pytest.raises(AssertionError, match="has no static type"):
            from godot4_harness import run_godot

            run_godot(bare, ["-s", "res://untyped_probe.gd"], tmp_path / "h")
    finally:
        script.unlink()


def test_project_godot_registers_the_autoload_and_includes_addons():
    text = project_godot("x")
    assert 'Sorteio="*res://addons/sorteio/sorteio_node.gd"' in text
    assert "gdscript/warnings/untyped_declaration=2" in text
    assert 'directory_rules={"res://addons": 1}' in text
