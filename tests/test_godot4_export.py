"""A game using the Godot 4 addon's in-process bridge, exported with Godot's own
``--export-release`` (issue 13, issue 14 "Export any project, in one step"), plays a whole match
from another working folder with every Python of the machine hidden, and leaves nothing behind.

The game is a new small project (tests/godot4/export_game/, not the demo): a main scene that
plays one match through SorteioPythonBridge. The addon's export plugin
(addons/sorteio/editor/export_plugin.gd, registered here by a test-only EditorPlugin until the
addon's plugin.gd does it) adds the extension's Python home with sorteio in it, the extension's
API cache into the pack, and leaves out what a game never runs. The export template is Debian's
``godot-template-release`` from scripts/engines.sh. Python is hidden as tests/test_export.py
does for Godot 3 (``unshare -m`` bind mounts), except the engines' folder, which holds the
template's C library and no Python.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from engines import engine
from godot4_harness import engine_errors, godot_env, import_project, make_project
from godot4_python_runtime import NOISE, install_extension, only_upstream_tracebacks
from test_export import hidden_pythons, interpreters

pytestmark = [pytest.mark.godot, pytest.mark.export]

ROOT = Path(__file__).resolve().parents[1]
GAME = ROOT / "tests" / "godot4" / "export_game"
TIMEOUT = 300
# What the headless editor prints while exporting that is not ours, each with why.
EXPORT_NOISE = (
    *NOISE,
    (
        r'ERROR: Parameter "RenderingServer::get_singleton\(\)" is null',
        "the Python extension's editor integration makes icon textures in a headless editor, "
        "which has no RenderingServer left when they are freed at exit (upstream's)",
    ),
    (
        r"ERROR: \d+ RID allocations of type .*DummyTexture.* were leaked at exit",
        "the same icon textures of the extension's editor integration, reported at exit",
    ),
)


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The game exported for Linux x86-64: (export folder, export log)."""
    where = tmp_path_factory.mktemp("g4export")
    project = make_project(
        where / "game", name="g4export", autoload=False, import_now=False, link_addon=False,
        settings={
            "application": {"run/main_scene": '"res://main.tscn"'},
            "editor_plugins": {
                "enabled": 'PackedStringArray("res://addons/sorteio_export_test/plugin.cfg")'
            },
        },
    )
    (project / "tests").unlink()  # the harness's link to the scenarios: not part of this game
    shutil.copytree(ROOT / "addons" / "sorteio", project / "addons" / "sorteio")
    shutil.copytree(GAME / "addons" / "sorteio_export_test",
                    project / "addons" / "sorteio_export_test")
    for name in ("main.gd", "main.tscn"):
        shutil.copy(GAME / name, project / name)
    template = os.path.realpath(engine("godot4-template-release"))
    presets = (GAME / "export_presets.cfg.in").read_text(encoding="utf-8")
    (project / "export_presets.cfg").write_text(presets.replace("@TEMPLATE@", template))
    install_extension(project)
    only_upstream_tracebacks(import_project(project, allowed=NOISE))
    out = where / "out"
    out.mkdir()
    log = export(project, "Linux", out / "game.x86_64", where / "home")
    return out, log, project


def export(project: Path, preset: str, target: Path, home: Path) -> str:
    result = subprocess.run(
        ["timeout", "-k", "5", str(TIMEOUT), engine("godot4"), "--headless", "--path",
         str(project), "--export-release", preset, str(target)],
        capture_output=True, text=True, env=godot_env(home), timeout=TIMEOUT + 30,
    )
    return f"exit {result.returncode}\n{result.stdout}{result.stderr}"


def test_export_carries_the_runtime_and_nothing_a_game_never_runs(exported):
    out, log, _project = exported
    assert log.startswith("exit 0"), log[-4000:]
    unexpected, _unused = engine_errors(log, EXPORT_NOISE)
    assert not unexpected, "\n".join(unexpected) + log[-3000:]
    only_upstream_tracebacks(log)
    home = out / "lib" / "linux-x86_64"
    site = home / "python3.12" / "site-packages"
    assert (out / "game.pck").is_file() and (out / "libpython3.12.so.1.0").is_file()
    assert (out / "libgodot-python.linux.x86_64.so").is_file()
    assert (home / "python312.zip").is_file() and (home / "python3.12" / "lib-dynload").is_dir()
    for package in ("sorteio", "pydantic", "pydantic_core"):
        assert (site / package).is_dir(), package
    left_out = ("__pycache__", "pip", "setuptools", ".gdignore", "click", "rich", "tests")
    never = [p for p in out.rglob("*") if p.name in left_out]
    assert not never, never
    strays = [p.name for p in out.iterdir() if ".cpython-" in p.name]
    assert not strays, f"extension modules out of their package beside the game: {strays}"
    packed = _pack_paths(out / "game.pck")
    assert ".python/extension_api.json.gz" in packed, packed
    # The addon's Python side, with the fixes that keep upstream's tracebacks out of the game.
    for name in ("sorteio_loader.py", "sorteio_extension.py", "upstream_fixes.py"):
        assert f"addons/sorteio/python/{name}" in packed, packed
    assert "sorteio.pyextension" not in packed, packed
    size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())
    print(f"exported game folder: {size / 1e6:.1f} MB (Python home {_size(home) / 1e6:.1f} MB)")


