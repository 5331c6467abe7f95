"""godot-python (pythonscript) entry: the only file of sorteio that imports ``godot``.

SorteioNode attaches this script to a child Node when pythonscript is installed and calls
``request(json_text)``; the reply is JSON text too. All logic is in sorteio.bridge.inprocess,
tested outside Godot; this file stays a few lines on purpose.
"""

from godot import Node, exposed

from sorteio.bridge.inprocess import InProcessBridge


@exposed
class SorteioPythonBridge(Node):
    def request(self, text):
        if getattr(self, "_bridge", None) is None:
            self._bridge = InProcessBridge()
        return self._bridge.request(str(text))
