"""The Godot 4 GDScript (the addon, the demo, the engine scenarios, the benchmark script) passes
gdlint and gdformat of gdtoolkit 4, the Godot 4 line of the tool the Godot 3 code is held to
(tests/test_godot_engine.py). gdtoolkit 3 and 4 are one package name, so gdtoolkit 4 gets a venv
of its own, build/gdtoolkit4 (made once, then cached). Beside Godot's own checks (every warning is
an error in the engine tests), this holds the style guide: names, order, line length, format."""

import os
import subprocess
import venv
from pathlib import Path

import pytest

pytestmark = pytest.mark.godot

ROOT = Path(__file__).resolve().parents[1]
TOOL = ROOT / "build" / "gdtoolkit4"
PATHS = [ROOT / "addons" / "sorteio", ROOT / "demo_project" / "main.gd",
         ROOT / "demo_project" / "scenes", ROOT / "tests" / "godot4",
         *sorted((ROOT / "benchmarks").glob("godot4*.gd"))]


def gdtoolkit4() -> Path:
    """build/gdtoolkit4/bin, with gdtoolkit 4 installed (once)."""
    bindir = TOOL / "bin"
    if not (bindir / "gdlint").exists():
        venv.create(TOOL, with_pip=True)
        result = subprocess.run([str(bindir / "python"), "-m", "pip", "install", "-q",
                                 "--disable-pip-version-check", "gdtoolkit>=4,<5"],
                                capture_output=True, text=True)
        if result.returncode != 0:
            message = f"gdtoolkit 4 could not be installed: {result.stderr[-500:]}"
            if os.environ.get("CI"):
                pytest.fail(message)
            pytest.skip(message)
    return bindir


def test_godot4_gdscript_passes_gdlint_and_gdformat():
    bindir = gdtoolkit4()
    paths = [str(p) for p in PATHS if p.exists()]
    # The addon's folder is linked into the demo: lint it once, by its own path.
    # gdlint reads tests/gdlint4/gdlintrc from its working folder (the settings say why).
    lint = subprocess.run([str(bindir / "gdlint"), *paths], capture_output=True, text=True,
                          cwd=ROOT / "tests" / "gdlint4")
    assert lint.returncode == 0, lint.stdout + lint.stderr
    form = subprocess.run([str(bindir / "gdformat"), "--check", *paths], capture_output=True,
                          text=True)
    assert form.returncode == 0, form.stdout + form.stderr
