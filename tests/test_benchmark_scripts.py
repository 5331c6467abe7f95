"""The benchmark scripts whose figures the READMEs quote still run (not a timing test: one
match, figures ignored). The Godot 3 bridge benchmark broke silently once the node's private
``_deck_for_python`` returned the deck params (a Dictionary) instead of a path: a SCRIPT ERROR,
then Godot 3 idled until the 600 s timeout and the table was never printed (QA h-qa13)."""

import shutil
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_bridges  # noqa: E402


@pytest.mark.skipif(shutil.which("godot3-server") is None, reason="godot3-server not installed")
def test_bench_bridges_socket_process_reports_every_measure():
    """bridges_compare.gd on the socket bridge, one match: a BENCH line for each measure the
    README's Godot 3 column quotes, the raw draw request included."""
    project = bench_bridges.project()
    lines = bench_bridges.run_one(project, "socket", "", 1, sys.executable, timeout=120)
    measures = {line["measure"] for line in lines}
    wanted = {name for name, _label, _unit in bench_bridges.MEASURES}
    assert wanted <= measures, sorted(wanted - measures)
    assert all(line["n"] > 0 for line in lines), lines
