"""The Python GDExtension runtime in Godot 4 test and benchmark projects (issue 13): install it
as a user does, and tell upstream's known noise from ours. Shared by tests/test_godot4_python.py,
tests/test_godot4_export.py and benchmarks/bench_godot4.py.

``gdextension_runtime()`` is scripts/gdextension.sh's cached runtime: skipped when the archive or
a CPython 3.12 is missing (exit 3), failed under CI=true, failed on any other error.
"""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXT = Path("addons/godot-python-extension")


# Engine lines that are not ours, each with why (the harness fails on any other).
# The per-run Python tracebacks upstream's PythonLanguage printed (NotImplementedError for each
# autoload; the editor asking it for the global class of the addon's icons) are gone:
# addons/sorteio/python/upstream_fixes.py answers as upstream meant. Any Python traceback left
# fails only_upstream_tracebacks unless it is one of UPSTREAM_TRACEBACKS (none is expected in a
# game; the editor's own integration prints some: tests/test_godot4_editor.py allows those).
UPSTREAM_TRACEBACKS: tuple = ()
NOISE = (
    (
        r"^WARNING: ObjectDB instances leaked at exit",
        "the Python GDExtension keeps references to Godot objects (its script language, loader "
        "and editor plugin objects) past Godot's ObjectDB check at exit; upstream's, seen with "
        "no sorteio code loaded too",
    ),
)


def only_upstream_tracebacks(log: str) -> None:
    """Every Python traceback in `log` is one of UPSTREAM_TRACEBACKS (ours would fail here)."""
    blocks = log.split("Traceback (most recent call last)")[1:]
    ours = [b[:600] for b in blocks
            if "While calling" in b.split("Traceback")[0] and not any(
                site in b.split("Traceback")[0] for site in UPSTREAM_TRACEBACKS)]
    assert not ours, "Python tracebacks that are not upstream's known ones:\n" + "\n".join(ours)


def gdextension_runtime() -> Path:
    """The cached runtime folder (scripts/gdextension.sh runtime); skipped (failed under CI)
    when the archive or a CPython 3.12 is missing (exit 3), failed on any other error."""
    result = subprocess.run(
        ["bash", str(ROOT / "scripts" / "gdextension.sh"), "runtime"],
        capture_output=True, text=True, timeout=900,
    )
    if result.returncode == 3:
        message = result.stderr.strip().splitlines()[-1]
        if os.environ.get("CI"):
            pytest.fail(f"the Python GDExtension runtime is missing in CI: {message}")
        pytest.skip(message)
    assert result.returncode == 0, result.stderr[-3000:]
    return Path(result.stdout.strip())


def install_extension(project: Path, opened: bool = True) -> None:
    """What a user does (addons/sorteio/docs/in_process.md): the extension
    folder into addons/, the addon's sorteio.pyextension at the project root. `opened`: also
    write the .godot/extension_list.cfg the editor writes at its first open (False: the
    project's true first open, where Godot loads the extension during its first scan)."""
    runtime = gdextension_runtime()
    shutil.copytree(runtime / EXT, project / EXT, symlinks=True)
    shutil.copy(ROOT / "addons/sorteio/python/sorteio.pyextension", project / "sorteio.pyextension")
    if not opened:
        return
    # What the editor writes when it first opens a project holding a .gdextension.
    (project / ".godot").mkdir(exist_ok=True)
    (project / ".godot" / "extension_list.cfg").write_text(f"res://{EXT}/python.gdextension\n")


