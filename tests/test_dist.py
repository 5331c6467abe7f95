"""``make dist``: the release zip installs into a new Godot project from the zip alone.

The zip is unzipped into an empty folder, the project is made as INSTALL.md says (the plugin
enabled with the two project.godot entries the editor writes), the wheel from the zip is
installed into a new venv, the editor opens the project (plugin loaded, no GDScript error),
and the addon README's example plays whole matches over the socket bridge with that venv's
Python.
"""

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from test_editor import project_godot, unexpected_errors
from test_godot_engine import ROOT, TIMEOUT, godot_env, run_script, tool

pytestmark = pytest.mark.godot

VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text("utf-8"),
                    re.M).group(1)


@pytest.fixture(scope="module")
def dist_zip(tmp_path_factory):
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "dist.py"), "--out", str(out)],
                          capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    path = Path(proc.stdout.strip().splitlines()[-1])
    assert path == out / f"sorteio-{VERSION}.zip" and path.exists()
    return path


def test_versions_agree_and_the_license_is_in_both_places():
    cfg = (ROOT / "godot3" / "addons" / "sorteio" / "plugin.cfg").read_text("utf-8")
    assert f'version="{VERSION}"' in cfg
    assert f"## [{VERSION}]" in (ROOT / "CHANGELOG.md").read_text("utf-8")
    root_license = (ROOT / "LICENSE").read_text("utf-8")
    assert root_license.startswith("MIT License")
    assert (ROOT / "godot3" / "addons" / "sorteio" / "LICENSE").read_text("utf-8") == root_license
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text("utf-8")


def test_the_zip_has_the_asset_library_layout(dist_zip):
    top = f"sorteio-{VERSION}/"
    names = zipfile.ZipFile(dist_zip).namelist()
    assert all(n.startswith(top) for n in names)
    inside = {n[len(top):] for n in names}
    for needed in ("INSTALL.md", "LICENSE", "CHANGELOG.md", "addons/sorteio/plugin.cfg",
                   "addons/sorteio/LICENSE", "addons/sorteio/README.md",
                   "addons/sorteio/sorteio_node.gd", "addons/sorteio/sorteio_deck.gd",
                   "addons/sorteio/editor/plugin.gd", "addons/sorteio/editor/panel.gd",
                   "addons/sorteio/icons/sorteio_node.svg", "addons/sorteio/icons/sorteio_deck.svg",
                   f"addons/sorteio/wheel/sorteio-{VERSION}-py3-none-any.whl",
                   "addons/sorteio/wheel/.gdignore"):
        assert needed in inside, needed
    assert not [n for n in inside if "__pycache__" in n or n.endswith((".pyc", ".import"))]


def test_the_install_steps_from_the_zip_alone_play_a_match(dist_zip, tmp_path):
    game = tmp_path / "novo_jogo"
    unpacked = tmp_path / "unpacked"
    zipfile.ZipFile(dist_zip).extractall(unpacked)
    source = unpacked / f"sorteio-{VERSION}"
    install = (source / "INSTALL.md").read_text("utf-8")
    # Step 1: copy addons/sorteio into the project (a real copy, no link to this repository).
    game.mkdir()
    subprocess.run(["cp", "-r", str(source / "addons"), str(game / "addons")], check=True)
    # Step 2: the plugin enabled, as project.godot records it (both entries INSTALL.md shows).
    assert 'Sorteio="*res://addons/sorteio/sorteio_node.gd"' in install
    assert 'enabled=PoolStringArray( "sorteio" )' in install
    (game / "project.godot").write_text(project_godot("Sorteio demo"), encoding="utf-8")
    # Step 3: the wheel inside the zip, into a new venv (its dependencies from the index).
    wheel = f"addons/sorteio/wheel/sorteio-{VERSION}-py3-none-any.whl"
    assert f".venv/bin/pip install {wheel}" in install
    venv = game / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = subprocess.run([str(venv / "bin" / "pip"), "install", "-q",
                          "--disable-pip-version-check", str(game / wheel)],
                         capture_output=True, text=True, timeout=600)
    assert pip.returncode == 0, pip.stdout + pip.stderr
    python = str(venv / "bin" / "python")
    check = subprocess.run([python, "-c", "import sorteio, sys; print(sorteio.__file__)"],
                           capture_output=True, text=True, check=True)
    assert str(venv) in check.stdout, "the venv's sorteio is not the wheel's"
    env = godot_env(tmp_path)
    env["SORTEIO_PYTHON"] = python  # step 4
    # The editor opens the project with the plugin on: the panel and importer load cleanly.
    editor = subprocess.run(
        ["timeout", "-k", "5", str(TIMEOUT), tool("godot3-server"), "-e", "--path", str(game),
         "--quit"], capture_output=True, text=True, env=dict(
            env, XDG_CONFIG_HOME=str(tmp_path / "config"), XDG_CACHE_HOME=str(tmp_path / "c")),
        timeout=TIMEOUT + 30)
    log = editor.stdout + editor.stderr
    assert not unexpected_errors(log), log[-3000:]
    # Step 5: the addon README's example plays whole matches in the new project.
    readme = (game / "addons" / "sorteio" / "README.md").read_text("utf-8")
    example = re.search(r"```gdscript\n(.*?)```", readme, re.S).group(1)
    example = example.replace("Sorteio.start_match(42, ", "Sorteio.start_match(-1, ")
    script = tmp_path / "exemplo.gd"
    script.write_text(example, encoding="utf-8")
    log = run_script(tmp_path, "run_example.gd", f"--script={script}", "--seeds=3",
                     env=env, project=game)
    assert re.search(r"EXAMPLE seeds=3 ended=3 catastrophes=\d+ errors=\[\]", log), log[-3000:]
    assert "year 4 closed with" in log or "over: catastrophe" in log
    # A Python without the package: the node's hint names the wheel the zip carries (a zip user
    # has no checkout of this repository to install from).
    bare = tmp_path / "python_without_sorteio.sh"
    bare.write_text(f'#!/bin/sh\nexec "{python}" -I -S "$@"\n', encoding="utf-8")
    bare.chmod(0o755)
    env["SORTEIO_PYTHON"] = str(bare)
    log = run_script(tmp_path, "print_bridge_error.gd", env=env, project=game)
    hint = re.search(r"BRIDGE-ERROR (.*)", log).group(1)
    assert f"pip install {game / wheel}" in hint, hint
