"""The Godot 4 addon's runtime (issues 13 and 14) on the real Godot 4 engine.

Each test runs one scenario of tests/godot4/ through tests/godot4_harness.py: a throwaway
project with addons/sorteio linked and the Sorteio autoload, GDScript warnings as errors, any
unexpected engine error or warning a failure. The socket bridge runs this venv's Python
(SORTEIO_PYTHON); the scripted-bridge tests hide every Python from the game.
"""

import json
import re
import time

import pytest

from godot4_harness import run_script, shared_project, user_dir

pytestmark = pytest.mark.godot


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return shared_project(tmp_path_factory)


def process_gone(pid: int, wait: float = 5.0) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def left_in_user_dir(home, project):
    """Files the run left in user:// (Godot's own logs/ aside)."""
    folder = user_dir(home, project)
    if not folder.exists():
        return []
    return sorted(p.name for p in folder.iterdir() if p.name != "logs")


@pytest.mark.parametrize("seed", [3, 99])
def test_a_whole_autoplay_match_over_the_socket_bridge(project, tmp_path, seed):
    """GDD 06 §2-§5 as the game sees them: 7 cards a full turn, no repeat, mandatory first
    (checked by the Python suite), here through the node: signal order, typed cards with int
    numbers, state before each signal, the ending; the server child gone after exit and no file
    left in user:// (port file, error file, deck copies)."""
    home = tmp_path / "home"
    run = run_script(project, "test_autoplay.gd", f"--seed={seed}", home=home)
    run.passed(
        "the match ended",
        "signals in order with the node's state updated before each",
        "no card repeated",
        "every payload number is an int",
        "ending consistent",
    )
    assert run.lines("BRIDGE ") == ["socket"]
    match = re.search(r"MATCH seed=\d+ reason=(\w+) cards=(\d+)", run.log)
    assert match and match.group(1) in ("end_of_mandate", "catastrophe")
    pid = int(run.lines("SERVER_PID ")[0])
    assert pid > 0 and process_gone(pid), f"server child {pid} outlived the game"
    assert left_in_user_dir(home, project) == []


def test_the_node_runs_the_same_launcher_as_the_server():
    from pathlib import Path

    from sorteio.bridge.server import LAUNCHER

    root = Path(__file__).resolve().parents[1]
    gd = (root / "addons" / "sorteio" / "bridges" / "socket_bridge.gd").read_text("utf-8")
    block = re.search(r"const LAUNCHER: String = \((.*?)\n\)", gd, re.S)
    assert block, "socket_bridge.gd has no LAUNCHER"
    assert "".join(re.findall(r'"([^"]*)"', block.group(1))) == LAUNCHER


def _unused():  # keeps json imported for the tests below
    return json
