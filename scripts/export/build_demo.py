"""``make export``: the demos as a player gets them, one folder per bridge, under build/export/.

    python scripts/export/build_demo.py [--out DIR] [--variant V] [--install-server PROJECT]

The Godot 4 demo (``demo_project/``): ``godot4-socket/`` and ``godot4-python/``, each Godot's own
export with the addon's export plugin adding what its bridge needs (scripts/export/godot4.py).
``--install-server PROJECT`` puts the frozen server into any Godot 4 project (its
``addons/sorteio/frozen/linux-x86_64/``), where the export plugin takes it from.

The Godot 3 demo (``godot3/demo_project/``): ``socket/`` and ``python/``. Each folder holds the
game's pack (``godot3-server --export-pack "Linux/X11"``: it needs no
export templates; the deck is inside the pack), a launcher (``sorteio_demo.sh``: what an export
template's binary does, run with Debian's ``godot3-runner``), and what the rules need beside it:

- ``socket/``: ``sorteio-serve``, the socket server frozen by PyInstaller into one folder
  (``sorteio-serve`` + ``sorteio-serve-lib/``, scripts/export/sorteio_serve.py); the node finds
  it beside the game before any Python.
- ``python/``: pythonscript's runtime (CPython 3.8 with sorteio and pydantic 2.10) where the
  ``.gdnlib`` says, ``addons/pythonscript/x11-64/``, relative to the current folder of the game
  (Godot 3 resolves ``res://`` paths outside the pack that way), and the bridge script
  ``addons/sorteio/python/sorteio_python_bridge.py`` beside the pack too (pythonscript imports a
  script by its module name from the game folder); the launcher changes to the game folder.

No shipped file holds an absolute path of this machine: the build folder, the checkout and the
CPython prefix the pythonscript build was made from are scrubbed (``scrub``) and then searched
for, inside zip files and the frozen executable too (``leaks``); a leak fails the build.

Exit codes: 0 built; 3 pythonscript missing (scripts/pythonscript.sh says how to get it); 4 the
freezer (PyInstaller, from PyPI) cannot be installed; 1 any other failure.
"""

import argparse
import functools
import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Tuple

sys.path.insert(0, str(Path(__file__).resolve().parent))
import godot4  # scripts/export/godot4.py, beside this script

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "godot3" / "demo_project"
HERE = Path(__file__).resolve().parent
PRESET = "Linux/X11"
PACK = "sorteio_demo.pck"
LAUNCHER = "sorteio_demo.sh"
FROZEN = "sorteio-serve"
# The one-folder server's libraries, beside its executable (PyInstaller's --contents-directory).
FROZEN_LIB = "sorteio-serve-lib"
PLATFORM = "x11-64"
PYINSTALLER_SPEC = "pyinstaller>=6.3,<7"
# What the shipped runtime does not need: build headers, tests, GUI toolkits, pip itself.
RUNTIME_DROPS = (
    "bin",
    "include",
    "lib/pkgconfig",
    "lib/python3.8/config-3.8-x86_64-linux-gnu",
    "lib/python3.8/site-packages/pip",
    "lib/python3.8/site-packages/setuptools",
    "lib/python3.8/site-packages/_distutils_hack",
    "lib/python3.8/site-packages/pkg_resources",
    "lib/python3.8/site-packages/distutils-precedence.pth",
)
RUNTIME_DROP_GLOBS = (
    "lib/python3.8/site-packages/pip-*.dist-info",
    "lib/python3.8/site-packages/setuptools-*.dist-info",
    "lib/python3.8/site-packages/*.dist-info/direct_url.json",
    "lib/python3.8/lib-dynload/_test*",
    "lib/python3.8/lib-dynload/_xxtestfuzz*",
    "lib/python3.8/lib-dynload/_tkinter*",
    "lib/python3.8/lib-dynload/xxlimited*",
)
PLACEHOLDER = "/.build-path-removed"


class BuildError(Exception):
    """The export cannot be built: ``code`` is the exit code (3, 4 or 1)."""

    def __init__(self, message: str, code: int = 1) -> None:
        super().__init__(message)
        self.code = code


def say(message: str) -> None:
    print(f"export: {message}", file=sys.stderr, flush=True)


