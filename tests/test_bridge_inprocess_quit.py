"""The in-process bridge's threads stop when it closes or the interpreter exits (issue 13).

A game quitting while a slow request's thread (``sorteio-request-*``) or a replaced match's
freeing (``sorteio-release``) still runs used to leave the thread running into the
interpreter's finalization, where CPython ends it with ``pthread_exit``: on the Godot 4 Python
GDExtension that aborted the game when the thread was inside pydantic-core (the engine-level
test is tests/test_godot4_python_quit.py). Here, in milliseconds: ``close()`` stops the work at
its next piece and calls back no one; the freeing stops too and leaves the rest; the ``atexit``
hook stops and waits for the threads before the interpreter finalizes (shown in a child Python,
whose own exit hook, run after sorteio's, looks for sorteio threads still alive).
"""

import gc
import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from sorteio import loader
from sorteio.bridge import inprocess
from sorteio.bridge.inprocess import InProcessBridge, release_in_pieces, stop_threads
from sorteio.pieces import StoppableThread, Stopped, between_pieces, stop_point
from sorteio.synthetic import synthetic_deck

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def unfrozen():
    """A slow job ends with gc.freeze(): later tests get the collector as it was."""
    yield
    gc.unfreeze()


def sorteio_threads():
    return [t for t in threading.enumerate() if t.name.startswith("sorteio-")]


def test_between_pieces_and_stop_point_stop_only_a_thread_told_to_stop():
    between_pieces()  # this thread is no StoppableThread: nothing happens
    stop_point()
    seen = []

    def work():
        try:
            between_pieces()
            seen.append("first piece")
            stop_point()
        except Stopped:
            seen.append("stopped")

    told = StoppableThread(work, (), "sorteio-test")
    told.sorteio_stop.set()
    told.start()
    told.join(10)
    untold = StoppableThread(work, (), "sorteio-test")
    untold.start()
    untold.join(10)
    assert seen == ["stopped", "first piece"]


@pytest.fixture()
def paused_in_pieces(monkeypatch, tmp_path):
    """A deck of 1,000 cards (4 pieces) whose load pauses at its first piece until the test
    lets it go: returns (deck path, reached Event, go Event, pieces seen)."""
    deck = tmp_path / "deck.json"
    deck.write_text(synthetic_deck(cards=1000).model_dump_json(), encoding="utf-8")
    reached, go, pieces = threading.Event(), threading.Event(), []

    def paused():
        pieces.append(threading.current_thread().name)
        reached.set()
        assert go.wait(10), "the test never let the piece go"
        between_pieces()

    monkeypatch.setattr(loader, "between_pieces", paused)
    return deck, reached, go, pieces


def test_close_stops_a_slow_new_match_at_its_next_piece_and_calls_back_no_one(paused_in_pieces):
    deck, reached, go, pieces = paused_in_pieces
    bridge = InProcessBridge()
    request = {"id": 1, "method": "new_match", "params": {"deck": str(deck), "seed": 1}}
    assert bridge.submit(1, json.dumps(request)) == ""
    called = []
    bridge.notify(1, lambda: called.append(1))
    assert reached.wait(10)
    [thread] = [t for t in sorteio_threads() if t.name == "sorteio-request-1"]
    bridge.close()
    go.set()
    thread.join(10)
    assert not thread.is_alive()
    assert pieces == ["sorteio-request-1"]  # stopped at the first piece, of four
    assert isinstance(bridge._running[2][0].error, Stopped)
    assert called == []  # the waiter (a Godot Semaphore) may be gone with the engine
    for answer in (bridge.take(1), bridge.submit(2, '{"id": 2, "method": "ping"}')):
        assert json.loads(answer)["error"]["code"] == "internal_error"


def test_a_stopped_release_leaves_the_rest_to_the_interpreter(monkeypatch):
    monkeypatch.setattr(inprocess, "BIG", 10)
    big = list(range(5000))
    box = [{"cards": big}]
    thread = StoppableThread(release_in_pieces, (box, None), "sorteio-release")
    thread.sorteio_stop.set()
    thread.start()
    thread.join(10)
    assert box == []
    assert len(big) == 5000 - inprocess.PIECE  # one piece freed, then it stopped
    assert inprocess._ABANDONED and inprocess._ABANDONED[-1][0]["cards"] is big
    inprocess._ABANDONED.clear()


