"""``make dist``: the release zip, laid out like a Godot Asset Library download.

    python scripts/dist.py [--out build/dist]

Builds the ``sorteio`` wheel (``pip wheel``), then ``sorteio-<version>.zip`` holding one top folder
``sorteio-<version>/`` with ``addons/sorteio/`` (the addon, its LICENSE, README and icons, and the
wheel in ``addons/sorteio/wheel/``, which Godot ignores through a ``.gdignore``), ``INSTALL.md``,
``LICENSE``, ``CHANGELOG.md``. The Asset Library installer drops the top folder, so a project
gets ``addons/sorteio/`` with the wheel inside. Prints the zip's path. The version is the one
``pyproject.toml`` and ``plugin.cfg`` share (it fails when they differ).
"""

import argparse
import os
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
   .venv/bin/pip install addons/sorteio/wheel/{wheel}
   ```

   The wheel is pure Python (every platform): `sorteio simulate` then uses its Python kernel
   (same numbers, slower); `pip install` of the source builds the compiled one.
   (Windows: `py -m venv .venv` then `.venv\\Scripts\\pip install addons\\sorteio\\wheel\\{wheel}`.)

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
        wheel = build_wheel(Path(tmp))
        with zipfile.ZipFile(target, "w", zipfile.ZIP_DEFLATED) as zf:
            for path, rel in addon_files():
                zf.write(path, f"{top}/addons/sorteio/{rel.as_posix()}")
            zf.write(wheel, f"{top}/addons/sorteio/wheel/{wheel.name}")
            zf.writestr(f"{top}/addons/sorteio/wheel/.gdignore", "")
            zf.writestr(f"{top}/INSTALL.md", INSTALL.format(version=ver, wheel=wheel.name))
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
