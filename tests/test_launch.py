"""The ``sorteio`` entry point (``sorteio.launch.main``) ends by freezing the garbage collector's
objects, so the interpreter's exit does not run full collections over them (issue 16: ~0.2 s of
CPU after `simulate --out`; ``benchmarks/bench_report.py`` measures it)."""

import gc

import pytest

import sorteio.cli
from sorteio import launch


@pytest.fixture
def unfrozen():
    gc.unfreeze()
    yield
    gc.unfreeze()  # this test process goes on: let its collector see everything again


@pytest.mark.parametrize("ends", ["returns", "exits 2"])
def test_the_entry_point_freezes_the_collector_at_the_end(monkeypatch, unfrozen, ends):
    def command():
        assert gc.get_freeze_count() == 0  # not before the command: it still makes garbage
        if ends == "exits 2":
            raise SystemExit(2)

    monkeypatch.setattr(sorteio.cli, "main", command)
    if ends == "exits 2":
        with pytest.raises(SystemExit):
            launch.main()
    else:
        launch.main()
    assert gc.get_freeze_count() > 0