def test_the_exit_hook_stops_the_threads_and_waits_for_them(paused_in_pieces):
    deck, reached, go, _pieces = paused_in_pieces
    bridge = InProcessBridge()
    request = {"id": 1, "method": "new_match", "params": {"deck": str(deck), "seed": 1}}
    assert bridge.submit(1, json.dumps(request)) == ""
    assert reached.wait(10)
    threading.Timer(0.2, go.set).start()  # the piece ends while stop_threads waits
    assert stop_threads(wait=10) == []
    assert not [t for t in sorteio_threads() if t.name == "sorteio-request-1"]


FROZEN_CYCLE = """
import atexit, gc, json, time, weakref
alive = []
# Registered before sorteio's hook, so run after it (atexit runs last-in first-out).
atexit.register(lambda: (gc.collect(), print("FROZEN", gc.get_freeze_count(),
                                             "CYCLE ALIVE", alive[0]() is not None)))
from sorteio.bridge.inprocess import InProcessBridge
bridge = InProcessBridge()
class Node:  # an object in a reference cycle, as the Python GDExtension's own objects are
    pass
gc.collect()
gc.disable()  # no collection before the request's freeze: the cycle is alive then
node = Node()
node.me = node
alive.append(weakref.ref(node))
del node
request = {"id": 1, "method": "new_match", "params": {"seed": 1}}
if bridge.submit(1, json.dumps(request)) == "":
    while bridge.take(1) == "":
        time.sleep(0.01)
print("FROZEN AFTER THE REQUEST", gc.get_freeze_count() > 0)
"""


def test_the_exit_hook_hands_what_a_threaded_request_froze_back_to_the_collector():
    # gc.freeze() at the end of a slow job froze every object alive then, those in reference
    # cycles included, and none was ever freed: on Godot 4 the Python GDExtension's
    # PythonScriptLoader and PythonScriptSaver stayed alive past Godot's leak check at exit.
    child = subprocess.run([sys.executable, "-c", FROZEN_CYCLE], capture_output=True,
                           text=True, timeout=120, cwd=ROOT)
    assert child.returncode == 0, child.stderr
    assert "FROZEN AFTER THE REQUEST True" in child.stdout, child.stdout
    assert "FROZEN 0 CYCLE ALIVE False" in child.stdout, child.stdout


CHILD = """
import atexit, json, sys, threading, time
# Registered before sorteio's hook, so run after it (atexit runs last-in first-out).
atexit.register(lambda: print("ALIVE AT EXIT", [t.name for t in threading.enumerate()
                                               if t.name.startswith("sorteio-")]))
from sorteio.bridge.inprocess import InProcessBridge
bridge = InProcessBridge()
request = {"id": 1, "method": "new_match", "params": {"deck": sys.argv[1], "seed": 1}}
assert bridge.submit(1, json.dumps(request)) == ""
time.sleep(0.3)
print("RUNNING", [t.name for t in threading.enumerate() if t.name.startswith("sorteio-")])
"""


def test_a_program_leaving_mid_request_has_no_sorteio_thread_left_when_it_finalizes(tmp_path):
    deck = tmp_path / "big.json"
    deck.write_text(synthetic_deck(cards=20000).model_dump_json(), encoding="utf-8")
    child = subprocess.run([sys.executable, "-c", CHILD, str(deck)], capture_output=True,
                           text=True, timeout=120, cwd=ROOT)
    assert child.returncode == 0, child.stderr
    assert "RUNNING ['sorteio-request-1']" in child.stdout, child.stdout  # it quit mid-request
    assert "ALIVE AT EXIT []" in child.stdout, child.stdout


def test_the_godot3_entry_answers_in_its_own_thread_and_starts_none(tmp_path):
    """Godot 3 (pythonscript) calls ``request``, answered whole in the calling thread (the
    game's main thread): no thread of sorteio's is ever left for a quit to find, so the Godot 3
    addon needs no stopping (a quit waits for the request it was called during)."""
    deck = tmp_path / "deck.json"
    deck.write_text(synthetic_deck(cards=1500).model_dump_json(), encoding="utf-8")
    bridge = InProcessBridge()
    before = set(threading.enumerate())
    for seed in (1, 2):  # the second replaces the first match (freed in place, not aside)
        request = {"id": seed, "method": "new_match", "params": {"deck": str(deck), "seed": seed}}
        assert json.loads(bridge.request(json.dumps(request)))["ok"] is True
        assert set(threading.enumerate()) == before
