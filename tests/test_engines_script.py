"""scripts/engines.sh's entry points (build/engines/bin/*) are relative links: a build/engines
shared between checkouts as a symlink (what the project's helpers do with `ln -s
/work/main/build/engines build/engines`) must not end up with links running through whichever
checkout ran the script last, which break once that checkout is removed (QA h-qa13: a run of
`make export` in a helper's worktree pointed main's build/engines/bin/godot4 into it)."""

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BINARIES = {"sid": ("godot", "godot-template-release", "godot-template-debug"),
            "trixie": ("godot3-server", "godot3-runner")}


@pytest.mark.skipif(shutil.which("patchelf") is None, reason="patchelf not installed")
def test_engine_entry_points_survive_the_checkout_that_made_them(tmp_path):
    """Both lines cached (no download, nothing patched again): the script only links and asks
    each entry point its version. Run through checkout B, whose build/engines is a link to
    checkout A's; once B is gone, A's entry points still run."""
    shared = tmp_path / "a" / "build" / "engines"
    for line, names in BINARIES.items():
        (shared / line).mkdir(parents=True)
        (shared / line / ".done").touch()
        for folder in ("root/usr/bin", "patched"):
            (shared / line / folder).mkdir(parents=True)
            for name in names:
                fake = shared / line / folder / name
                fake.write_text(f"#!/bin/sh\necho '{line} {name} 1.0'\n")
                fake.chmod(0o755)
    other = tmp_path / "b"
    (other / "scripts").mkdir(parents=True)
    shutil.copy2(ROOT / "scripts" / "engines.sh", other / "scripts" / "engines.sh")
    (other / "build").mkdir()
    (other / "build" / "engines").symlink_to(shared)
    result = subprocess.run(["bash", str(other / "scripts" / "engines.sh")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout + result.stderr
    shutil.rmtree(other)
    for name in ("godot4", "godot4-template-release", "godot4-template-debug",
                 "godot3.6-server", "godot3.6-runner"):
        link = shared / "bin" / name
        assert not os.path.isabs(os.readlink(link)), (name, os.readlink(link))
        assert subprocess.run([str(link)], capture_output=True, text=True).stdout.endswith("1.0\n")
