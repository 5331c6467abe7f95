"""Godot 4 smoke checks (Debian sid's 4.x from scripts/engines.sh): the engine answers, and a
GDScript 2.0 SceneTree script runs headless in a fresh project with no engine error.
The foundation for the Godot 4 addon tests."""

import os
import re
import subprocess

import pytest

from engines import engine

pytestmark = pytest.mark.godot

ENGINE_ERRORS = re.compile(r"SCRIPT ERROR|ERROR:|Parse Error")


def run(args, home):
    """godot4 ARGS with user://, settings and caches under HOME (this run's only)."""
    env = dict(
        os.environ,
        LANG="en_US.UTF-8",
        HOME=str(home),
        XDG_DATA_HOME=str(home / "data"),
        XDG_CONFIG_HOME=str(home / "config"),
        XDG_CACHE_HOME=str(home / "cache"),
    )
    return subprocess.run(
        ["timeout", "-k", "5", "120", engine("godot4"), *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=150,
    )


def test_godot4_answers_its_version(tmp_path):
    result = run(["--headless", "--version"], tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    version = result.stdout.strip().splitlines()[-1]
    print("godot4", version)  # sid moves: the log says which 4.x ran
    assert re.match(r"4\.\d+(\.\d+)?\.", version), version


def test_godot4_runs_a_gdscript_headless(tmp_path):
    project = tmp_path / "project"
    project.mkdir()
    (project / "project.godot").write_text(
        'config_version=5\n\n[application]\n\nconfig/name="smoke"\n', encoding="utf-8"
    )
    (project / "smoke.gd").write_text(
        "extends SceneTree\n\n\nfunc _init() -> void:\n"
        '\tprint("SMOKE ok %d" % (6 * 7))\n\tquit(0)\n',
        encoding="utf-8",
    )
    result = run(["--headless", "--path", str(project), "-s", "res://smoke.gd"], tmp_path)
    log = result.stdout + result.stderr
    assert result.returncode == 0, log
    assert "SMOKE ok 42" in log, log
    errors = [line for line in log.splitlines() if ENGINE_ERRORS.search(line)]
    assert not errors, log
