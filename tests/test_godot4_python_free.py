"""Nothing of a freed SorteioNode's calls, nor of threaded in-process requests, outlives them
(Godot 4, both bridges): run with Godot's ``--verbose``, which lists at exit every object and
resource still alive, and failed on ``resources still in use``, any ``Leaked instance`` and any
unexpected ``ERROR:``/``WARNING:`` line.

- A second SorteioNode (besides the autoload) starts a match, not awaited, and is freed one frame
  later with its request pending. Before the fix its calls were cleared with the node while its
  bridge still waited for frames: at exit ``ERROR: 2 resources still in use at exit``
  (python_bridge.gd or socket_bridge.gd, and sorteio_bridge.gd), the bridge and two
  GDScriptFunctionState objects leaked, on both bridges. Now the node's close wakes the
  waiting request at once (``SorteioBridge.FrameWaker``), and the node's calls end before it
  is gone.
- Several threaded in-process requests (``new_match``): each ended with ``gc.freeze()``, which
  kept the Python GDExtension's own ``PythonScriptLoader`` and ``PythonScriptSaver`` (in
  reference cycles) from ever being collected: "ObjectDB instances leaked at exit". Now the
  exit hook undoes the freeze (``sorteio.bridge.inprocess._at_exit``).
"""

import pytest

from godot4_harness import import_project, make_project, run_godot
from godot4_python_runtime import NOISE, install_extension, only_upstream_tracebacks

pytestmark = pytest.mark.godot

LEAKS = ("resources still in use", "Resource still in use", "Leaked instance",
         "instances leaked at exit")


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    """A project with the extension installed, and a deck slow enough (3,000 cards) that a
    new_match on it is still pending one frame later."""
    from sorteio.synthetic import synthetic_deck

    where = tmp_path_factory.mktemp("g4free")
    game = make_project(where / "project", name="g4free", import_now=False)
    install_extension(game)
    only_upstream_tracebacks(import_project(game, allowed=NOISE))
    deck = where / "deck3k.json"
    deck.write_text(synthetic_deck(cards=3000).model_dump_json(), encoding="utf-8")
    return game, deck


def run_verbose(project, tmp_path, *args: str):
    """python_bridge_free.gd under --verbose; fails on any error or warning line (none is
    allowed, not even the extension's leak warning) and on any leak listed at exit."""
    run = run_godot(project, ["--verbose", "-s", "res://tests/python_bridge_free.gd", "--", *args],
                    tmp_path / "h", log_name="python_bridge_free")
    only_upstream_tracebacks(run.log)
    leaks = [line for line in run.log.splitlines() if any(leak in line for leak in LEAKS)]
    assert not leaks, "alive at exit:\n" + "\n".join(leaks) + "\n" + run.tail()
    assert run.returncode == 0, run.tail()
    return run


@pytest.mark.parametrize("bridge", ["python", "socket"])
def test_a_node_freed_mid_request_leaves_nothing_alive(project, tmp_path, bridge):
    game, deck = project
    run = run_verbose(game, tmp_path, "--phase=free", f"--bridge={bridge}", f"--deck={deck}")
    run.passed("the node still exists one frame later",
               "the request is still pending when the node is freed", "the node is freed")
    if bridge == "socket":
        run.passed("the socket bridge comes up")


def test_threaded_requests_leave_nothing_alive(project, tmp_path):
    game, _deck = project
    run = run_verbose(game, tmp_path, "--phase=threaded", "--requests=4")
    run.passed("the bridge starts", "every threaded request is answered")
