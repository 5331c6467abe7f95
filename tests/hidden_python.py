"""Run shell lines with every Python of this machine hidden: what an exported game's player has.

The lines run in a mount namespace (``unshare -m``, root) where the pyenv tree,
``/usr/bin/python*``, ``/usr/lib/python3*``, ``/usr/local/...`` and the checkout (its venvs, the
runtime caches under build/) are bind-mounted empty, and PATH holds only /usr/bin:/bin. The
namespace first proves that no interpreter runs (``python3 -c 1`` and each hidden interpreter
by its path must fail, then ``NO-PYTHON ok``), then runs the lines from an empty working folder.

Shared by the export tests of both engine lines (tests/test_export.py,
tests/test_godot4_export.py) and the release zips' (tests/test_dist.py).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Optional

import pytest

ROOT = Path(__file__).resolve().parents[1]
# SORTEIO_EXPORT_OUT: another build folder (a worktree whose build/ is shared, read-only).
EXPORT_OUT = Path(os.environ.get("SORTEIO_EXPORT_OUT", str(ROOT / "build" / "export")))


def hidden_pythons() -> dict:
    """{path: "dir" | "file"}: every Python install of this machine, and the checkout."""
    hidden = {}
    for pattern in ("/usr/lib/python3*", "/usr/local/lib/python3*"):
        for path in sorted(Path("/").glob(pattern.lstrip("/"))):
            hidden[str(path)] = "dir"
    for pattern in ("/usr/bin/python*", "/usr/local/bin/python*"):
        for path in sorted(Path("/").glob(pattern.lstrip("/"))):
            hidden[str(path)] = "file"
    pyenv = Path.home() / ".pyenv"
    if pyenv.is_dir():
        hidden[str(pyenv)] = "dir"
    hidden[str(ROOT)] = "dir"  # .venv, .venv-oldest, build/pythonscript, build/export/.freeze-venv
    return hidden


def interpreters() -> list:
    """Pythons that must not run inside the namespace, by the paths they have outside it."""
    found = [sys.executable, os.path.realpath(sys.executable), "/usr/bin/python3"]
    found += [str(p) for p in (Path.home() / ".pyenv" / "versions").glob("*/bin/python3")]
    found += [str(p) for p in (ROOT / "build" / "pythonscript").glob("*/addons/*/*/bin/python3")]
    return [p for p in dict.fromkeys(found) if os.path.exists(p)]


def ensure_hidden_runner() -> str:
    """``unshare`` (root only); skipped elsewhere, failed under CI=true."""
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("hiding Python needs unshare -m as root")
        pytest.skip("hiding Python needs unshare -m as root")
    return unshare


def hiding_lines(tmp_path: Path, whole_checkout: bool = True) -> list:
    """Shell lines (run by ``unshare -m bash``) that hide every Python of this machine, prove
    none runs, and print NO-PYTHON ok. ``whole_checkout=False`` hides only the checkout's
    Pythons (Godot 4's export template and its C library live in build/engines)."""
    empty_dir = tmp_path / "empty_dir"
    empty_dir.mkdir(exist_ok=True)
    empty_file = tmp_path / "empty_file"
    empty_file.write_bytes(b"")
    hidden = hidden_pythons()
    if not whole_checkout:
        del hidden[str(ROOT)]
        for name in (".venv", ".venv-oldest", "python", "build/gdextension",
                     "build/pythonscript", "build/export/.freeze-venv"):
            if (ROOT / name).exists():
                hidden[str((ROOT / name).resolve())] = "dir"
        if (EXPORT_OUT / ".freeze-venv").exists():
            hidden[str((EXPORT_OUT / ".freeze-venv").resolve())] = "dir"
    lines = ["set -e"]
    for path, kind in hidden.items():
        source = empty_dir if kind == "dir" else empty_file
        lines.append(f"mount --bind '{source}' '{path}'")
    lines.append("export PATH=/usr/bin:/bin")
    for name in ("python3", "python", *interpreters()):
        lines.append(f"if '{name}' -c 1 2>/dev/null; then echo 'STILL RUNS {name}'; exit 99; fi")
    lines.append("echo 'NO-PYTHON ok'")
    return lines


def run_hidden(tmp_path: Path, runs: list, whole_checkout: bool = True, env: Optional[dict] = None,
               timeout: int = 600):
    """Runs the shell lines ``runs`` from an empty working folder with every Python hidden,
    HOME, XDG folders and TMPDIR fresh under ``tmp_path`` (``env`` adds variables, e.g.
    DISPLAY). Fails unless no Python ran and the lines exited 0.
    Returns (log, HOME, TMPDIR, working folder)."""
    unshare = ensure_hidden_runner()
    elsewhere, temp, home = tmp_path / "elsewhere", tmp_path / "tmp", tmp_path / "home"
    for folder in (elsewhere, temp, home):
        folder.mkdir(exist_ok=True)
    lines = [*hiding_lines(tmp_path, whole_checkout), f"cd '{elsewhere}'", *runs]
    script = tmp_path / "no_python.sh"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    full_env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "en_US.UTF-8",
                "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
                "XDG_CACHE_HOME": str(home / "cache"), "TMPDIR": str(temp), **(env or {})}
    result = subprocess.run(
        ["timeout", "-k", "5", str(timeout), unshare, "-m", "bash", str(script)],
        capture_output=True, text=True, env=full_env, timeout=timeout + 30,
    )
    log = result.stdout + result.stderr
    assert "NO-PYTHON ok" in log, log[-3000:]
    assert result.returncode == 0, f"exit {result.returncode}:\n{log[-3000:]}"
    return log, home, temp, elsewhere