def run(command: List[str], log: Path, **kwargs) -> subprocess.CompletedProcess:
    """Run ``command``, its output kept in ``log``; BuildError (with the log's end) on failure."""
    env = dict(os.environ, LANG="en_US.UTF-8", PIP_ROOT_USER_ACTION="ignore")
    env.pop("LC_ALL", None)
    result = subprocess.run(command, capture_output=True, text=True, env=env, **kwargs)
    log.parent.mkdir(parents=True, exist_ok=True)
    log.write_text(result.stdout + result.stderr, encoding="utf-8")
    if result.returncode != 0:
        tail = (result.stdout + result.stderr)[-2000:]
        raise BuildError(f"{command[0]} failed (exit {result.returncode}, log {log}):\n{tail}")
    return result


def digest(paths: Iterable[Path], *extra: str) -> str:
    h = hashlib.sha256()
    for text in extra:
        h.update(text.encode())
    for path in sorted(paths):
        h.update(str(path.relative_to(ROOT)).encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def sorteio_sources() -> List[Path]:
    return [p for p in (ROOT / "python" / "sorteio").rglob("*") if p.is_file()
            and "__pycache__" not in p.parts]


# -- the pack -----------------------------------------------------------------------------------


def scratch_project(dest: Path) -> Path:
    """A copy of the demo with the addon's link resolved (the checkout is never written to)."""
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(DEMO, dest, symlinks=False,
                    ignore=shutil.ignore_patterns(".import", "*.import", "docs"))
    return dest


def export_pack(project: Path, pack: Path, logs: Path) -> None:
    godot = shutil.which("godot3-server")
    if godot is None:
        raise BuildError("godot3-server not found (scripts/godot_tests.sh --install-only)")
    pack.parent.mkdir(parents=True, exist_ok=True)
    if pack.exists():
        pack.unlink()
    command = ["timeout", "-k", "5", "300", godot, "--path", str(project),
               "--export-pack", PRESET, str(pack)]
    result = run(command, logs / f"export-{pack.parent.name}.log")
    if not pack.is_file():
        raise BuildError(f"godot3-server wrote no {pack}:\n{result.stdout[-2000:]}")


def write_launcher(folder: Path, cd_first: bool) -> None:
    # What an export template's binary does (it loads the .pck named after it), with Debian's
    # godot3-runner. The python variant's runtime is found relative to the current folder.
    lines = [
        "#!/bin/sh",
        "# Runs the exported demo: the pack beside this file, with the Godot 3.2 runtime",
        "# (Debian: apt-get install godot3-runner). Options after -- go to the game,",
        "# e.g. ./sorteio_demo.sh -- --autoplay",
        'here="$(cd "$(dirname "$0")" && pwd)"',
    ]
    if cd_first:
        lines.append('cd "$here" || exit 1  # pythonscript is found from the current folder')
    lines.append(f'exec "${{GODOT_RUNNER:-godot3-runner}}" --main-pack "$here/{PACK}" "$@"')
    target = folder / LAUNCHER
    target.write_text("\n".join(lines) + "\n", encoding="utf-8")
    target.chmod(0o755)


# -- socket variant: the frozen server ------------------------------------------------------------


def freeze_venv(build: Path, logs: Path) -> Path:
    """A venv holding only the freezer and sorteio's runtime needs, so nothing else is frozen in
    (the project's .venv also has test tools; hypothesis alone pulls numpy into a freeze)."""
    import pydantic  # the version the project's own venv tested

    venv = build / ".freeze-venv"
    spec = f"{PYINSTALLER_SPEC} pydantic=={pydantic.VERSION} {freezing_python()}"
    python = venv / "bin" / "python"
    if python.exists() and (venv / ".spec").is_file() and (venv / ".spec").read_text() == spec:
        return python
    say(f"installing the freezer into {venv} ({PYINSTALLER_SPEC}, from PyPI)")
    if venv.exists():
        shutil.rmtree(venv)
    run([freezing_python(), "-m", "venv", str(venv)], logs / "freeze-venv.log")
    try:
        run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check",
             PYINSTALLER_SPEC, f"pydantic=={pydantic.VERSION}"], logs / "freeze-pip.log")
    except BuildError as exc:
        raise BuildError(f"cannot install the freezer ({PYINSTALLER_SPEC}): {exc}", 4) from None
    (venv / ".spec").write_text(spec, encoding="utf-8")
    return python


def freezing_python() -> str:
    """The Python frozen into the server: the distribution's own when it has venv (installed at
    the standard prefix, so the libraries PyInstaller copies name no folder of this machine, as
    a pyenv build's do), else the one running this script (the leak check then tells)."""
    system = "/usr/bin/python3"
    probe = [system, "-c", "import ensurepip, venv"]
    if os.path.exists(system) and subprocess.run(probe, capture_output=True).returncode == 0:
        return system
    return sys.executable


