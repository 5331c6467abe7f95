"""``sorteio simulate`` output stays readable however many meters and scenarios a sweep has: no
cell is cut ("5…"), no line is wider than the terminal (issue 10, 190 meters)."""

import os

from cli_run import sorteio
from sorteio.synthetic import synthetic_deck


def _simulate(deck_path, columns, *params):
    env = dict(os.environ, COLUMNS=str(columns)) if columns else {
        k: v for k, v in os.environ.items() if k != "COLUMNS"}
    return sorteio("simulate", "--deck", str(deck_path), "--matches", "10", "--jobs", "1",
                   *params, env=env).stdout


def test_190_meters_end_meter_table_is_one_row_per_meter_and_never_cut(tmp_path):
    path = tmp_path / "wide.json"
    path.write_text(synthetic_deck(cards=40, meters=190, seed=2).model_dump_json(),
                    encoding="utf-8")
    for columns in (80, None):  # a terminal of 80 columns, and a pipe (1,000 columns)
        text = _simulate(path, columns, "--param", "teto_obrigatorias=2..4")
        assert "…" not in text
        rows = [line for line in text.splitlines() if line.startswith("│ m")]
        assert [line.split()[1] for line in rows] == [f"m{i}" for i in range(190)]
        assert all(line.count("±") == 3 for line in rows)  # scenarios 0, 1, 2
        if columns:
            assert max(len(line) for line in text.splitlines()) <= columns


def test_many_scenarios_and_meters_split_over_tables_that_fit(tmp_path):
    text = _simulate("padrao", 80, "--param", "teto_obrigatorias=2..4",
                     "--param", "limite_medidor=25..35")
    assert "…" not in text and max(len(line) for line in text.splitlines()) <= 80
    rows = [line for line in text.splitlines() if line.startswith("│ Dignidade ")]  # by name
    assert sum(line.count("±") for line in rows) == 33  # every scenario, once


def test_a_table_that_fits_keeps_one_row_per_scenario():
    text = _simulate("padrao", 200, "--param", "teto_obrigatorias=2..4")
    header = next(line for line in text.splitlines() if "Caixa" in line)  # meters by name
    assert "Dignidade" in header and "Governabilidade" in header
