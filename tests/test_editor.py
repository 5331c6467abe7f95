"""The Sorteio editor panel and deck resources in a real Godot 3.2.3 editor.

A throwaway project gets addons/sorteio (enabled as project.godot records it) and a probe
plugin (tests/godot3/editor_probe) that presses every panel action in a headless editor
(``godot3-server -e``) and prints what the panel shows; these tests compare that with Python's
own answers. Any GDScript error in the log fails (Godot reports them and carries on).
"""

import json
import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from engines import engine
from sorteio.bridge.handler import RequestHandler
from sorteio.loader import BUILTIN_DECKS
from test_godot_engine import (
    ARTIFACTS,
    DEMO,
    ROOT,
    SCRIPTS,
    TIMEOUT,
    engine_errors,
    godot_env,
    process_gone,
    run_godot,
    scratch_demo,
    tool,
    xvfb,
)

pytestmark = pytest.mark.godot

PROBE = SCRIPTS / "editor_probe"
# Warnings the importer prints on purpose for the broken deck (one per problem).
EXPECTED_WARNING = re.compile(r"sorteio erro: res://decks/quebrado\.json")  # a pt-BR run


def project_godot(name: str, plugins=("sorteio",)) -> str:
    """What the editor writes when the plugin is enabled: both lines the README names."""
    enabled = ", ".join(f'"{p}"' for p in plugins)
    return (
        "config_version=4\n\n"
        f'[application]\n\nconfig/name="{name}"\nrun/low_processor_mode_sleep_usec=1000\n\n'
        '[autoload]\n\nSorteio="*res://addons/sorteio/sorteio_node.gd"\n\n'
        f"[editor_plugins]\n\nenabled=PoolStringArray( {enabled} )\n"
    )


def broken_deck_data() -> dict:
    data = json.loads(BUILTIN_DECKS["padrao"].read_text("utf-8"))
    data["cartas"][0]["modo"] = ""
    data["cartas"][2]["opcoes"][0]["efeitos"]["saude"] = 900
    data["cartas"][5].pop("titulo")
    return data


def warning_deck_data() -> dict:
    """A valid deck with one warning whose message holds a "§" (GDD 05 §3.4): card 1's two
    options have the same text."""
    data = json.loads(BUILTIN_DECKS["padrao"].read_text("utf-8"))
    options = data["cartas"][1]["opcoes"]
    options[1]["texto"] = options[0]["texto"]
    return data


def make_project(tmp_path: Path) -> Path:
    project = tmp_path / "designer"
    (project / "addons").mkdir(parents=True)
    (project / "addons" / "sorteio").symlink_to(ROOT / "godot3" / "addons" / "sorteio")
    (project / "addons" / "editor_probe").symlink_to(PROBE)
    (project / "decks").mkdir()
    shutil.copy(BUILTIN_DECKS["padrao"], project / "decks" / "bom.json")
    (project / "decks" / "quebrado.json").write_text(
        json.dumps(broken_deck_data(), ensure_ascii=False), encoding="utf-8")
    (project / "decks" / "aviso.json").write_text(
        json.dumps(warning_deck_data(), ensure_ascii=False), encoding="utf-8")
    (project / "outro.json").write_text('{"not": "a deck"}', encoding="utf-8")
    (project / "project.godot").write_text(
        project_godot("designer", ("sorteio", "editor_probe")), encoding="utf-8")
    return project


def saved_state(tmp_path: Path) -> Path:
    """A match saved mid-turn by the CLI (what `play --save` writes)."""
    state = tmp_path / "meio.json"
    import sys
    subprocess.run([sys.executable, "-m", "sorteio.cli", "play", "--seed", "2",
                    "--stop-after", "10", "--save", str(state)], check=True,
                   capture_output=True, timeout=120)
    return state


def editor_env(tmp_path: Path) -> dict:
    env = godot_env(tmp_path)
    env["XDG_CONFIG_HOME"] = str(tmp_path / "config")  # editor settings of this run only
    env["XDG_CACHE_HOME"] = str(tmp_path / "cache")
    user_dir = tmp_path / "xdg" / "godot" / "app_userdata" / "designer"
    user_dir.mkdir(parents=True, exist_ok=True)
    return env


