"""Whole numbers in the Godot 4 addon's replies (issue 13): Godot's JSON reads every number as a
float; the protocol's whole numbers (years, meters, counters, a save's RNG state) come back as
ints, converted by one function, SorteioBridge.whole_numbers_as_ints, once per reply (it was done
twice per in-process reply: SorteioBridge.parse_reply, then SorteioNode._ints)."""

import re

import pytest

from godot4_harness import ADDON, run_script, shared_project


def gdscript(path: str) -> str:
    return (ADDON / path).read_text(encoding="utf-8")


def test_one_function_converts_whole_numbers():
    # The float test (number == floorf(number)) lives in that one function only.
    holders = sorted(str(p.relative_to(ADDON)) for p in ADDON.rglob("*.gd")
                     if "floorf(" in p.read_text(encoding="utf-8"))
    assert holders == ["bridges/sorteio_bridge.gd"], holders


def test_each_reply_is_converted_once_by_its_bridge():
    node = gdscript("sorteio_node.gd")
    # The node takes replies as the bridge returns them; it converts only a save given to
    # load_state (read back from JSON by the game), never a reply.
    calls = re.findall(r"whole_numbers_as_ints\((.*)", node)
    assert len(calls) == 1 and "state" in node[node.index("whole_numbers_as_ints("):][:80], calls
    assert "_ints(await" not in node
    for bridge in ("bridges/socket_bridge.gd", "bridges/scripted_bridge.gd"):
        assert "whole_numbers_as_ints(" in gdscript(bridge), bridge
    # The in-process bridge parses with parse_reply, which converts.
    assert "return parse_reply(text)" in gdscript("bridges/python_bridge.gd")


@pytest.mark.godot
def test_whole_numbers_become_ints_in_godot(tmp_path_factory, tmp_path):
    project = shared_project(tmp_path_factory, autoload=False)
    run = run_script(project, "test_numbers.gd", home=tmp_path / "home")
    run.passed(
        "containers are converted in place", "2.0 -> 2", "2.5 stays a float",
        "Arrays inside are walked", "Dictionaries inside Arrays are walked", "text is kept",
        "2^53 is exact, an int", "past 2^53 stays a float", "negative whole numbers too",
        "a bare float is returned as an int", "parse_reply gives ints",
        "parse_reply refuses a reply that is not a JSON object",
        "the scripted bridge's replies from a JSON recording carry ints",
        "script_mismatch shows the recording's 1, not 1.0", "add_reply takes whole floats as ints",
    )
