"""The godot-python side: ``sorteio.bridge.inprocess`` and the addon's pythonscript entry file.

The entry file imports ``godot``, which exists only inside pythonscript; here a stand-in module
with the three names it uses lets us load the very file Godot loads and call it as Godot would.
The real pythonscript runs it in the engine tests (tests/test_godot_engine.py, bridge "python");
this stand-in stays for what those cannot show: the entry on every Python the core supports
(the suite's 3.11 and test-oldest's 3.8), compared answer by answer with the handler, and inputs
GDScript cannot send (500,000 nested brackets, a 5,000-digit id, ``None``), in milliseconds.
"""

import gc
import importlib.util
import json
import sys
import types
from pathlib import Path

import pytest

from bridge_fakes import wait_reply
from sorteio.bridge.handler import RequestHandler
from sorteio.bridge.inprocess import InProcessBridge

ENTRY = (Path(__file__).resolve().parents[1]
         / "godot3/addons/sorteio/python/sorteio_python_bridge.py")


@pytest.fixture(autouse=True)
def unfrozen():
    """A threaded bridge's slow job ends with gc.freeze(): later tests get the collector back
    as it was."""
    yield
    gc.unfreeze()


@pytest.fixture()
def entry_class(monkeypatch):
    exposed = []
    godot = types.ModuleType("godot")
    godot.Node = type("Node", (), {})

    def expose(cls):
        exposed.append(cls)
        return cls

    godot.exposed = expose
    monkeypatch.setitem(sys.modules, "godot", godot)
    spec = importlib.util.spec_from_file_location("sorteio_python_bridge", ENTRY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    assert len(exposed) == 1, "pythonscript allows exactly one exposed class per file"
    return exposed[0]


def requests():
    yield {"id": 1, "method": "new_match", "params": {"seed": 21}}
    yield {"id": 2, "method": "start_turn", "params": {}}
    yield {"id": 3, "method": "draw", "params": {}}
    yield {"id": 4, "method": "choose", "params": {"option": 0}}
    yield {"id": 5, "method": "draw", "params": {}}
    yield {"id": 6, "method": "save", "params": {}}
    yield {"id": 7, "method": "bogus", "params": {}}
    yield {"id": 8, "method": "choose", "params": {"option": 99}}


def test_entry_file_answers_like_the_handler(entry_class):
    node = entry_class()
    handler = RequestHandler()
    for request in requests():
        text = json.dumps(request)
        assert json.loads(node.request(text)) == handler.handle(json.loads(text))


def test_entry_file_imports_nothing_but_godot_and_sorteio():
    source = ENTRY.read_text(encoding="utf-8")
    imports = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert imports == [
        "from godot import Node, exposed",
        "from sorteio.bridge.inprocess import InProcessBridge",
    ]
    code = [line for line in source.split('"""')[-1].splitlines() if line.strip()]
    assert len(code) <= 10, "keep the pythonscript-only part a few lines"


def test_inprocess_bridge_takes_godot_strings():
    class GDString:  # pythonscript hands GDString objects; str() gives the text
        def __init__(self, text):
            self.text = text

        def __str__(self):
            return self.text

    bridge = InProcessBridge()
    reply = json.loads(bridge.request(GDString('{"id": 1, "method": "ping"}')))
    assert reply == {"id": 1, "ok": True, "result": {"pong": True, "protocol": 1}}
    assert json.loads(bridge.request(None))["error"]["code"] == "bad_frame"


def test_no_module_of_the_core_imports_godot():
    package = Path(__file__).resolve().parents[1] / "python/sorteio"
    for path in package.rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split()
            assert words[:2] not in (["import", "godot"], ["from", "godot"]), path


@pytest.mark.parametrize("text", ["[" * 500000, '{"id": ' + "9" * 5000 + ', "method": "ping"}'])
def test_inprocess_bridge_answers_unreadable_json_with_bad_frame(text):
    bridge = InProcessBridge()
    reply = json.loads(bridge.request(text))
    assert reply["ok"] is False and reply["error"]["code"] == "bad_frame"
    assert json.loads(bridge.request('{"id": 1, "method": "ping"}'))["ok"] is True


# -- Godot 4: submit / take (slow requests off the game's frame, replies in request order) ----

GODOT4_ENTRY = Path(__file__).resolve().parents[1] / "addons/sorteio/python/sorteio_extension.py"


def _gated(bridge):
    """Make the bridge's new_match work wait on the returned Event (a stand-in for a 30,000-card
    deck's seconds of compiling) and record the thread it ran in."""
    import threading

    gate, threads = threading.Event(), []
    work, commit = bridge.handler._background["new_match"]

    def slow_work(params):
        threads.append(threading.get_ident())
        assert gate.wait(10), "the test never opened the gate"
        return work(params)

    bridge.handler._background["new_match"] = (slow_work, commit)
    return gate, threads


@pytest.mark.parametrize("threaded", [True, False])
def test_submit_and_take_answer_like_the_handler(threaded):
    bridge, handler = InProcessBridge(threaded=threaded), RequestHandler()
    for request in requests():
        text = json.dumps(request)
        reply = bridge.submit(request["id"], text) or bridge.take(request["id"])
        if not reply:
            reply = json.dumps(wait_reply(bridge, request["id"]))
        assert json.loads(reply) == handler.handle(json.loads(text))
    assert bridge.pending == 0


def test_slow_request_runs_in_a_thread_and_a_later_draw_waits_for_it():
    import threading

    bridge = InProcessBridge()
    gate, threads = _gated(bridge)
    assert bridge.submit(1, '{"id": 1, "method": "new_match", "params": {"seed": 5}}') == ""
    # Requests behind the slow one wait: a draw never overtakes the new_match before it.
    assert bridge.submit(2, '{"id": 2, "method": "start_turn"}') == ""
    for _ in range(3):  # the caller's frames go on: take answers at once, with nothing yet
        assert bridge.take(1) == "" and bridge.take(2) == ""
    assert threads and threads[0] != threading.get_ident()
    gate.set()
    first = wait_reply(bridge, 1)
    assert first["ok"] is True and first["result"]["seed"] == 5
    second = wait_reply(bridge, 2)
    assert second["ok"] is True and "turn" in second["result"]  # not no_match
    # Fast requests with nothing pending answer within submit itself.
    assert json.loads(bridge.submit(3, '{"id": 3, "method": "draw"}'))["ok"] is True
    assert bridge.pending == 0


def test_submit_and_take_never_raise(monkeypatch):
    bridge = InProcessBridge()

    def broken(text, deck_text=None):
        raise RuntimeError("boom")

    monkeypatch.setattr(bridge.handler, "job_from_text", broken)
    reply = json.loads(bridge.submit(1, '{"id": 1, "method": "ping"}'))
    assert reply["error"] == {"code": "internal_error", "message": "RuntimeError: boom"}
    monkeypatch.setattr(bridge, "_pump", lambda: 1 / 0)
    assert json.loads(bridge.take(1))["error"]["code"] == "internal_error"


def test_a_failed_slow_request_gives_its_error_reply():
    bridge = InProcessBridge()
    assert bridge.submit(1, '{"id": 1, "method": "new_match", "params": {"deck": "nope"}}') == ""
    reply = wait_reply(bridge, 1)
    assert reply["ok"] is False and reply["error"]["code"] == "deck_error"
    assert "nope" in reply["error"]["message"]


@pytest.fixture()
def godot4_entry(monkeypatch):
    """The Godot 4 entry file loaded with a stand-in ``godot`` module (the real extension runs
    it in tests/test_godot4_python.py); returns (registered classes, module)."""
    registered = []
    godot = types.ModuleType("godot")
    godot.RefCounted = type("RefCounted", (), {})
    godot.Semaphore = type("Semaphore", (), {})
    godot.method = lambda function: function
    godot.register_extension_class = lambda cls: registered.append(cls) or cls
    monkeypatch.setitem(sys.modules, "godot", godot)
    # The entry imports upstream_fixes, which puts a finder on sys.meta_path: not for later tests.
    monkeypatch.setattr(sys, "meta_path", list(sys.meta_path))
    # Its folder as a package (the extension imports it as addons.sorteio.python.*), for its
    # relative import of upstream_fixes, which finds no godot._python_extension here.
    package = types.ModuleType("sorteio_godot4")
    package.__path__ = [str(GODOT4_ENTRY.parent)]
    monkeypatch.setitem(sys.modules, "sorteio_godot4", package)
    monkeypatch.delitem(sys.modules, "sorteio_godot4.upstream_fixes", raising=False)
    spec = importlib.util.spec_from_file_location("sorteio_godot4.sorteio_extension",
                                                  GODOT4_ENTRY)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return registered, module


def test_godot4_entry_forwards_text_and_never_raises(godot4_entry, monkeypatch):
    registered, module = godot4_entry
    assert [cls.__name__ for cls in registered] == ["SorteioPython"]
    entry = registered[0]()
    assert entry.problem() == ""
    assert json.loads(entry.submit(1, '{"id": 1, "method": "ping"}'))["result"]["pong"] is True
    assert entry.take(1) == ""
    monkeypatch.setattr(module, "InProcessBridge", None)
    monkeypatch.setattr(module, "_IMPORT_ERROR", "ModuleNotFoundError: No module named 'sorteio'")
    fresh = registered[0]()
    assert "No module named 'sorteio'" in fresh.problem()
    reply = json.loads(fresh.submit(1, '{"id": 1, "method": "ping"}'))
    assert reply["error"]["code"] == "bridge_down" and "sorteio" in reply["error"]["message"]


def test_a_deck_text_handed_beside_the_request_is_its_params_deck_text(godot4_entry):
    """The Godot 4 entry's submit_deck (issue 14): a deck's text beside the request's JSON, not
    escaped into it, answers as the same request carrying it in its params."""
    from sorteio.loader import BUILTIN_DECKS

    registered, _module = godot4_entry
    text = BUILTIN_DECKS["curto"].read_text(encoding="utf-8")
    request = {"id": 1, "method": "new_match",
               "params": {"deck": "res://decks/meu.json", "seed": 4}}
    entry = registered[0]()
    reply = entry.submit_deck(1, json.dumps(request), text) or json.dumps(wait_reply(entry, 1))
    expected = RequestHandler().handle(
        dict(request, params=dict(request["params"], deck_text=text)))
    assert json.loads(reply) == expected and expected["ok"] is True
    assert expected["result"]["deck"]["source"] == "res://decks/meu.json"
    bridge = InProcessBridge(threaded=False)
    broken = json.loads(bridge.submit(2, json.dumps(dict(request, id=2)), '{"nome": '))
    assert broken["error"]["code"] == "deck_error"
    assert broken["error"]["message"].startswith("res://decks/meu.json: ")
    assert json.loads(bridge.submit(3, "[1]", text))["error"]["code"] == "bad_request"


def test_godot4_entry_registers_once_when_the_editor_reloads_it(godot4_entry):
    """The Godot 4 editor re-executes this file (upstream's PythonScript._reload calls
    importlib.reload on it during the editor's class scan). A second registration freed the
    class Godot's ClassDB pointed at and crashed the editor at the next instantiate (signal 11,
    issue 13): the reload must keep the first class and register nothing."""
    registered, module = godot4_entry
    first = module.SorteioPython
    for _ in range(2):  # what importlib.reload does: the same module object executed again
        module.__spec__.loader.exec_module(module)
    assert registered == [first] and module.SorteioPython is first
    assert json.loads(first().submit(1, '{"id": 1, "method": "ping"}'))["ok"] is True


def test_notify_tells_when_take_has_the_reply_without_being_asked_each_frame():
    """Issue 13: the Godot 4 caller waits on a Semaphore posted by notify's callback instead
    of calling take() each frame (each call needs the GIL, which the work thread keeps through
    a long C call). The callback comes from the work thread once the slow work is done, and
    from the caller's own take() for a request queued behind it; take() then answers at once."""
    import threading

    bridge = InProcessBridge()
    gate, _threads = _gated(bridge)
    told: dict = {1: threading.Event(), 2: threading.Event()}
    callers: dict = {}

    def tell(key):
        def callback():
            callers[key] = threading.get_ident()
            told[key].set()
        return callback

    assert bridge.submit(1, '{"id": 1, "method": "new_match", "params": {"seed": 5}}') == ""
    assert bridge.submit(2, '{"id": 2, "method": "start_turn"}') == ""
    bridge.notify(1, tell(1))
    bridge.notify(2, tell(2))
    assert not told[1].wait(0.2) and not told[2].is_set()  # the work is held at the gate
    gate.set()
    assert told[1].wait(10), "no callback when the slow work ended"
    assert callers[1] != threading.get_ident()  # from the work thread
    assert not told[2].is_set()  # answered only when the caller finishes the slow one
    assert json.loads(bridge.take(1))["result"]["seed"] == 5
    assert told[2].is_set() and callers[2] == threading.get_ident()
    assert "turn" in json.loads(bridge.take(2))["result"]
    assert bridge.pending == 0


def test_notify_of_a_reply_already_there_calls_back_at_once_and_a_failing_callback_is_ignored():
    bridge = InProcessBridge()
    gate, _threads = _gated(bridge)
    gate.set()
    assert bridge.submit(1, '{"id": 1, "method": "new_match", "params": {"seed": 5}}') == ""
    _wait_done(bridge)
    calls = []
    bridge.notify(1, lambda: calls.append(1))
    assert calls == [1]
    assert json.loads(bridge.take(1))["ok"] is True
    assert bridge.submit(2, '{"id": 2, "method": "new_match", "params": {"seed": 6}}') == ""
    bridge.notify(2, lambda: 1 / 0)  # the waiter is gone: its error is nobody's
    assert wait_reply(bridge, 2)["ok"] is True


def _wait_done(bridge, limit=10.0):
    import time

    end = time.monotonic() + limit
    while bridge._running is not None and not bridge._running[2][1]:
        assert time.monotonic() < end, "the slow work never ended"
        time.sleep(0.005)


def test_godot4_entry_posts_the_semaphore_it_is_given(godot4_entry):
    registered, _module = godot4_entry
    entry = registered[0]()

    class Semaphore:  # Godot's: post() from any thread
        posts = 0

        def post(self):
            self.posts += 1

    assert entry.submit(1, '{"id": 1, "method": "new_match", "params": {"seed": 1}}') == ""
    semaphore = Semaphore()
    entry.notify(1, semaphore)
    reply = wait_reply(entry._inprocess, 1)
    assert reply["ok"] is True and semaphore.posts == 1


def test_godot4_entry_close_stops_the_bridge_and_posts_nothing_after(godot4_entry):
    """SorteioPythonBridge.close() calls close(): the game may be quitting (issue 13; the
    threads' stopping itself: tests/test_bridge_inprocess_quit.py)."""
    registered, _module = godot4_entry
    registered[0]().close()  # never used: nothing to stop, no error
    entry = registered[0]()
    gate, _threads = _gated(entry._bridge())

    class Semaphore:
        posts = 0

        def post(self):
            self.posts += 1

    assert entry.submit(1, '{"id": 1, "method": "new_match", "params": {"seed": 1}}') == ""
    semaphore = Semaphore()
    entry.notify(1, semaphore)
    entry.close()
    gate.set()
    _wait_done(entry._inprocess)
    assert semaphore.posts == 0
    assert json.loads(entry.take(1))["error"]["code"] == "internal_error"