def run_editor(tmp_path: Path, project: Path, args=(), binary="godot3-server", env=None):
    exe = binary if os.path.isabs(binary) else tool(binary)  # absolute: from build/engines
    command = ["timeout", "-k", "5", str(TIMEOUT), exe, "-e", "--path", str(project), *args]
    result = subprocess.run(command, capture_output=True, text=True,
                            env=env or editor_env(tmp_path), timeout=TIMEOUT + 30)
    log = result.stdout + result.stderr
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / f"editor_{os.path.basename(binary)}.log").write_text(log, encoding="utf-8")
    assert result.returncode != 124, f"the editor timed out:\n{log[-3000:]}"
    return log


def unexpected_errors(log: str, allowed=()) -> list:
    """Godot's error lines (SCRIPT ERROR, ERROR:, Parse Error) that ``allowed`` (pairs of
    regex and why, as in test_godot_engine) does not explain."""
    return engine_errors(log, allowed)[0]


def panel_lines(log: str) -> dict:
    out = {}
    for what, data in re.findall(r"^PANEL (\w+) (.*)$", log, re.M):
        out[what] = json.loads(data)
    return out



@pytest.fixture(scope="module")
def editor_run(tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("editor")
    project = make_project(tmp_path)
    state = saved_state(tmp_path)
    env = editor_env(tmp_path)
    # The progress bar is what the simulate test watches: the compiled kernel plays 3,000
    # matches inside one 60 ms step, the Python kernel spreads them over several editor frames
    # (same figures either way: tests/test_ckernel.py).
    env["SORTEIO_KERNEL"] = "python"
    # The port file (with its token) of an editor that crashed: a pid that cannot be running.
    stale = (tmp_path / "xdg" / "godot" / "app_userdata" / "designer"
             / f"sorteio_editor_bridge_{2 ** 22 + 1}.json")
    stale.write_text('{"port": 1, "token": "old"}', encoding="utf-8")
    log = run_editor(tmp_path, project, ["--", f"--state={state}"], env=env)
    return {"tmp": tmp_path, "project": project, "state": state, "log": log,
            "panel": panel_lines(log), "stale": stale}


def python(method, **params):
    reply = RequestHandler().handle({"id": 1, "method": method, "params": params})
    assert reply["ok"], reply
    return reply["result"]


def test_the_panel_runs_every_action_without_a_gdscript_error(editor_run):
    log = editor_run["log"]
    assert "GODOT-TEST passed" in log, log[-4000:]
    assert not unexpected_errors(log), "\n".join(unexpected_errors(log)) + log[-3000:]
    assert set(editor_run["panel"]) >= {"validate_good", "validate_broken", "coverage",
                                        "preview_start", "preview_state", "simulate", "sweep",
                                        "imported"}


def test_the_editor_clears_port_files_of_editors_that_crashed(editor_run):
    """Issue 7: port files hold the token and a killed editor never removes its own; the panel's
    bridge removes those whose editor is gone when it starts (and its own when it stops)."""
    folder = editor_run["stale"].parent
    assert not editor_run["stale"].exists()
    assert not list(folder.glob("sorteio_editor_bridge_*")), list(folder.iterdir())


def test_the_editor_leaves_no_python_server_behind(editor_run):
    pid = editor_run["panel"]["bridge"]["data"]["pid"]
    assert pid > 0, "the panel's bridge was not running"
    assert process_gone(pid), f"the editor's server child {pid} outlived the editor"


def test_a_missing_python_is_a_clear_message_in_the_panel(tmp_path):
    project = make_project(tmp_path)
    env = editor_env(tmp_path)
    env["SORTEIO_PYTHON"] = str(tmp_path / "no-such-python")
    log = run_editor(tmp_path, project, ["--", "--expect-failure"], env=env)
    assert "GODOT-TEST passed" in log, log[-3000:]
    failure = panel_lines(log)["failure"]["data"]
    assert failure["ok"] is False
    assert "no-such-python" in failure["error"] and "SORTEIO_PYTHON" in failure["error"]
    # The importer could not validate either, and said so (a warning per deck, no crash).
    assert not [line for line in log.splitlines() if "SCRIPT ERROR" in line], log[-3000:]


def test_validate_shows_every_problem_one_row_each(editor_run, pt_br):
    project = editor_run["project"]
    good = editor_run["panel"]["validate_good"]
    assert good["data"]["valid"] is True and good["rows"] == len(good["data"]["warnings"])
    broken = editor_run["panel"]["validate_broken"]
    expected = python("validate", deck=str(project / "decks" / "quebrado.json"))
    assert broken["data"]["errors"] == expected["errors"]
    assert broken["rows"] == len(expected["errors"]) >= 3
    fields = {(r["card_id"], r["field"]) for r in broken["data"]["errors"]}
    data = broken_deck_data()
    assert (data["cartas"][0]["id"], "cartas.0.modo") in fields
    assert (data["cartas"][5]["id"], "cartas.5.titulo") in fields


def test_coverage_is_the_lint_report_as_a_table(editor_run):
    coverage = editor_run["panel"]["coverage"]
    expected = python("lint", deck=str(editor_run["project"] / "decks" / "bom.json"))
    assert coverage["data"]["problems"] == expected["problems"]
    # Sections + header rows + one row per year, mode, meter, actor...
    assert coverage["rows"] >= 4 + len(expected["modes"]) + len(expected["meters"])


def test_preview_from_the_start_and_from_a_saved_state_with_the_cli_reasons(editor_run, pt_br):
    project = editor_run["project"]
    start_from, start_cards = editor_run["panel"]["preview_start"]["data"]
    expected = python("preview", deck=str(project / "decks" / "bom.json"), seed=0)
    assert start_from == "start"
    assert start_cards == [[r["card_id"], r["reason_text"]] for r in expected["rows"]
                           if r["event"] == "card_played"]
    assert len(start_cards) == 7
    state_from, state_cards = editor_run["panel"]["preview_state"]["data"]
    expected = python("preview", deck=str(project / "decks" / "bom.json"), seed=0,
                      state=str(editor_run["state"]))
    assert state_from == "state" and state_cards
    assert state_cards == [[r["card_id"], r["reason_text"]] for r in expected["rows"]
                           if r["event"] == "card_played"]


def test_simulate_3000_matches_with_progress_interval_and_charts(editor_run):
    sim = editor_run["panel"]["simulate"]["data"]
    assert sim["matches"] == 3000
    expected = python("simulate_start", deck=str(editor_run["project"] / "decks" / "bom.json"))
    handler = RequestHandler()
    job = handler.handle({"id": 1, "method": "simulate_start", "params": {
        "deck": str(editor_run["project"] / "decks" / "bom.json")}})["result"]["job"]
    while True:
        step = handler.handle({"id": 2, "method": "simulate_step",
                               "params": {"job": job, "budget_ms": 5000}})["result"]
        if step["finished"]:
            break
    base = step["result"]["scenarios"][0]
    assert expected["total"] == 3000
    assert sim["catastrophe_pct"] == base["catastrophe_pct"]
    assert sim["low"] == base["catastrophe_ci95_low_pct"] < sim["catastrophe_pct"] < sim["high"]
    # The editor kept drawing frames while it ran, and the bar moved through several values.
    assert sim["frames"] >= 3 and len(sim["progress_seen"]) >= 3, sim
    modes, cards = sim["bars"]
    assert modes == len(base["mode_draws_per_match"]) and cards == len(base["card_draws"])


def test_a_sweep_fills_the_table_one_row_per_scenario(editor_run):
    sweep = editor_run["panel"]["sweep"]
    assert [int(t) for t, _rate in sweep["data"]["rates"]] == [3, 2, 4]
    assert sweep["rows"] == 3


def test_parar_stops_a_long_simulation(editor_run):
    stop = editor_run["panel"]["stop"]["data"]
    assert stop["busy"] is False
    assert 0 < stop["done"] < 200000 and stop["after"] == stop["done"]


def test_deck_json_files_import_as_sorteio_deck_resources_validated(editor_run):
    imported = editor_run["panel"]["imported"]["data"]
    good = imported["res://decks/bom.json"]
    # A SorteioDeck: its script is a built-in subclass of sorteio_deck.gd (the importer's
    # new_deck() says why), so `is SorteioDeck` holds.
    assert good["is_deck"] is True
    assert good["valid"] is True and good["name"] == "Padrão" and good["text"] > 1000
    broken = imported["res://decks/quebrado.json"]
    assert broken["valid"] is False and broken["problems"] >= 3
    other = imported["res://outro.json"]
    assert other["valid"] is False and other["problems"] == 0
    # Each problem of the broken deck is in the editor's Output, with its card id and field.
    log = editor_run["log"]
    warnings = [line for line in log.splitlines() if EXPECTED_WARNING.search(line)]
    assert len(warnings) >= broken["problems"]
    assert any("cartas.0.modo" in line for line in warnings)


def test_sorteio_node_plays_a_match_from_the_imported_deck_resource(editor_run):
    """In the project folder (as the editor's Play runs it), deck_resource = the imported
    SorteioDeck: the node hands Python the JSON file it came from."""
    project = editor_run["project"]
    shutil.copy(SCRIPTS / "deck_resource_match.gd", project / "deck_resource_match.gd")
    _result, log = run_godot(editor_run["tmp"], ["-s", "res://deck_resource_match.gd"],
                             env=editor_env(editor_run["tmp"]), project=project)
    assert "GODOT-TEST passed" in log, log[-3000:]
    assert "DECK SorteioDeck=True valid=True" in log
    assert re.search(r"MATCH deck=Padrão reason=\w+ cards=\d+", log), log[-2000:]
    assert not unexpected_errors(log), log[-3000:]


def test_the_exported_pack_carries_the_deck_resource_and_no_editor_script(editor_run, tmp_path):
    """Export the designer project's pack (editor files filtered out as the repo's presets do),
    then run it: a SorteioNode given the imported SorteioDeck plays a match from the pack alone
    (the deck JSON itself is not exported)."""
    project = editor_run["project"]
    presets = (ROOT / "godot3" / "export_presets.cfg").read_text("utf-8")
    presets = presets.replace('include_filter="decks/*.json"', 'include_filter=""')
    (project / "export_presets.cfg").write_text(presets, encoding="utf-8")
    shutil.copy(SCRIPTS / "deck_resource_match.gd", project / "deck_resource_match.gd")
    pack = tmp_path / "designer.pck"
    env = editor_env(editor_run["tmp"])
    _result, log = run_godot(editor_run["tmp"], ["--export-pack", "Linux/X11", str(pack)],
                             env=env, project=project)
    data = pack.read_bytes()
    assert b"res://addons/sorteio/sorteio_node.gd" in data
    assert b"res://addons/sorteio/sorteio_deck.gd" in data
    assert b"addons/sorteio/editor/" not in data, "an editor script went into the game"
    assert b"res://decks/bom.json.import" in data or b"decks/bom.json.import" in data
    played = tmp_path / "played"
    played.mkdir()
    # godot3-runner is the runtime an export template is (no editor code, "standalone"); it
    # needs a display, hence Xvfb.
    with xvfb() as display:
        env["DISPLAY"] = display
        result = subprocess.run(
            ["timeout", "-k", "5", str(TIMEOUT), tool("godot3-runner"), "--main-pack",
             str(pack), "--video-driver", "GLES2", "--audio-driver", "Dummy", "-s", "res://deck_resource_match.gd"],
            capture_output=True, text=True, env=env, cwd=played, timeout=TIMEOUT + 30)
    log = result.stdout + result.stderr
    assert "GODOT-TEST passed" in log, log[-3000:]
    assert re.search(r"MATCH deck=Padrão reason=\w+ cards=\d+", log), log[-2000:]
    assert not unexpected_errors(log), log[-3000:]


def test_export_presets_leave_the_editor_folder_out():
    presets = (ROOT / "godot3" / "export_presets.cfg").read_text("utf-8")
    for line in presets.splitlines():
        if line.startswith("exclude_filter="):
            assert "addons/sorteio/editor/*" in line


def test_panel_screenshot_under_xvfb_is_not_blank(tmp_path):
    editor = tool("godot3")
    project = make_project(tmp_path)
    state = saved_state(tmp_path)
    out = ARTIFACTS / "editor_panel.png"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    if out.exists():
        out.unlink()
    with xvfb("1280x800x24") as display:
        env = editor_env(tmp_path)
        env["DISPLAY"] = display
        log = run_editor(tmp_path, project, ["--video-driver", "GLES2", "--resolution",
                                             "1280x800", "--", f"--state={state}",
                                             f"--shot={out}"],
                         binary=os.path.basename(editor), env=env)
    assert "GODOT-TEST passed" in log, log[-3000:]
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 800)
    colours = int(re.search(r"PANEL shot .*\"colours\":(\d+)", log).group(1))
    assert colours >= 12, f"blank screenshot: {colours} colours"
    assert len(data) > 30_000, "blank screenshot"