def frozen_server(build: Path, logs: Path) -> Path:
    """The frozen server as a folder (``sorteio-serve`` + ``sorteio-serve-lib/``), cached in
    build/export/.cache/ by what goes into it.

    One folder (``--onedir``), not one file: a one-file executable unpacks itself into a
    ``_MEI*`` folder of the temp folder at every start (22 MB) and only its bootloader removes
    it, which a game killed with SIGKILL (or a server it SIGKILLs) never lets happen (issue 14,
    "Nothing left behind"). The one-folder server runs in place, as one process, and writes
    nothing anywhere. Its libraries sit in ``sorteio-serve-lib/`` (not PyInstaller's generic
    ``_internal``), so the game's folder says whose they are."""
    python = freeze_venv(build, logs)
    entry = HERE / "sorteio_serve.py"
    versions = subprocess.run(
        [str(python), "-c", "import PyInstaller, pydantic, sys; "
         "print(PyInstaller.__version__, pydantic.VERSION, sys.version)"],
        capture_output=True, text=True, check=True).stdout
    # The server never runs the simulator's C kernel (sorteio.sim.ckernel falls back without
    # it); the in-tree build of it (pip install -e) links the build machine's Python and holds
    # its paths, which the leak check refuses.
    options = ["--exclude-module", "sorteio.sim._ckernel", "--contents-directory", FROZEN_LIB]
    key = digest([entry, *sorteio_sources()], versions, "onedir", *options)
    cached = build / ".cache" / f"{FROZEN}-{key}"
    if (cached / FROZEN).is_file():
        return cached
    say("freezing sorteio serve with PyInstaller (one folder)")
    work = build / ".cache" / "pyinstaller"
    if work.exists():
        shutil.rmtree(work)
    decks = ROOT / "python" / "sorteio" / "decks"
    locale = ROOT / "python" / "sorteio" / "locale"  # the message catalogs (issue 15)
    run([str(python), "-m", "PyInstaller", "--onedir", "--strip", "--noconfirm", "--clean",
         "--log-level", "WARN", "--name", FROZEN, "--paths", str(ROOT / "python"),
         "--add-data", f"{decks}{os.pathsep}sorteio/decks",
         "--add-data", f"{locale}{os.pathsep}sorteio/locale",
         "--distpath", str(work / "dist"), "--workpath", str(work / "work"),
         "--specpath", str(work), *options, str(entry)], logs / "pyinstaller.log")
    for old in cached.parent.glob(f"{FROZEN}-*"):
        shutil.rmtree(old) if old.is_dir() else old.unlink()
    shutil.move(str(work / "dist" / FROZEN), str(cached))
    shutil.rmtree(work)
    return cached


def copy_frozen(server: Path, folder: Path) -> None:
    """The frozen server's executable and its library folder into ``folder`` (beside a game)."""
    shutil.copy2(server / FROZEN, folder / FROZEN)
    shutil.copytree(server / FROZEN_LIB, folder / FROZEN_LIB, symlinks=True)


# What the frozen server is made of besides sorteio, named by the freeze venv's own metadata.
LICENCES = r'''
import json, sysconfig
from importlib import metadata
from pathlib import Path
tools = {"pip", "setuptools", "altgraph", "packaging", "pyinstaller-hooks-contrib"}
found = {"cpython": [str(Path(sysconfig.get_paths()["stdlib"]) / "LICENSE.txt")]}
for dist in metadata.distributions():
    name = dist.metadata["Name"].lower()
    if name not in tools:
        found[name] = [str(dist.locate_file(f)) for f in dist.files or []
                       if any(w in str(f).lower() for w in ("licen", "copying"))]
print(json.dumps(found))
'''


def copy_licences(freezer_python: Path, folder: Path) -> None:
    """licenses/<project>/: the licence texts of what the frozen server bundles (CPython,
    pydantic and its dependencies, PyInstaller's bootloader), which a shipped game must carry."""
    result = subprocess.run([str(freezer_python), "-c", LICENCES], capture_output=True,
                            text=True, check=True)
    for name, files in json.loads(result.stdout).items():
        for file in map(Path, files):
            if file.is_file():
                (folder / "licenses" / name).mkdir(parents=True, exist_ok=True)
                shutil.copy2(file, folder / "licenses" / name / file.name)


