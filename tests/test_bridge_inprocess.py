"""The godot-python side: ``sorteio.bridge.inprocess`` and the addon's pythonscript entry file.

The entry file imports ``godot``, which exists only inside pythonscript; here a stand-in module
with the three names it uses lets us load the very file Godot loads and call it as Godot would.
The real pythonscript runs it in the engine tests (tests/test_godot_engine.py, bridge "python");
this stand-in stays for what those cannot show: the entry on every Python the core supports
(the suite's 3.11 and test-oldest's 3.8), compared answer by answer with the handler, and inputs
GDScript cannot send (500,000 nested brackets, a 5,000-digit id, ``None``), in milliseconds.
"""

import importlib.util
import json
import sys
import types
from pathlib import Path

import pytest

from sorteio.bridge.handler import RequestHandler
from sorteio.bridge.inprocess import InProcessBridge

ENTRY = (Path(__file__).resolve().parents[1]
         / "godot3/addons/sorteio/python/sorteio_python_bridge.py")


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