def test_the_readmes_show_the_panel_screenshot():
    shot = ROOT / "docs" / "editor_panel.png"
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 30_000
    assert struct.unpack(">II", data[16:24]) == (1280, 800)
    assert "docs/editor_panel.png" in (ROOT / "README.md").read_text("utf-8")
    assert "../../docs/editor_panel.png" in (
        ROOT / "godot3" / "addons" / "sorteio" / "README.md").read_text("utf-8")


# Debian's 3.6 headless editor prints this a few hundred times opening any project (an empty one
# with no addon too): its dummy renderer frees textures it never made. Not ours.
GODOT36_EDITOR_NOISE = (
    (r"ERROR: VisualServer attempted to free a NULL RID", "3.6's headless editor, any project"),
)


@pytest.fixture(scope="module", params=["godot3.2", "godot3.6"])
def import_run(request, tmp_path_factory):
    """The editor opened on the designer project (importing every deck), then the probe's
    import checks only (--import-only): the Inspector on the broken deck, the Output's text,
    and the broken deck edited on disk and re-imported by a filesystem scan, as the editor does
    when a designer saves the file (issue 15 "Import"). On 3.2.3 and on 3.6."""
    tmp_path = tmp_path_factory.mktemp(f"import-{request.param}")
    project = make_project(tmp_path)
    if request.param == "godot3.2":
        binary, allowed = "godot3-server", ()
    else:
        binary, allowed = engine("godot3.6-server"), GODOT36_EDITOR_NOISE
    log = run_editor(tmp_path, project, ["--", "--import-only"], binary=binary)
    return {"log": log, "panel": panel_lines(log), "allowed": allowed, "project": project}


