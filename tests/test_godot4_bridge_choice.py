"""How the node picks its bridge in "auto" mode (issue 13): the in-process bridge is a file
that drops into the addon (bridges/python_bridge.gd, the Python GDExtension's side); when it is
there and its static available() says yes, auto uses it, else the socket bridge. A stand-in
python_bridge.gd (no GDExtension here) shows the seam; the real one is tested with its runtime."""

import shutil

import pytest

from godot4_harness import ADDON, import_project, make_project, run_script

pytestmark = pytest.mark.godot

STAND_IN = """extends SorteioBridge
## A stand-in for the in-process bridge: available() unless res://no_python exists.


static func available() -> bool:
	return not FileAccess.file_exists("res://no_python")


func kind() -> String:
	return "python"


func start(_owner: Node) -> bool:
	return true


func is_ready() -> bool:
	return true


func request(_method: String, _params: Dictionary) -> Dictionary:
	return SorteioBridge.error_reply("internal_error", "stand-in")
"""


def project_with_addon_copy(where, python_bridge, files=None):
    """A project with a copy of the addon (not a link) whose bridges/python_bridge.gd is
    `python_bridge` (None: no such file, whatever the repository's addon holds)."""
    project = make_project(where, link_addon=False, import_now=False, files=files)
    shutil.copytree(ADDON, project / "addons" / "sorteio",
                    ignore=shutil.ignore_patterns("*.uid", "*.import", "python_bridge.gd*",
                                                  "python"))
    if python_bridge is not None:
        (project / "addons" / "sorteio" / "bridges" / "python_bridge.gd").write_text(
            python_bridge, "utf-8")
    import_project(project)
    return project


@pytest.mark.parametrize("available, kind", [(True, "python"), (False, "socket")])
def test_auto_uses_the_in_process_bridge_when_it_is_there_and_available(tmp_path, available, kind):
    files = {} if available else {"no_python": "x"}
    project = project_with_addon_copy(tmp_path / "game", STAND_IN, files)
    run = run_script(project, "print_bridge.gd", home=tmp_path / "home")
    run.passed("the bridge came up")
    assert run.lines("BRIDGE ") == [kind]


def test_auto_uses_the_socket_bridge_without_the_file(tmp_path):
    project = project_with_addon_copy(tmp_path / "game", None)
    run = run_script(project, "print_bridge.gd", home=tmp_path / "home")
    run.passed("the bridge came up")
    assert run.lines("BRIDGE ") == ["socket"]