def test_exported_game_plays_matches_with_no_python_and_leaves_nothing(exported, tmp_path):
    out, _log, _project = exported
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        if os.environ.get("CI"):
            pytest.fail("hiding Python needs unshare -m as root")
        pytest.skip("hiding Python needs unshare -m as root")
    game = tmp_path / "player" / "game"
    shutil.copytree(out, game, symlinks=True)
    before = _listing(game)
    elsewhere, temp, home = tmp_path / "elsewhere", tmp_path / "tmp", tmp_path / "home"
    for folder in (elsewhere, temp, home):
        folder.mkdir()
    empty_dir, empty_file = tmp_path / "empty_dir", tmp_path / "empty_file"
    empty_dir.mkdir()
    empty_file.write_bytes(b"")
    hidden = {p: kind for p, kind in hidden_pythons().items() if p != str(ROOT)}
    # The checkout's Pythons (not the whole checkout: build/engines holds the template's C
    # library, and no Python).
    for name in (".venv", ".venv-oldest", "python", "build/gdextension", "build/pythonscript"):
        if (ROOT / name).exists():
            hidden[str((ROOT / name).resolve())] = "dir"
    lines = ["set -e"]
    lines += [f"mount --bind '{empty_dir if kind == 'dir' else empty_file}' '{path}'"
              for path, kind in hidden.items()]
    lines.append("export PATH=/usr/bin:/bin")
    for name in ("python3", "python", *interpreters()):
        lines.append(f"if '{name}' -c 1 2>/dev/null; then echo 'STILL RUNS {name}'; exit 99; fi")
    lines += ["echo 'NO-PYTHON ok'", f"cd '{elsewhere}'",
              # Three whole matches, then one game killed with SIGKILL mid-start (no clean-up
              # code of ours runs): none may leave a file anywhere.
              f"for seed in 5 6 7; do '{game / 'game.x86_64'}' --headless -- --seed=$seed; done",
              f"timeout -s KILL 2 '{game / 'game.x86_64'}' --headless -- --seed=8 "
              ">/dev/null 2>&1 || true"]
    script = tmp_path / "no_python.sh"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "en_US.UTF-8",
           "XDG_DATA_HOME": str(home / "data"), "XDG_CONFIG_HOME": str(home / "config"),
           "XDG_CACHE_HOME": str(home / "cache"), "TMPDIR": str(temp)}
    result = subprocess.run(
        ["timeout", "-k", "5", str(TIMEOUT), unshare, "-m", "bash", str(script)],
        capture_output=True, text=True, env=env, timeout=TIMEOUT + 30,
    )
    log = result.stdout + result.stderr
    assert "NO-PYTHON ok" in log, log[-3000:]
    assert result.returncode == 0, log[-3000:]
    unexpected, _unused = engine_errors(log, NOISE)
    assert not unexpected, "\n".join(unexpected) + log[-3000:]
    only_upstream_tracebacks(log)
    assert log.count("GAME bridge python") == 3, log[-3000:]
    endings = re.findall(r'GAME ending \{.*"reason":"[a-z_]+".*\} after \d+ cards', log)
    assert len(endings) == 3, log[-3000:]
    # Nothing left behind: the game's folder as shipped, the working and temp folders empty,
    # and user:// holds only Godot's own log.
    assert _listing(game) == before
    assert not list(elsewhere.iterdir()) and not list(temp.iterdir())
    user = home / "data" / "godot" / "app_userdata" / "g4export"
    left = [p.relative_to(user).as_posix() for p in user.rglob("*") if p.is_file()]
    assert all(name.startswith("logs/godot") for name in left), left


def test_web_export_is_refused_with_a_clear_message(exported, tmp_path):
    _out, _log, project = exported
    (tmp_path / "web").mkdir()
    log = export(project, "Web", tmp_path / "web" / "index.html", tmp_path / "home")
    assert "Sorteio: the Web cannot run the in-process Python runtime" in log, log[-3000:]
    assert not log.startswith("exit 0"), log[-3000:]


def _pack_paths(pack: Path) -> set:
    """The file paths a Godot 4 .pck's directory lists (each a little-endian length, then the
    path; read loosely: enough to tell which of our files went in)."""
    names = re.findall(rb"[\x04-\x7f]\x00\x00\x00((?:\.godot|\.python|addons|main|project|sorteio)"
                       rb"[\x20-\x7e]*?)\x00", pack.read_bytes())
    return {name.decode() for name in names}


def _listing(folder: Path) -> dict:
    return {p.relative_to(folder).as_posix(): p.stat().st_size
            for p in sorted(folder.rglob("*")) if p.is_file()}


def _size(folder: Path) -> int:
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file())