def build_socket(out: Path, build: Path, logs: Path) -> Path:
    folder = out / "socket"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    server = frozen_server(build, logs)
    project = scratch_project(build / ".work" / "socket_project")
    export_pack(project, folder / PACK, logs)
    copy_frozen(server, folder)
    copy_licences(build / ".freeze-venv" / "bin" / "python", folder)
    write_launcher(folder, cd_first=False)
    return folder


# -- python variant: pythonscript's runtime beside the pack ---------------------------------------


def pythonscript(command: str, *args: str) -> str:
    result = subprocess.run(["bash", str(ROOT / "scripts" / "pythonscript.sh"), command, *args],
                            capture_output=True, text=True)
    if result.returncode == 3:
        raise BuildError(result.stderr.strip().splitlines()[-1], 3)
    if result.returncode != 0:
        raise BuildError(f"scripts/pythonscript.sh {command} failed:\n{result.stderr[-2000:]}")
    return result.stdout.strip().splitlines()[-1]


@functools.lru_cache(maxsize=None)
def pythonscript_runtime() -> Path:
    """scripts/pythonscript.sh's cached runtime (asked once: it checksums the dist each time)."""
    return Path(pythonscript("runtime"))


def build_python(out: Path, build: Path, logs: Path, paths: List[str]) -> Path:
    folder = out / "python"
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    runtime = shipped_runtime(pythonscript_runtime(), build, logs, paths)
    project = scratch_project(build / ".work" / "python_project")
    pythonscript("install", str(project))
    # The exporting editor loads pythonscript too, so the bridge's .py is exported as a script.
    export_pack(project, folder / PACK, logs)
    # The addon's export plugin put pythonscript's runtime, the bridge and a launcher beside the
    # pack, as for any game; the demo ships the runtime trimmed, stripped and scrubbed further.
    shutil.rmtree(folder / "addons" / "pythonscript")
    shutil.copytree(runtime, folder / "addons" / "pythonscript", symlinks=True)
    entry = Path("addons") / "sorteio" / "python" / "sorteio_python_bridge.py"
    (folder / entry).parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(ROOT / "godot3" / entry, folder / entry)
    # pythonscript imports the bridge script from the game folder and would write its .pyc in a
    # __pycache__ beside it at the first start: ship it compiled (unchecked hash: used as is,
    # never rewritten), so a player's folder stays as shipped (issue 14, "Nothing left behind").
    python38 = pythonscript_runtime() / "addons" / "pythonscript" / PLATFORM / "bin" / "python3"
    run([str(python38), "-m", "compileall", "-q", "--invalidation-mode", "unchecked-hash",
         "-d", str(entry.parent), str((folder / entry).parent)], logs / "compile_bridge.log")
    write_launcher(folder, cd_first=True)
    return folder


def shipped_runtime(runtime: Path, build: Path, logs: Path, paths: List[str]) -> Path:
    """addons/pythonscript/ as it ships: trimmed and scrubbed, cached in build/export/.cache/
    by the runtime (itself keyed by pythonscript's checksum and sorteio's sources) and by this
    script."""
    key = f"{runtime.name}-{digest([Path(__file__).resolve()], *paths)}"
    cached = build / ".cache" / f"runtime-{key}"
    done = cached.with_name(cached.name + ".done")
    if done.is_file():
        return cached
    for old in cached.parent.glob("runtime-*"):
        shutil.rmtree(old) if old.is_dir() else old.unlink()
    say("trimming pythonscript's runtime for shipping")
    work = cached.with_name(cached.name + ".tmp")
    shutil.copytree(runtime / "addons" / "pythonscript", work, symlinks=True)
    python38 = runtime / "addons" / "pythonscript" / PLATFORM / "bin" / "python3"
    trim_runtime(work / PLATFORM, python38, logs)
    scrub(work, paths)
    run([str(python38), str(HERE / "precompile_zip.py"),
         str(work / PLATFORM / "lib" / "python38.zip")], logs / "precompile_zip.log")
    work.rename(cached)
    done.write_text(key, encoding="utf-8")
    return cached


def trim_runtime(home: Path, python38: Path, logs: Path) -> None:
    """Drop what a game does not run, and compile the packages pip installed again, free of the
    install folder's path (the .pyc files pip wrote name it)."""
    for rel in RUNTIME_DROPS:
        target = home / rel
        if target.is_dir() and not target.is_symlink():
            shutil.rmtree(target)
        elif target.exists() or target.is_symlink():
            target.unlink()
    for pattern in RUNTIME_DROP_GLOBS:
        for target in home.glob(pattern):
            shutil.rmtree(target) if target.is_dir() else target.unlink()
    for cache in list(home.rglob("__pycache__")):
        shutil.rmtree(cache)
    site = home / "lib" / "python3.8" / "site-packages"
    # The names a traceback shows are relative; Python fixes them up to the real file at import.
    run([str(python38), "-m", "compileall", "-q", "-j", "0",
         "-d", "site-packages", str(site)], logs / "compileall.log")


