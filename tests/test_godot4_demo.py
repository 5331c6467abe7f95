"""The Godot 4 demo (demo_project/) on the real Godot 4 engine: it plays a whole match by
pressing its own left/right buttons (--autoplay), over the socket bridge, with GDScript warnings
as errors, and ends with one line saying how the mandate went."""

import re

import pytest

from godot4_harness import ROOT, make_project, run_godot

pytestmark = pytest.mark.godot

DEMO = ROOT / "demo_project"


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """The demo's files in a harness project (warnings as errors), with its main scene."""
    files = {name: (DEMO / name).read_text("utf-8") for name in ("main.gd", "main.tscn")}
    files["decks/padrao.sorteio.json"] = (DEMO / "decks" / "padrao.sorteio.json").read_text("utf-8")
    settings = {"application": {"run/main_scene": '"res://main.tscn"'}}
    return make_project(tmp_path_factory.mktemp("demo") / "demo", name="Sorteio demo (Godot 4)",
                        files=files, settings=settings)


def test_the_demo_project_is_a_godot_4_project_with_the_addon():
    text = (DEMO / "project.godot").read_text("utf-8")
    assert "config_version=5" in text and 'run/main_scene="res://main.tscn"' in text
    assert 'Sorteio="*res://addons/sorteio/sorteio_node.gd"' in text
    assert (DEMO / "addons" / "sorteio").resolve() == (ROOT / "addons" / "sorteio").resolve()
    assert (DEMO / "export_presets.cfg").resolve() == (ROOT / "export_presets.cfg").resolve()


@pytest.mark.parametrize("seed", [5, 10])
def test_the_demo_autoplays_a_whole_match_through_its_buttons(demo, tmp_path, seed):
    run = run_godot(demo, ["--", "--autoplay", "--delay=0", "--quit-at-end", f"--seed={seed}"],
                    tmp_path / "home", log_name=f"demo-{seed}")
    assert run.returncode == 0, run.tail()
    line = re.search(rf"sorteio demo: semente {seed}: (.+)\.", run.log)
    assert line, run.tail()
    assert re.match(r"(fim do mandato|catástrofe)", line.group(1)), line.group(1)
