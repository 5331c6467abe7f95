"""Quitting a Godot 4 game while the in-process bridge's Python threads still work (issue 13).

A 30,000-card deck's ``new_match`` is over a second of Python work in a thread of the game's own
interpreter (the Python GDExtension), and a replaced match is freed in pieces in another. A game
that quits meanwhile (the player closes the window) finalizes the interpreter with the thread
still running: CPython ends a daemon thread there with ``pthread_exit``, and its unwinding
through pydantic-core's Rust frames aborted the game (SIGABRT: measured 4 times in 20 quits
0.7-1.2 s into the request, and 5 in 8 under gdb at 0.9 s, on the code before the fix). Now the
bridge's ``close()`` (the node calls it on ``_exit_tree`` and window close) and an ``atexit``
hook stop the threads at their next piece (``sorteio.pieces``) before the interpreter
finalizes (python/sorteio/bridge/inprocess.py).

Each game here quits at a different point of the work (fractions of the time the same request
took in a first game: decoding, validating the cards in pieces, building the engine) or right
after a replaced match began to be freed, with and without closing the bridge first; each must
exit with 0, no signal, no unexpected error line, no Python traceback. On the code before the
fix this test failed 4 runs of 4 (SIGABRT in 1, 2, 2 and 2 of the 7 mid-request games; the
mid-release games passed there too: the release runs no pydantic code).
"""

import pytest

from godot4_harness import import_project, make_project, run_script
from godot4_python_runtime import NOISE, install_extension, only_upstream_tracebacks

pytestmark = pytest.mark.godot

# When a game quits, as a fraction of the time the request took whole, and whether it closes
# the bridge first (as SorteioNode does; without, the exit hook alone stops the thread).
QUIT_AT = [(0.3, False), (0.5, False), (0.65, False), (0.8, False), (0.9, False),
           (0.5, True), (0.8, True)]


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """(project, big deck, seconds its new_match took in a first game)."""
    from sorteio.synthetic import synthetic_deck

    where = tmp_path_factory.mktemp("g4quit")
    project = make_project(where / "project", name="g4quit", import_now=False)
    install_extension(project)
    only_upstream_tracebacks(import_project(project, allowed=NOISE))
    deck = where / "big.json"
    deck.write_text(synthetic_deck(cards=30000).model_dump_json(), encoding="utf-8")
    run = run_script(project, "python_bridge_quit.gd", f"--deck={deck}", "--phase=measure",
                     home=where / "measure", allowed=NOISE)
    run.passed("the big deck's new_match succeeds")
    took = float(run.lines("TOOK ")[0])
    assert took > 0.5, f"the deck must be slow enough to quit during its work ({took:.2f} s)"
    return project, deck, took


def quit_cleanly(game, tmp_path, phase: str, after_ms: int, close: bool) -> None:
    project, deck, _took = game
    args = [f"--deck={deck}", f"--phase={phase}", f"--after-ms={after_ms}"]
    run = run_script(project, "python_bridge_quit.gd", *args, *(["--close"] if close else []),
                     home=tmp_path / "h", allowed=NOISE)  # fails on any other error line
    only_upstream_tracebacks(run.log)
    assert "Traceback" not in run.log, run.tail()
    assert run.returncode == 0, (
        f"exit {run.returncode} (a negative code is the signal that ended the game) quitting "
        f"{after_ms} ms into the {phase}:\n{run.tail()}")
    assert f"QUIT phase={phase} after_ms={after_ms}" in run.log, run.tail()
    run.passed("the bridge starts")


@pytest.mark.parametrize(("fraction", "close"), QUIT_AT,
                         ids=[f"{f}-{'closed' if c else 'open'}" for f, c in QUIT_AT])
def test_quitting_during_a_slow_new_match_exits_cleanly(game, tmp_path, fraction, close):
    quit_cleanly(game, tmp_path, "request", int(game[2] * fraction * 1000), close)


@pytest.mark.parametrize("after_ms", [0, 100])
def test_quitting_while_a_replaced_match_is_freed_exits_cleanly(game, tmp_path, after_ms):
    quit_cleanly(game, tmp_path, "release", after_ms, close=False)
