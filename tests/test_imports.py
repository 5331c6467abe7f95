"""The core's modules import each other without circles (developers' guide: "no import circles").

Every ``import`` of a sorteio module by another is an edge, including imports inside functions
(a deferred import hides a circle from Python, not from a reader); the graph must have no cycle.
"""

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "python" / "sorteio"


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _edges():
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.ImportFrom):
                base = package
                for _ in range(max(0, node.level - 1)):
                    base = base.rpartition(".")[0]
                mod = node.module if node.level == 0 else ".".join(
                    p for p in (base, node.module) if p)
                targets = [mod] + [f"{mod}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for target in targets:
                # a package's __init__ runs before any of its modules: not an edge of its own
                if target in modules and target != name and modules[target].name != "__init__.py":
                    graph[name].add(target)
    return graph


def _cycle(graph):
    state = {}
    stack = []

    def visit(n):
        state[n] = 1
        stack.append(n)
        for m in sorted(graph[n]):
            if state.get(m) == 1:
                return [*stack[stack.index(m):], m]
            if m not in state:
                found = visit(m)
                if found:
                    return found
        stack.pop()
        state[n] = 2
        return None

    for n in sorted(graph):
        if n not in state:
            found = visit(n)
            if found:
                return found
    return None


def test_the_core_has_no_import_circle():
    graph = _edges()
    assert "sorteio.state" in graph["sorteio.engine"]  # the edge that used to go both ways
    assert _cycle(graph) is None, " -> ".join(_cycle(graph))
