"""``make dist``: the release zip installs into a new Godot project from the zip alone.

The zip is unzipped into an empty folder, the project is made as INSTALL.md says (the plugin
enabled with the two project.godot entries the editor writes), the wheel from the zip is
installed into a new venv, the editor opens the project (plugin loaded, no GDScript error),
and the addon README's example plays whole matches over the socket bridge with that venv's
Python.
"""

import importlib.util
import io
import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from godot4_harness import engine_errors, import_project
from godot4_python_runtime import NOISE
from hidden_python import run_hidden
from test_editor import project_godot, unexpected_errors
from test_export import BUILTIN_DECK, ERRORS, GAME3, g3_export, held_display
from test_godot4_export import TEMPLATE_NOISE, export, game_project, runs_here
from test_godot_engine import ROOT, TIMEOUT, godot_env, run_script, tool, xvfb

# make dist builds the Godot 4 zip with its in-process runtime (CPython 3.12 pip): the main
# suite runs these; test-oldest (CPython 3.8) leaves them with the engine tests.
pytestmark = pytest.mark.godot

VERSION = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text("utf-8"),
                    re.M).group(1)


@pytest.fixture(scope="module")
def dist_zips(tmp_path_factory):
    """Both release zips, {line: path}, from one `make dist` (scripts/dist.py)."""
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, str(ROOT / "scripts" / "dist.py"), "--out", str(out)],
                          capture_output=True, text=True, timeout=1200)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    paths = [Path(line) for line in proc.stdout.strip().splitlines()[-2:]]
    assert paths == [out / f"sorteio-{VERSION}-{line}.zip" for line in ("godot4", "godot3")]
    assert all(path.exists() for path in paths)
    return dict(zip(("godot4", "godot3"), paths))


@pytest.fixture(scope="module")
def dist_zip(dist_zips):
    """The Godot 3 zip."""
    return dist_zips["godot3"]


def _links(markdown: str) -> list:
    """The relative link targets of a Markdown page, outside code (in_process.md quotes
    ``Array[StringName]([])``, which is no link)."""
    prose = re.sub(r"```.*?```|`[^`\n]*`", "", markdown, flags=re.S)
    return re.findall(r"\]\(([^)#:]+)(?:#[^)]*)?\)", prose)


def test_versions_agree_and_the_license_is_in_both_places():
    for addon in (ROOT / "addons" / "sorteio", ROOT / "godot3" / "addons" / "sorteio"):
        assert f'version="{VERSION}"' in (addon / "plugin.cfg").read_text("utf-8"), addon
    assert f"## [{VERSION}]" in (ROOT / "CHANGELOG.md").read_text("utf-8")
    root_license = (ROOT / "LICENSE").read_text("utf-8")
    assert root_license.startswith("MIT License")
    for addon in (ROOT / "addons" / "sorteio", ROOT / "godot3" / "addons" / "sorteio"):
        assert (addon / "LICENSE").read_text("utf-8") == root_license, addon
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text("utf-8")


@pytest.mark.godot
def test_the_zip_has_the_asset_library_layout(dist_zip):
    top = f"sorteio-{VERSION}-godot3/"
    names = zipfile.ZipFile(dist_zip).namelist()
    assert all(n.startswith(top) for n in names)
    inside = {n[len(top):] for n in names}
    for needed in ("INSTALL.md", "LICENSE", "CHANGELOG.md", "addons/sorteio/plugin.cfg",
                   "addons/sorteio/LICENSE", "addons/sorteio/README.md",
                   "addons/sorteio/sorteio_node.gd", "addons/sorteio/sorteio_deck.gd",
                   "addons/sorteio/editor/plugin.gd", "addons/sorteio/editor/panel.gd",
                   "addons/sorteio/icons/sorteio_node.svg", "addons/sorteio/icons/sorteio_deck.svg",
                   f"addons/sorteio/wheel/sorteio-{VERSION}-py3-none-any.whl",
                   "addons/sorteio/wheel/install.py", "addons/sorteio/wheel/.gdignore",
                   "addons/sorteio/docs/reference.md", "addons/sorteio/sorteio_card.gd",
                   "addons/sorteio/sorteio_option.gd", "addons/sorteio/bridges/scripted_bridge.gd"):
        assert needed in inside, needed
    assert not [n for n in inside if "__pycache__" in n or n.endswith((".pyc", ".import"))]
    # The user guide, the reference and INSTALL.md: every link lands on a file of the zip.
    for page in ("addons/sorteio/README.md", "addons/sorteio/docs/reference.md", "INSTALL.md"):
        text = zipfile.ZipFile(dist_zip).read(top + page).decode("utf-8")
        for target in _links(text):
            where = os.path.normpath(Path(top) / page / ".." / target).replace(os.sep, "/")
            assert where in names, (page, target)


