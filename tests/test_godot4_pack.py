"""The Godot 4 demo exported as a pack with the top-level export_presets.cfg (linked from
demo_project/), run with --main-pack from another working folder: res:// is the pack there,
which Python cannot open, so the node hands Python the deck's text (issue 14: a relative or
res:// deck path must work once exported, and no copy of it is written). `--export-pack`
needs no export template; the full exports are tests/test_export.py's."""

import re
import shutil
import subprocess
import zipfile

import pytest

from godot4_harness import ROOT, godot4, godot_env, run_godot, user_dir
from test_godot4_demo import demo_copy

pytestmark = pytest.mark.godot


def test_the_export_presets_are_the_demos():
    link = ROOT / "demo_project" / "export_presets.cfg"
    assert link.is_symlink() and link.resolve() == (ROOT / "export_presets.cfg").resolve()
    text = (ROOT / "export_presets.cfg").read_text("utf-8")
    assert 'platform="Linux"' in text and 'include_filter="decks/*.json"' in text
    assert "addons/sorteio/editor/*" in text  # the game carries no editor script


def test_the_demo_exported_as_a_pack_plays_from_another_folder(tmp_path):
    demo = demo_copy(tmp_path / "demo")
    shutil.copy(ROOT / "export_presets.cfg", demo / "export_presets.cfg")
    pack = tmp_path / "out" / "sorteio_demo.pck"
    pack.parent.mkdir()
    run_godot(demo, ["--export-pack", "Linux", str(pack)], tmp_path / "export-home",
              log_name="export-pack")
    data = pack.read_bytes()
    assert b"decks/padrao.json" in data and b"res://addons/sorteio/sorteio_node.gd" in data
    # Which files the game carries, read from the same export as a ZIP (the .pck's paths also
    # appear in Godot 4.4+'s uid cache, which lists every script of the project, exported or not).
    listing = tmp_path / "out" / "listing.zip"
    run_godot(demo, ["--export-pack", "Linux", str(listing)], tmp_path / "export-home")
    names = zipfile.ZipFile(listing).namelist()
    assert any(n.startswith("addons/sorteio/sorteio_node.gd") for n in names), names
    assert not [n for n in names if n.startswith("addons/sorteio/editor/")], names
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    home = tmp_path / "player"
    result = subprocess.run(
        ["timeout", "-k", "5", "180", godot4(), "--headless", "--main-pack", str(pack), "--",
         "--autoplay", "--delay=0", "--quit-at-end", "--seed=3"],
        cwd=elsewhere, env=godot_env(home), capture_output=True, text=True, timeout=210,
    )
    log = result.stdout + result.stderr
    assert result.returncode == 0, log[-3000:]
    assert re.search(r"sorteio demo: semente 3: ", log), log[-3000:]
    assert "ERROR" not in log and "WARNING" not in log, log[-3000:]
    folder = user_dir(home, demo)
    left = sorted(p.name for p in folder.iterdir()) if folder.exists() else []
    assert [name for name in left if name.startswith("sorteio")] == [], left
