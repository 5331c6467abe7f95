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


# The classes a game's code uses (the docs the editor's built-in help shows): every public
# member has a `##` doc comment. The editor's own scripts (editor/*.gd) and the node's parts
# (node/*.gd) are internal: their preloads and colours are not held to it.
PUBLIC_DOCS = ("SorteioNode.xml", "SorteioI18n.xml", "SorteioScriptedBridge.xml",
               "SorteioBridge.xml", "SorteioPythonBridge.xml", "SorteioCard.xml",
               "SorteioDeck.xml", "SorteioOption.xml",
               "addons--sorteio--bridges--socket_bridge.gd.xml")


def test_every_public_member_of_the_addons_api_has_a_doc_comment(tmp_path):
    """QA 13: `--doctool --gdscript-docs` listed last_error_code, SETTING_PYTHON,
    SETTING_BRIDGE_FILE, RECORDING_FORMAT, the SocketBridge/ScriptedBridge constants and the
    bridges' members with no description."""
    import xml.etree.ElementTree as ET

    from godot4_harness import godot4, godot_env, make_project

    project = make_project(tmp_path / "docs", autoload=False)
    out = tmp_path / "xml"
    out.mkdir()
    result = subprocess.run(
        [godot4(), "--headless", "--path", str(project), "--doctool", str(out),
         "--gdscript-docs", "res://addons/sorteio"],
        capture_output=True, text=True, env=godot_env(tmp_path / "home"), timeout=300)
    assert result.returncode == 0, (result.stdout + result.stderr)[-3000:]
    found = {path.name: path for path in out.rglob("*.xml")}
    assert set(PUBLIC_DOCS) <= set(found), sorted(found)
    bare = []
    for name in PUBLIC_DOCS:
        for kind in ("member", "constant", "method", "signal"):
            for element in ET.parse(found[name]).getroot().iter(kind):
                description = element.find("description")
                text = (element.text or "") + ("" if description is None
                                               else description.text or "")
                if not element.get("name", "_").startswith("_") and not text.strip():
                    bare.append(f"{name} {kind} {element.get('name')}")
    assert not bare, "public members with no ## doc comment:\n" + "\n".join(bare)


def test_every_godot3_node_property_is_in_godot4_or_in_the_moving_guide():
    """QA 13: `python_entry` (a Godot 3 node property) was missing from "Moving from Godot 3"."""
    import re

    godot3 = (ROOT / "godot3" / "addons" / "sorteio" / "sorteio_node.gd").read_text("utf-8")
    godot4 = (ROOT / "addons" / "sorteio" / "sorteio_node.gd").read_text("utf-8")
    readme = (ROOT / "addons" / "sorteio" / "README.md").read_text("utf-8")
    guide = readme.split("## Moving from Godot 3", 1)[1].split("\n## ", 1)[0]
    old = set(re.findall(r"^export(?:\([^)]*\))? var (\w+)", godot3, re.M))
    new = set(re.findall(r"^@export\w*(?:\([^)]*\))? var (\w+)", godot4, re.M))
    assert old and new
    missing = [name for name in sorted(old - new) if f"`{name}`" not in guide]
    assert not missing, f"Godot 3 node properties the moving guide does not mention: {missing}"