@pytest.mark.godot
def test_the_install_steps_from_the_zip_alone_play_a_match(dist_zip, tmp_path):
    game = tmp_path / "novo_jogo"
    unpacked = tmp_path / "unpacked"
    zipfile.ZipFile(dist_zip).extractall(unpacked)
    source = unpacked / f"sorteio-{VERSION}-godot3"
    install = (source / "INSTALL.md").read_text("utf-8")
    # Step 1: copy addons/sorteio into the project (a real copy, no link to this repository).
    game.mkdir()
    subprocess.run(["cp", "-r", str(source / "addons"), str(game / "addons")], check=True)
    # Step 2: the plugin enabled, as project.godot records it (both entries INSTALL.md shows).
    assert 'Sorteio="*res://addons/sorteio/sorteio_node.gd"' in install
    assert 'enabled=PoolStringArray( "sorteio" )' in install
    (game / "project.godot").write_text(project_godot("Sorteio demo"), encoding="utf-8")
    # Step 3: the wheel inside the zip, into a new venv (its dependencies from the index).
    installer = "addons/sorteio/wheel/install.py"
    assert f".venv/bin/python {installer}" in install
    venv = game / ".venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    pip = subprocess.run([str(venv / "bin" / "python"), str(game / installer), "-q",
                          "--disable-pip-version-check"],
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
    # In a venv: a bare pip install fails on Debian 12 and Ubuntu (PEP 668).
    venv = game / ".venv"
    assert f"python3 -m venv {venv} && {venv / 'bin' / 'python'} {game / installer}" in hint, hint


# -- the compiled kernel in the zip (issue 16) ----------------------------------------------------

