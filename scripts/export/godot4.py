"""The Godot 4 demo as a player gets it, one folder per bridge (``make export``; issues 13, 14).

Imported by build_demo.py. Each variant is Godot's own export (``--export-release "Linux"``,
the top-level export_presets.cfg, Debian's release template from scripts/engines.sh) of a copy
of ``demo_project/`` with the addon's editor plugin enabled, so that the addon's export plugin
(addons/sorteio/editor/export_plugin.gd) adds what the bridge needs, as in any game's export:

- ``godot4-python/``: the project holds the Python GDExtension with sorteio in its own Python
  (scripts/gdextension.sh install); the plugin puts the embedded Python beside the executable.
- ``godot4-socket/``: the project holds the frozen server in ``addons/sorteio/frozen/
  linux-x86_64/`` (what ``build_demo.py --install-server PROJECT`` puts in any project); the
  plugin copies it beside the executable, where the node finds it first.

A player runs ``./sorteio_demo.x86_64`` (``-- --autoplay`` plays by itself).
"""

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Callable, List

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "demo_project"
PRESETS = ROOT / "export_presets.cfg"
ENGINES = ROOT / "build" / "engines" / "bin"
EXECUTABLE = "sorteio_demo.x86_64"
PRESET = "Linux"
PLUGIN = "res://addons/sorteio/plugin.cfg"
FROZEN_HOME = Path("addons") / "sorteio" / "frozen" / "linux-x86_64"
VARIANTS = ("godot4-socket", "godot4-python")
TIMEOUT = 600
SCRIPT_ERRORS = re.compile(r"SCRIPT ERROR|Parse Error|ERROR: Failed to load script")


def engine(name: str) -> str:
    path = ENGINES / name
    if not path.exists():
        raise FileNotFoundError(f"{path} is missing (scripts/engines.sh installs it)")
    return os.path.realpath(path)


def scratch_project(dest: Path) -> Path:
    """A copy of the Godot 4 demo (the addon's link resolved), its editor plugin enabled and its
    presets naming the release template (the checkout is never written to)."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(DEMO, dest, symlinks=False,
                    ignore=shutil.ignore_patterns(".godot", "docs", "*.uid", "frozen"))
    settings = (dest / "project.godot").read_text(encoding="utf-8")
    if "[editor_plugins]" not in settings:
        settings += f'\n[editor_plugins]\n\nenabled=PackedStringArray("{PLUGIN}")\n'
    (dest / "project.godot").write_text(settings, encoding="utf-8")
    presets = PRESETS.read_text(encoding="utf-8")
    template = engine("godot4-template-release")
    presets = re.sub(r'^custom_template/release=""$', f'custom_template/release="{template}"',
                     presets, flags=re.M)
    (dest / "export_presets.cfg").unlink(missing_ok=True)  # the link to the top-level file
    (dest / "export_presets.cfg").write_text(presets, encoding="utf-8")
    return dest


def install_server(server: Path, project: Path, copy_frozen: Callable[[Path, Path], None],
                   licences: Callable[[Path], None]) -> Path:
    """The frozen server (a folder from build_demo.frozen_server) into ``project`` where the
    export plugin looks for it, with the licences it must ship with and a .gdignore (the editor
    neither imports nor packs it). Returns that folder."""
    home = project / FROZEN_HOME
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    (home.parent / ".gdignore").write_text("", encoding="utf-8")
    copy_frozen(server, home)
    licences(home)
    return home


def godot(project: Path, args: List[str], log: Path, home: Path) -> str:
    env = dict(os.environ, LANG="en_US.UTF-8", HOME=str(home),
               XDG_DATA_HOME=str(home / "data"), XDG_CONFIG_HOME=str(home / "config"),
               XDG_CACHE_HOME=str(home / "cache"))
    env.pop("LC_ALL", None)
    result = subprocess.run(
        ["timeout", "-k", "5", str(TIMEOUT), engine("godot4"), "--headless", "--path",
         str(project), *args], capture_output=True, text=True, env=env)
    text = result.stdout + result.stderr
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(text, encoding="utf-8")
    # Godot goes on after a script error (an export plugin that failed to compile exports a
    # game without what its bridge needs), so the log decides too.
    broken = [line for line in text.splitlines() if SCRIPT_ERRORS.search(line)]
    if result.returncode != 0 or broken:
        raise RuntimeError(f"godot4 {' '.join(args)} failed (exit {result.returncode}, log "
                           f"{log}):\n" + "\n".join(broken) + text[-2000:])
    return text


def export(project: Path, folder: Path, logs: Path) -> Path:
    """Import ``project`` once, then export it for players into ``folder``."""
    name = folder.name
    home = project.parent / f".{name}-home"
    godot(project, ["--import"], logs / f"import-{name}.log", home)
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    godot(project, ["--export-release", PRESET, str(folder / EXECUTABLE)],
          logs / f"export-{name}.log", home)
    if not (folder / EXECUTABLE).is_file():
        raise RuntimeError(f"godot4 wrote no {folder / EXECUTABLE} (log {logs})")
    # The template from scripts/engines.sh is patched to run on this machine (its loader and
    # libraries unpacked under build/engines/): the player's copy gets the standard loader and
    # no RUNPATH back, as Debian's template has, and no path of this machine.
    executable = folder / EXECUTABLE
    rpath = subprocess.run(["patchelf", "--print-rpath", str(executable)], capture_output=True,
                           text=True, check=True).stdout.strip()
    subprocess.run(["patchelf", "--set-interpreter", "/lib64/ld-linux-x86-64.so.2",
                    "--remove-rpath", str(executable)], check=True)
    if rpath:  # patchelf leaves the unused string behind: blank it, same length
        data = executable.read_bytes()
        executable.write_bytes(data.replace(rpath.encode(), b"\0" * len(rpath.encode())))
    shutil.rmtree(home, ignore_errors=True)
    return folder