# -- Godot 4: the demo exported by Godot with the addon's export plugin --------------------------


def _godot4(step, *args):
    try:
        return step(*args)
    except (RuntimeError, FileNotFoundError) as exc:
        raise BuildError(str(exc)) from None


def install_server(project: Path, build: Path, logs: Path) -> Path:
    """The frozen server (with its licences) into a Godot 4 project, for its exports."""
    server = frozen_server(build, logs)
    freezer = build / ".freeze-venv" / "bin" / "python"
    return godot4.install_server(server, project, copy_frozen,
                                 lambda home: copy_licences(freezer, home))


def build_godot4(variant: str, out: Path, build: Path, logs: Path, paths: List[str]) -> Path:
    project = _godot4(godot4.scratch_project, build / ".work" / f"{variant}_project")
    if variant == "godot4-socket":
        install_server(project, build, logs)
    else:
        result = subprocess.run(["bash", str(ROOT / "scripts" / "gdextension.sh"), "install",
                                 str(project)], capture_output=True, text=True)
        if result.returncode == 3:
            raise BuildError(result.stderr.strip().splitlines()[-1], 3)
        if result.returncode != 0:
            raise BuildError(f"scripts/gdextension.sh install failed:\n{result.stderr[-2000:]}")
    folder = _godot4(godot4.export, project, out / variant, logs)
    # The extension's CPython was built under ~/.pyenv: its libraries and _sysconfigdata name
    # that folder (unused at run time), as pythonscript's do; same-length placeholders here.
    scrub(folder, paths)
    return folder


# -- no path of this machine in what ships --------------------------------------------------------


def build_paths(runtime_prefixes: Iterable[str]) -> List[str]:
    """Absolute paths of this machine a shipped file must not hold (longest first)."""
    # The checkout as a folder ("ROOT/"): a short checkout path alone could match unrelated bytes.
    paths = {str(ROOT) + os.sep, str(Path.home() / ".pyenv"), *runtime_prefixes}
    return sorted((p for p in paths if len(p) > 4), key=len, reverse=True)


def runtime_prefixes() -> List[str]:
    """Where the pythonscript build's CPython was configured and built (its sysconfig)."""
    try:
        home = pythonscript_runtime() / "addons" / "pythonscript" / PLATFORM
    except BuildError:
        return []
    code = ("import json, sysconfig; v = sysconfig.get_config_vars(); print(json.dumps([v.get(k) "
            "for k in ('prefix', 'exec_prefix', 'abs_srcdir', 'abs_builddir', 'srcdir')]))")
    result = subprocess.run([str(home / "bin" / "python3"), "-c", code],
                            capture_output=True, text=True, check=True)
    found = [p for p in json.loads(result.stdout) if p and os.path.isabs(p)]
    return [p for p in found if not str(home).startswith(p)]


def same_length(path: str) -> bytes:
    return (PLACEHOLDER + "_" * len(path))[: len(path)].encode()


def scrub(folder: Path, paths: List[str]) -> List[str]:
    """Overwrite ``paths`` in the shipped libraries (unused leftovers of the CPython build: a
    removed RPATH string, the compiled-in prefix pythonscript overrides with the folder of
    libpythonscript.so) and in python38.zip's _sysconfigdata, by a placeholder of the same
    length. Returns the files changed."""
    changed = []
    needles = [(p.encode(), same_length(p)) for p in paths]
    for file in folder.rglob("*"):
        if not file.is_file() or file.is_symlink():
            continue
        if file.suffix == ".zip":
            if _scrub_zip(file, needles):
                changed.append(str(file.relative_to(folder)))
            continue
        if ".so" not in file.name:
            continue
        subprocess.run(["strip", "--strip-debug", str(file)], check=False, capture_output=True)
        data = original = file.read_bytes()
        for needle, replacement in needles:
            data = data.replace(needle, replacement)
        if data != original:
            file.write_bytes(data)
            changed.append(str(file.relative_to(folder)))
    return changed