def _installer():
    spec = importlib.util.spec_from_file_location("install_wheel",
                                                  ROOT / "scripts" / "install_wheel.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_dist_that_stops_half_way_leaves_no_zip(tmp_path, monkeypatch):
    """QA: `make dist` without the in-process runtime stopped with its message but left a 14.5 MB
    Godot 4 zip without the runtime, easy to ship by mistake. The zip is written under a
    ``.part`` name and renamed when whole; an older zip of the same name goes first."""
    spec = importlib.util.spec_from_file_location("sorteio_dist", ROOT / "scripts" / "dist.py")
    dist = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(dist)
    older = tmp_path / f"sorteio-{dist.version()}-godot4.zip"
    older.write_bytes(b"an older build")

    def half_way(target, *args):
        target.write_bytes(b"the addon, no runtime")
        raise SystemExit("dist: the Godot 4 in-process runtime could not be made")

    monkeypatch.setattr(dist, "_write_zip", half_way)
    with pytest.raises(SystemExit):
        dist.make_zip(tmp_path, "godot4", [Path("a.whl"), Path("b.whl")], "here", ("x", {}))
    assert list(tmp_path.iterdir()) == []


def test_the_installer_picks_the_compiled_wheel_only_where_it_loads():
    """install.py: the manylinux wheel for the same CPython on the same machine with a glibc at
    least the tag's; the pure wheel for another version, machine, an older glibc or no glibc."""
    choose = _installer().choose
    pure = "sorteio-0.1.0-py3-none-any.whl"
    compiled = "sorteio-0.1.0-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.whl"
    both = [pure, compiled]
    assert choose(both, "cp311", "x86_64", (2, 36)) == compiled
    assert choose(both, "cp311", "x86_64", (2, 17)) == compiled
    assert choose(both, "cp311", "x86_64", (2, 12)) == pure  # older glibc than the tag
    assert choose(both, "cp312", "x86_64", (2, 36)) == pure  # another CPython
    assert choose(both, "cp38", "x86_64", (2, 36)) == pure
    assert choose(both, "cp311", "aarch64", (2, 36)) == pure  # another machine
    assert choose(both, "cp311", "x86_64", None) == pure  # musl, macOS, Windows
    assert choose(both, "py3", "x86_64", (2, 36)) == pure  # PyPy and others
    with pytest.raises(LookupError):
        choose([compiled], "cp312", "x86_64", (2, 36))


def test_the_zip_ships_a_manylinux_wheel_tagged_for_this_glibc(dist_zip):
    """The compiled wheel is repaired by auditwheel: a manylinux tag no newer than the glibc it
    was built on, for this interpreter's CPython version, with the kernel inside."""
    names = zipfile.ZipFile(dist_zip).namelist()
    compiled = [n for n in names if "manylinux" in n and n.endswith(".whl")]
    assert len(compiled) == 1, names
    name = compiled[0].rsplit("/", 1)[1]
    py = f"cp{sys.version_info[0]}{sys.version_info[1]}"
    assert f"-{py}-{py}-" in name
    tags = [tuple(map(int, t)) for t in re.findall(r"manylinux_(\d+)_(\d+)_x86_64", name)]
    glibc = tuple(int(x) for x in os.confstr("CS_GNU_LIBC_VERSION").split()[-1].split(".")[:2])
    assert tags and max(tags) <= glibc, (name, glibc)
    inner = zipfile.ZipFile(io.BytesIO(zipfile.ZipFile(dist_zip).read(compiled[0]))).namelist()
    assert any(n.startswith("sorteio/sim/_ckernel") and n.endswith(".so") for n in inner)


def test_the_zips_installer_gives_a_fresh_venv_the_compiled_kernel(dist_zip, tmp_path):
    """Installing from the zip alone (install.py, as INSTALL.md says) into a new venv of this
    Python: `sorteio simulate` there runs the compiled kernel, from the venv, not this checkout."""
    zipfile.ZipFile(dist_zip).extractall(tmp_path)
    wheel_dir = tmp_path / f"sorteio-{VERSION}-godot3" / "addons" / "sorteio" / "wheel"
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = str(venv / "bin" / "python")
    proc = subprocess.run([python, str(wheel_dir / "install.py"), "--extras=cli", "-q",
                           "--disable-pip-version-check"], capture_output=True, text=True,
                          timeout=600, cwd=tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "compiled kernel" in proc.stdout and "manylinux" in proc.stdout, proc.stdout
    check = subprocess.run(
        [python, "-c", "import sorteio.sim.kernels as k, sorteio; print(k.kernel_name(), "
                       "sorteio.__file__)"],
        capture_output=True, text=True, check=True, cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SORTEIO_KERNEL")})
    kernel, where = check.stdout.split()
    assert kernel == "c" and where.startswith(str(venv)), check.stdout
    run = subprocess.run([str(venv / "bin" / "sorteio"), "simulate", "--matches", "200",
                          "--json"], capture_output=True, text=True, cwd=tmp_path, timeout=300,
                         env={k: v for k, v in os.environ.items() if k != "SORTEIO_KERNEL"})
    assert run.returncode == 0 and json.loads(run.stdout)["kernel"] == "c", run.stderr


# -- the Godot 4 zip (issue 13) -------------------------------------------------------------------

EXTENSION = "addons/godot-python-extension"


@pytest.mark.godot
def test_the_godot4_zip_has_the_addon_the_wheels_and_the_in_process_runtime(dist_zips):
    top = f"sorteio-{VERSION}-godot4/"
    names = zipfile.ZipFile(dist_zips["godot4"]).namelist()
    assert all(n.startswith(top) for n in names)
    inside = {n[len(top):] for n in names}
    for needed in ("INSTALL.md", "LICENSE", "CHANGELOG.md", "sorteio.pyextension",
                   "addons/sorteio/plugin.cfg", "addons/sorteio/sorteio_node.gd",
                   "addons/sorteio/sorteio_card.gd", "addons/sorteio/sorteio_deck.gd",
                   "addons/sorteio/bridges/socket_bridge.gd",
                   "addons/sorteio/bridges/python_bridge.gd", "addons/sorteio/editor/plugin.gd",
                   f"addons/sorteio/wheel/sorteio-{VERSION}-py3-none-any.whl",
                   "addons/sorteio/wheel/install.py", "addons/sorteio/wheel/.gdignore",
                   f"{EXTENSION}/python.gdextension",
                   f"{EXTENSION}/licenses/CPython.LICENSE.txt"):
        assert needed in inside, needed
    site = [n for n in inside if "/site-packages/sorteio/" in n]
    assert any(n.endswith("/site-packages/sorteio/engine.py") for n in site), "no rules inside"
    assert not [n for n in inside if "/site-packages/click/" in n or "/site-packages/pip/" in n]
    # The panel's .xlsx in the editor (the runtime's `sheets` extra), with its licence.
    for package in ("openpyxl/__init__.py", "et_xmlfile/__init__.py", "openpyxl-",
                    "et_xmlfile-"):
        assert [n for n in inside if f"/site-packages/{package}" in n], package
    assert [n for n in inside if "/site-packages/openpyxl-" in n and n.endswith("/LICENCE.rst")]
    assert not [n for n in inside if "__pycache__" in n or n.endswith((".pyc", ".import", ".uid"))]
    for readme in ("addons/sorteio/README.md", "INSTALL.md"):  # links resolve inside the zip
        text = zipfile.ZipFile(dist_zips["godot4"]).read(top + readme).decode("utf-8")
        for target in _links(text):
            where = (Path(top) / readme).parent / target
            assert os.path.normpath(where).replace(os.sep, "/") in names, (readme, target)
    # A project that copied only addons/sorteio/: every link of every document inside it
    # resolves inside that folder (issue 13 QA: ../../docs/ and ../../CHANGELOG.md broke).
    addon = top + "addons/sorteio/"
    for doc in [n for n in names if n.startswith(addon) and n.endswith(".md")]:
        text = zipfile.ZipFile(dist_zips["godot4"]).read(doc).decode("utf-8")
        for target in _links(text):
            where = os.path.normpath(Path(doc).parent / target).replace(os.sep, "/")
            assert where.startswith(addon) and where in names, (doc, target)
    install = zipfile.ZipFile(dist_zips["godot4"]).read(top + "INSTALL.md").decode("utf-8")
    assert 'enabled=PackedStringArray("res://addons/sorteio/plugin.cfg")' in install
    assert "glibc >= 2.35" in install and "Windows and macOS" in install


@pytest.mark.godot
def test_the_godot4_zip_installed_into_a_new_project_plays_a_match_in_process(dist_zips, tmp_path):
    """INSTALL.md's steps from the zip alone: addons/ and sorteio.pyextension copied into a new
    Godot 4 project, the plugin enabled; a whole match plays on the in-process bridge (the
    extension's own Python, with the rules the zip carries)."""
    from godot4_harness import import_project, make_project, run_script
    from godot4_python_runtime import NOISE, only_upstream_tracebacks

    unpacked = tmp_path / "unpacked"
    zipfile.ZipFile(dist_zips["godot4"]).extractall(unpacked)
    source = unpacked / f"sorteio-{VERSION}-godot4"
    game = make_project(
        tmp_path / "novo_jogo", name="novo jogo", link_addon=False, import_now=False,
        settings={"editor_plugins": {"enabled": 'PackedStringArray("res://addons/sorteio/plugin.cfg")'}},
    )
    subprocess.run(["cp", "-r", str(source / "addons"), str(game)], check=True)
    subprocess.run(["cp", str(source / "sorteio.pyextension"), str(game)], check=True)
    # What the editor writes when it first opens a project holding a .gdextension (step 3).
    (game / ".godot").mkdir(exist_ok=True)
    (game / ".godot" / "extension_list.cfg").write_text(f"res://{EXTENSION}/python.gdextension\n")
    only_upstream_tracebacks(import_project(game, allowed=NOISE))
    run = run_script(game, "test_autoplay.gd", "--seed=5", home=tmp_path / "home", allowed=NOISE)
    only_upstream_tracebacks(run.log)
    run.passed()
    assert run.lines("BRIDGE") == ["python"], run.tail()
    assert run.lines("MATCH seed=5"), run.tail()


# -- the frozen server in both zips: a zip user exports the socket bridge (issue 14) ----------

FROZEN = "addons/sorteio/frozen/linux-x86_64"


@pytest.mark.parametrize("line", ["godot4", "godot3"])
def test_both_zips_carry_the_frozen_server_where_the_export_plugins_look(dist_zips, line):
    top = f"sorteio-{VERSION}-{line}/"
    names = set(zipfile.ZipFile(dist_zips[line]).namelist())
    for needed in ("addons/sorteio/frozen/.gdignore", f"{FROZEN}/sorteio-serve",
                   f"{FROZEN}/licenses/cpython/LICENSE.txt"):
        assert top + needed in names, needed
    decks = [n for n in names if n.startswith(f"{top}{FROZEN}/sorteio-serve-lib/sorteio/decks/")]
    assert any(n.endswith("/padrao.json") for n in decks), "the built-in decks are not frozen in"
    info = zipfile.ZipFile(dist_zips[line]).getinfo(f"{top}{FROZEN}/sorteio-serve")
    assert (info.external_attr >> 16) & 0o111, "the server is not executable in the zip"


def _unpacked_addon(zip_path: Path, line: str, where: Path) -> Path:
    """addons/sorteio/ as the zip installs it (extracted by zipfile, like the Asset Library:
    no file mode kept, so the export plugins must make the server executable)."""
    zipfile.ZipFile(zip_path).extractall(where)
    return where / f"sorteio-{VERSION}-{line}" / "addons" / "sorteio"


@pytest.mark.export
def test_a_godot4_game_from_the_zip_exports_the_socket_bridge_and_plays_with_no_python(
    dist_zips, tmp_path
):
    """A new Godot 4 game with only addons/sorteio/ from the zip (the socket route of
    INSTALL.md: no extension), exported with Godot's own --export-release: the frozen server
    lands beside the executable, and a whole match plays from another folder with every Python
    of the machine hidden."""
    addon = _unpacked_addon(dist_zips["godot4"], "godot4", tmp_path / "unpacked")
    project = game_project(tmp_path / "game", "g4zip", addon=addon)
    import_project(project)
    out = tmp_path / "out"
    out.mkdir()
    log = export(project, "Linux", out / "game.x86_64", tmp_path / "export_home")
    assert log.startswith("exit 0"), log[-3000:]
    assert os.access(out / "sorteio-serve", os.X_OK), sorted(os.listdir(out))
    runs_here(out / "game.x86_64")
    log, *_ = run_hidden(tmp_path, [f"'{out / 'game.x86_64'}' --headless -- --seed=31"],
                         whole_checkout=False)
    unexpected, _unused = engine_errors(log, (*NOISE, *TEMPLATE_NOISE))
    assert not unexpected, "\n".join(unexpected) + log[-3000:]
    assert "GAME bridge socket" in log, log[-3000:]
    assert re.search(r'GAME ending \{.*"reason":"[a-z_]+".*\} after \d+ cards', log), log[-3000:]


@pytest.mark.export
def test_a_godot3_game_from_the_zip_exports_the_socket_bridge_and_plays_with_no_python(
    dist_zips, tmp_path
):
    """The same on Godot 3: a new game with addons/sorteio/ from the zip, exported with
    --export-pack (no export templates here), run with godot3-runner (what a template is) from
    another folder with every Python hidden: a whole match on the frozen server."""
    addon = _unpacked_addon(dist_zips["godot3"], "godot3", tmp_path / "unpacked")
    project = tmp_path / "game"
    shutil.copytree(GAME3, project)
    (project / "decks").mkdir()
    shutil.copy(BUILTIN_DECK, project / "decks" / "meu.json")
    shutil.copytree(addon, project / "addons" / "sorteio")
    out = tmp_path / "out"
    log = g3_export(project, "Linux/X11", out / "game.pck", tmp_path / "export_home")
    assert log.startswith("exit 0"), log[-3000:]
    assert os.access(out / "sorteio-serve", os.X_OK), sorted(os.listdir(out))
    user = tmp_path / "home" / "data" / "godot" / "app_userdata" / "g3export"
    user.mkdir(parents=True)  # Godot 3.2 logs an error making it (see test_godot_engine)
    run = f"godot3-runner --audio-driver Dummy --main-pack '{out / 'game.pck'}' -- --seed=31"
    with xvfb() as display:
        log, *_ = run_hidden(tmp_path, held_display([run]), env={"DISPLAY": display})
    assert not [line for line in log.splitlines() if ERRORS.search(line)], log[-3000:]
    assert "GAME bridge socket" in log, log[-3000:]
    assert re.search(r'GAME ending \{.*"reason":"[a-z_]+".*\} after \d+ cards', log), log[-3000:]


def test_the_package_says_the_version_the_release_carries():
    """`sorteio.__version__` (named in the bridge's "save is newer" message) is pyproject's."""
    import sorteio

    assert sorteio.__version__ == VERSION