def test_reimporting_an_edited_deck_prints_no_engine_error(import_run):
    """Issue 15: each re-import of an edited deck printed "BUG: File queued for import, but
    can't be imported!", "Method failed." and "Another resource is loaded from path
    'res://addons/sorteio/sorteio_deck.gd' (possible cyclic resource inclusion)" on 3.2.3 (the
    scan re-imported the deck's script as a dependency). Any engine error fails this run."""
    log = import_run["log"]
    assert "GODOT-TEST passed" in log, log[-3000:]
    assert not unexpected_errors(log, import_run["allowed"]), "\n".join(
        unexpected_errors(log, import_run["allowed"]))
    # Imported when the editor opened and again after the edit (its problems printed twice;
    # printerr goes to stderr, so the order against the probe's stdout lines is lost), and the
    # resource now holds the edited text.
    printed = re.findall(r"^sorteio: res://decks/quebrado\.json não é válido: 4 problema",
                         log, re.M)
    assert len(printed) == 2, log[-3000:]
    again = import_run["panel"]["reimported"]["data"]
    assert again == {"valid": False, "problems": 4, "newline": True}


def test_the_inspector_shows_what_the_import_found_and_no_field_to_type_in(import_run, pt_br):
    """Issue 15: the Inspector's JSON text box let a designer type, then "Imported resources
    can't be saved" lost the edit. The deck's fields are stored only (PROPERTY_USAGE_STORAGE = 1:
    no PROPERTY_USAGE_EDITOR bit, so no editor for them), and a read-only summary at the top of
    the Inspector says the deck is invalid, with each problem's card id and field."""
    inspector = import_run["panel"]["inspector"]["data"]
    assert inspector["is_deck"] is True
    assert inspector["usage"] == {name: 1 for name in
                                  ("json_text", "source_path", "deck_name", "valid", "problems")}
    summary = inspector["summary"].splitlines()
    # In the run's language (pt-BR here; tests/test_godot3_i18n.py has the English run).
    assert summary[0] == "Baralho INVÁLIDO: res://decks/quebrado.json não é válido"
    data = broken_deck_data()
    assert f"erro: carta '{data['cartas'][0]['id']}': cartas.0.modo: " in "\n".join(summary)
    # The problems come from Python in the run's language (the editor runs in pt-BR here).
    expected = python("validate", deck=str(import_run["project"] / "decks" / "quebrado.json"))
    (title,) = [e for e in expected["errors"] if e["field"] == "cartas.5.titulo"]
    assert f"erro: carta '{data['cartas'][5]['id']}': cartas.5.titulo: {title['message']}" \
        in summary
    assert summary[-1].startswith("Importado de res://decks/quebrado.json: edite esse arquivo")


