"""Benchmark only: the in-process bridge entry with the reference ``Engine`` (the oracle) given
explicitly (issue 9; since issue 16 the addon's default too), timed by benchmarks/bench_bridges.py.

Copied into the benchmark's scratch project as ``res://bench/oracle_entry.py`` and set as the
node's ``python_entry``; otherwise the same few lines as the addon's sorteio_python_bridge.py.
"""

from godot import Node, exposed

from sorteio.bridge.inprocess import InProcessBridge
from sorteio.engine import Engine


@exposed
class OracleEntry(Node):
    def request(self, text):
        if getattr(self, "_bridge", None) is None:
            self._bridge = InProcessBridge(engine_cls=Engine)
        return self._bridge.request(str(text))
