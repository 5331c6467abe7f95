import os
import subprocess
import sys
from pathlib import Path

import pytest

# Test helpers (scenario.py) are imported by name from this folder.
sys.path.insert(0, str(Path(__file__).parent))

# One language for the whole suite (issue 15), whatever the machine's locale: English, in which
# the tests' expected messages are written. Set in the environment so that subprocesses (the CLI,
# the socket server) speak it too; tests of Portuguese texts ask for pt-BR themselves
# (`pt_br` below, `i18n.use`, `--lang pt-BR`), and the Godot engine tests' bridges get pt-BR
# (their GDScript checks the Portuguese narration: `godot_language_env`).
os.environ["SORTEIO_LANG"] = "en"
for _var in ("LANGUAGE", "LC_ALL", "LC_MESSAGES"):
    os.environ.pop(_var, None)


@pytest.fixture
def pt_br():
    """Run the test in Brazilian Portuguese (the studio's default), in-process and for the
    subprocesses it starts."""
    from sorteio import i18n

    mp = pytest.MonkeyPatch()
    mp.setenv("SORTEIO_LANG", "pt-BR")
    i18n.set_language("pt-BR")
    try:
        yield
    finally:
        i18n.set_language(None)
        mp.undo()

_PYTHONSCRIPT_SKIP = []


@pytest.hookimpl(trylast=True)  # after -k / -m chose the items
def pytest_collection_modifyitems(config, items):
    """Without pythonscript on this machine (and not in CI), leave out the engine tests over the
    python bridge and say so in one line at the end (tests/test_godot_engine.py, `bridge`)."""
    python_runs = [
        item
        for item in items
        if getattr(item, "callspec", None) and item.callspec.params.get("bridge") == "python"
    ]
    if not python_runs or os.environ.get("CI"):  # in CI the fixture fails instead
        return
    script = Path(__file__).resolve().parents[1] / "scripts" / "pythonscript.sh"
    probe = subprocess.run(["bash", str(script), "where"], capture_output=True, text=True)
    if probe.returncode != 3:
        return
    chosen = set(map(id, python_runs))
    items[:] = [item for item in items if id(item) not in chosen]
    config.hook.pytest_deselected(items=python_runs)
    reason = probe.stderr.strip()
    _PYTHONSCRIPT_SKIP.append(f"{len(python_runs)} python-bridge engine tests: {reason}")


def pytest_terminal_summary(terminalreporter):
    for line in _PYTHONSCRIPT_SKIP:
        terminalreporter.write_line(f"SKIPPED {line}", yellow=True)
