"""Where the test suite finds the Godot engines that scripts/engines.sh unpacks.

build/engines/bin/ holds godot4 (Debian sid's 4.x), godot3.6-server and godot3.6-runner
(Debian trixie's 3.6). A missing one is installed once by scripts/engines.sh; when that is
impossible the test is skipped, and under CI=true it fails (CI must prove the tests ran).
"""

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ENGINES_BIN = ROOT / "build" / "engines" / "bin"

_install_note = []


def engine(name: str) -> str:
    """Path of build/engines/bin/NAME, running scripts/engines.sh once if it is missing."""
    path = ENGINES_BIN / name
    if not os.access(path, os.X_OK) and not _install_note:
        result = subprocess.run(
            ["bash", str(ROOT / "scripts" / "engines.sh")],
            capture_output=True,
            text=True,
            timeout=1800,
        )
        _install_note.append((result.stdout + result.stderr).strip())
    if not os.access(path, os.X_OK):
        note = " ".join(_install_note) or "not installed"
        if os.environ.get("CI"):  # CI must prove the engine tests ran, never skip them
            pytest.fail(f"{name} unavailable in CI (scripts/engines.sh): {note}")
        pytest.skip(f"{name} unavailable (scripts/engines.sh): {note}")
    return str(path)
