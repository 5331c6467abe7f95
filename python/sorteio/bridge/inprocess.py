"""In-process bridge: what the godot-python script calls, kept free of ``import godot``.

The script in the addon (``addons/sorteio/python/sorteio_python_bridge.py``) only forwards the
request text here; everything testable lives in this module and in ``handler``.
The texts are the same JSON requests and replies as the socket bridge, without the length
prefix and without a token (nothing else can reach an in-process object).
"""

from typing import Any, Optional

from .handler import RequestHandler


class InProcessBridge:
    """JSON request text in, JSON reply text out, through one ``RequestHandler``."""

    def __init__(self, engine_cls: Any = None) -> None:
        self.handler = RequestHandler(token=None, engine_cls=engine_cls)

    def request(self, text: Optional[str]) -> str:
        return self.handler.handle_json("" if text is None else str(text))
