"""scripts/pythonscript.sh: where pythonscript comes from, its checksum, the install into a project.

The engine tests over the python bridge (tests/test_godot_engine.py) use what it installs; these
check the script's own promises: exit 3 with how to get pythonscript when there is none, a
checksum that does not match SHA256SUMS is refused, nothing is written beside the dist, and a
project gets the addon and its `[gdnative]` singleton once.
"""

import hashlib
import os
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.godot  # tooling of the engine tests (bash, tar); not a core test

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "scripts" / "pythonscript.sh"


def run(*args, dist=None, cwd=ROOT):
    env = dict(os.environ)
    env.pop("PYTHONSCRIPT_DIST", None)
    if dist is not None:
        env["PYTHONSCRIPT_DIST"] = str(dist)
    return subprocess.run(
        ["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=900
    )


def test_a_missing_dist_exits_3_with_how_to_get_pythonscript(tmp_path):
    result = run("runtime", dist=tmp_path / "nope.tar.bz2")
    assert result.returncode == 3
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "0.50" in lines[0] and "build.sh" in lines[0] and "PYTHONSCRIPT_DIST" in lines[0]


def test_an_archive_that_does_not_match_its_sha256sums_is_refused(tmp_path):
    archive = tmp_path / "pythonscript-0.50.0-x11-64-test.tar.bz2"
    archive.write_bytes(b"not the real one")
    wrong = hashlib.sha256(b"something else").hexdigest()
    (tmp_path / "SHA256SUMS").write_text(f"{wrong}  {archive.name}\n")
    result = run("runtime", dist=archive)
    assert result.returncode == 1
    assert "checksum mismatch" in result.stderr
    (tmp_path / "SHA256SUMS").write_text(f"{wrong}  another-file.tar.bz2\n")
    result = run("runtime", dist=archive)
    assert result.returncode == 1 and "not listed" in result.stderr


def test_a_folder_without_pythonscript_is_refused(tmp_path):
    result = run("runtime", dist=tmp_path)
    assert result.returncode == 1 and "not a pythonscript folder" in result.stderr


@pytest.fixture(scope="module")
def dist():
    where = run("where")
    if where.returncode == 3:
        if os.environ.get("CI"):
            pytest.fail(f"no pythonscript in CI: {where.stderr.strip()}")
        pytest.skip(where.stderr.strip())
    assert where.returncode == 0, where.stderr
    return Path(where.stdout.strip())


def test_install_adds_the_addon_and_the_singleton_once_and_writes_nothing_beside_the_dist(
    tmp_path, dist
):
    beside = sorted((p.name, p.stat().st_mtime_ns) for p in dist.parent.iterdir())
    project = tmp_path / "game"
    project.mkdir()
    (project / "project.godot").write_text(
        'config_version=4\n\n[application]\n\nconfig/name="game"\n', encoding="utf-8"
    )
    for _ in range(2):
        result = run("install", str(project))
        assert result.returncode == 0, result.stderr
    text = (project / "project.godot").read_text(encoding="utf-8")
    assert text.count("[gdnative]") == 1
    assert text.count('singletons=[ "res://pythonscript.gdnlib" ]') == 1
    assert (project / "pythonscript.gdnlib").is_file()
    python = project / "addons" / "pythonscript" / "x11-64" / "bin" / "python3"
    check = subprocess.run(
        [str(python), "-c", "import sys, pydantic, sorteio.bridge.inprocess as m; "
         "print(sys.version_info[:2], pydantic.VERSION, m.__file__)"],
        capture_output=True,
        text=True,
    )
    assert check.returncode == 0, check.stderr
    assert check.stdout.startswith("(3, 8) 2.10.")
    # sorteio is installed in the embedded interpreter, not taken from this checkout
    assert str(project) in check.stdout.split()[-1]
    assert sorted((p.name, p.stat().st_mtime_ns) for p in dist.parent.iterdir()) == beside