def test_the_output_shows_each_problem_with_its_section_sign(import_run, pt_br):
    """Issue 15: the Output dropped "§" (a pushed warning reaches it as a Latin-1 C string) and
    prefixed each line with the engine's C++ file. The importer prints its lines: the warning
    reads as Python wrote it."""
    expected = python("validate", deck=str(import_run["project"] / "decks" / "aviso.json"))
    (warning,) = expected["warnings"]
    assert "§" in warning["message"]
    line = (f"sorteio aviso: res://decks/aviso.json: carta '{warning['card_id']}': "
            f"{warning['field']}: {warning['message']}")
    output = [row.strip() for row in import_run["panel"]["output"]["data"]]
    assert line in output, output
    assert not [row for row in output if ".cpp:" in row], output
    assert "sorteio: res://decks/quebrado.json não é válido: 4 problema(s); o painel Sorteio " \
           "os lista (Validar)" in output
    # The panel in the same language (issue 15; the English run: tests/test_godot3_i18n.py).
    texts = import_run["panel"]["panel_texts"]["data"]
    assert {"Validar", "Cobertura", "Prévia", "Simular"} <= set(texts["buttons"]), texts
    assert texts["tabs"] == ["Problemas", "Cobertura", "Prévia", "Simulação"], texts


@pytest.mark.parametrize("godot", ["godot3.2", "godot3.6"])
def test_running_the_demo_from_the_editor_leaves_its_files_unchanged(tmp_path, godot):
    """Issue 15: pressing Play with the demo's main scene open rewrote main.tscn (+17 lines: the
    positions the editor's layout gave its containers, saved before every run; header_view.tscn
    too when open). The demo's scripts build their children; each .tscn holds its root alone. A
    copy of the demo (this repo's addon linked, the probe plugin beside it) is opened in the
    headless editor, every scene of the demo is opened, Play is pressed, and every file of the
    demo must be as it was."""
    game = scratch_demo(tmp_path / "game")
    (game / "addons" / "editor_probe").symlink_to(PROBE)
    settings = (game / "project.godot").read_text(encoding="utf-8")
    enabled = 'enabled=PoolStringArray( "sorteio" )'
    assert enabled in settings
    (game / "project.godot").write_text(
        settings.replace(enabled, 'enabled=PoolStringArray( "sorteio", "editor_probe" )'),
        encoding="utf-8")
    files = [p for p in game.rglob("*") if p.is_file() and not p.is_symlink()
             and ".import" not in p.parts and p.suffix in (".tscn", ".gd", ".tres", ".json")]
    before = {p: p.read_bytes() for p in files}
    assert game / "main.tscn" in before and len(before) >= 10
    env = editor_env(tmp_path)
    user_dir = tmp_path / "xdg" / "godot" / "app_userdata" / "Sorteio demo"
    user_dir.mkdir(parents=True, exist_ok=True)
    binary, allowed = "godot3-server", ()
    if godot == "godot3.6":
        binary, allowed = engine("godot3.6-server"), GODOT36_EDITOR_NOISE
    log = run_editor(tmp_path, game, ["--", "--play-main"], binary=binary, env=env)
    assert "GODOT-TEST passed" in log, log[-3000:]
    assert panel_lines(log)["played"]["data"] == {"playing": True}
    # Saving a scene makes its thumbnail from the viewport, which the headless editor's dummy
    # renderer has no pixels for (3.2 and 3.6 word the line differently).
    allowed += ((r'ERROR: .*Condition "!t" is true\. Returned: Ref<Image>\(\)',
                 "headless thumbnail"),)
    # No allowance for "Cannot open file 'res://.import/padrao.json-...'": that race came from
    # a stale padrao.json.import that scratch_demo copied from the checkout (it copies none now).
    assert not unexpected_errors(log, allowed), "\n".join(unexpected_errors(log, allowed))
    changed = [str(p.relative_to(game)) for p, data in before.items() if p.read_bytes() != data]
    assert not changed, f"Play rewrote {changed}"
    assert (game / "main.tscn").read_text("utf-8") == (DEMO / "main.tscn").read_text("utf-8")


def test_an_invalid_deck_is_marked_in_the_filesystem_dock(import_run):
    """Issue 15: an invalid deck looked like any other file in the FileSystem dock. Godot 3 lets
    a plugin change no file's look there, so the addon colours the dock's own item of each
    invalid deck (red) and gives it a tooltip naming the file and its problem count; a valid
    deck and a JSON file that is not a deck stay as the dock made them."""
    dock = import_run["panel"]["dock"]["data"]
    assert dock["res://decks/quebrado.json"] == (
        "res://decks/quebrado.json não é válido: 4 problema(s); a Saída e o painel Sorteio os "
        "listam")
    assert "não é válido" not in dock["res://decks/bom.json"]
    assert "não é válido" not in dock["res://outro.json"]