def _scrub_zip(file: Path, needles: List[Tuple[bytes, bytes]]) -> bool:
    with zipfile.ZipFile(file) as source:
        members = [(info, source.read(info)) for info in source.infolist()]
    fixed = []
    for info, data in members:
        for needle, replacement in needles:
            data = data.replace(needle, replacement)
        fixed.append((info, data))
    if all(a[1] == b[1] for a, b in zip(members, fixed)):
        return False
    tmp = file.with_suffix(".zip.tmp")
    with zipfile.ZipFile(tmp, "w") as target:
        for info, data in fixed:
            target.writestr(info, data)
    tmp.replace(file)
    return True


def contents(file: Path, freezer_python: Optional[Path] = None) -> Iterator[Tuple[str, bytes]]:
    """Every byte string a shipped file carries: itself, and the members of a zip or of a
    PyInstaller executable (decompressed), each named ``file!member``."""
    data = file.read_bytes()
    yield str(file), data
    if data[:4] == b"PK\x03\x04":
        with zipfile.ZipFile(file) as archive:
            for name in archive.namelist():
                yield f"{file}!{name}", archive.read(name)
    elif file.name.startswith(FROZEN) and freezer_python is not None:
        dump = subprocess.run([str(freezer_python), str(HERE / "frozen_contents.py"), str(file)],
                              capture_output=True, check=True).stdout
        for name, member in _unpack_dump(dump):
            yield f"{file}!{name}", member


def _unpack_dump(dump: bytes) -> Iterator[Tuple[str, bytes]]:
    at = 0
    while at < len(dump):
        name_len, size = int.from_bytes(dump[at:at + 4], "big"), int.from_bytes(
            dump[at + 4:at + 12], "big")
        at += 12
        name = dump[at:at + name_len].decode()
        at += name_len
        yield name, dump[at:at + size]
        at += size


def leaks(
    folder: Path, paths: List[str], freezer_python: Optional[Path] = None
) -> Dict[str, List[str]]:
    """{file or file!member: [paths it holds]} over every file under ``folder``."""
    found: Dict[str, List[str]] = {}
    needles = [(p, p.encode()) for p in paths]
    for file in sorted(folder.rglob("*")):
        if not file.is_file() or file.is_symlink():
            continue
        for name, data in contents(file, freezer_python):
            hits = [p for p, needle in needles if needle in data]
            if hits:
                found[str(Path(name).relative_to(folder)) if "!" not in name
                      else name.replace(str(folder) + "/", "")] = hits
    return found


def size_mb(folder: Path) -> float:
    total = sum(f.stat().st_size for f in folder.rglob("*") if f.is_file() and not f.is_symlink())
    return round(total / 1e6, 1)


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=ROOT / "build" / "export")
    variants = ("socket", "python", *godot4.VARIANTS)
    parser.add_argument("--variant", choices=(*variants, "all"), default="all")
    parser.add_argument("--install-server", type=Path, metavar="PROJECT",
                        help="put the frozen server into this Godot 4 project, then stop")
    args = parser.parse_args(argv)
    out = args.out.resolve()
    build = out
    logs = out / "logs"
    wanted = variants if args.variant == "all" else (args.variant,)
    sizes = {}
    if args.install_server is not None:
        try:
            say(f"frozen server in {install_server(args.install_server.resolve(), build, logs)}")
        except BuildError as exc:
            say(str(exc))
            return exc.code
        return 0
    try:
        paths = build_paths(runtime_prefixes() if "python" in wanted else [])
        for variant in wanted:
            if variant == "socket":
                folder = build_socket(out, build, logs)
            elif variant == "python":
                folder = build_python(out, build, logs, paths)
            else:
                folder = build_godot4(variant, out, build, logs, paths)
            freezer = build / ".freeze-venv" / "bin" / "python"
            found = leaks(folder, paths, freezer if "socket" in variant else None)
            if found:
                listed = "\n".join(f"  {name}: {', '.join(hits)}" for name, hits in found.items())
                raise BuildError(f"{folder} holds paths of this machine:\n{listed}")
            sizes[variant] = {"folder": str(folder.relative_to(out)), "mb": size_mb(folder)}
            say(f"{variant}: {folder} ({sizes[variant]['mb']} MB)")
    except BuildError as exc:
        say(str(exc))
        return exc.code
    shutil.rmtree(build / ".work", ignore_errors=True)
    record = out / "sizes.json"
    known = json.loads(record.read_text(encoding="utf-8")) if record.is_file() else {}
    known.update(sizes)
    record.write_text(json.dumps(known, indent=1, sort_keys=True), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
