"""Sweep outputs: CSV rows, JSON, and the self-contained HTML report with its plots."""

import csv
import json

import pytest

from sorteio.loader import load_deck
from sorteio.sim.report import CsvAppender, sweep_json, write_csv, write_json
from sorteio.sim.sweep import run_sweep


@pytest.fixture(scope="module")
def sweep():
    return run_sweep(load_deck("curto"), {"teto_obrigatorias": [2, 4], "limite_medidor": [25, 35]},
                     matches=40, seed=5, jobs=1)


def test_csv_has_one_row_per_scenario_in_order(sweep, tmp_path):
    path = tmp_path / "s.csv"
    write_csv(sweep, path)
    with open(path, encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == len(sweep.scenarios) == 5
    assert [r["scenario"] for r in rows] == ["0", "1", "2", "3", "4"]
    assert {r["teto_obrigatorias"] for r in rows} == {"2", "3", "4"}
    assert all(float(r["catastrophe_ci95_low_pct"]) <= float(r["catastrophe_pct"])
               <= float(r["catastrophe_ci95_high_pct"]) for r in rows)


def test_csv_appender_flushes_each_row(sweep, tmp_path):
    path = tmp_path / "a.csv"
    appender = CsvAppender(path)
    appender.add(sweep.scenarios[2])
    assert len(path.read_text(encoding="utf-8").splitlines()) == 2  # readable before close
    appender.add(sweep.scenarios[0])
    appender.close()
    with open(path, encoding="utf-8") as fh:
        assert [r["scenario"] for r in csv.DictReader(fh)] == ["2", "0"]


def test_json_holds_per_card_per_mode_and_per_year_figures(sweep, tmp_path):
    path = tmp_path / "s.json"
    write_json(sweep, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data == json.loads(json.dumps(sweep_json(sweep)))
    first = data["scenarios"][0]
    assert sum(first["card_draws"].values()) == sweep.scenarios[0].tally.cards_played
    assert sum(first["mode_draws_per_match"].values()) == pytest.approx(
        sweep.scenarios[0].tally.cards_played / 40)
    years = first["meters_by_year"]["caixa"]
    assert [y["year"] for y in years] == [1, 2, 3, 4]


@pytest.mark.plots
def test_html_report_is_self_contained_with_its_plots(sweep, tmp_path):
    from sorteio.sim.report import write_html

    old = sweep.scenarios[3].diff
    sweep.scenarios[3].diff = (0.05, 0.02, 0.08)  # pretend scenario 3 moved the rate 5 points
    path = tmp_path / "r.html"
    try:
        write_html(sweep, path, {"caixa": 50})
    finally:
        sweep.scenarios[3].diff = old
    page = path.read_text(encoding="utf-8")
    # rates, mandatory slots per turn, cards, modes, meters by year
    assert page.count("data:image/svg+xml;base64,") == 5
    assert "src='http" not in page and "<script" not in page
    assert page.count("<tr class='flag'>") == 1 and "<tr class='base'>" in page
    assert "Catastrophe rate per parameter value" in page and "Meters by year" in page
    assert "Mandatory slots per turn" in page


@pytest.mark.plots
def test_html_report_plots_are_svg_with_their_text_as_text(sweep, tmp_path):
    """Issue 16 (the report's CPU): vector plots, text kept as text (svg.fonttype none), so the
    meters' display names and the card ids are in the figures as typed, searchable."""
    import base64
    import re

    from sorteio.sim.report import write_html
    from sorteio.wording import Names

    path = tmp_path / "r.html"
    write_html(sweep, path, {"caixa": 50}, Names.of(load_deck("curto")))
    figures = [base64.b64decode(b).decode("utf-8") for b in
               re.findall(r"data:image/svg\+xml;base64,([A-Za-z0-9+/=]+)", path.read_text("utf-8"))]
    assert len(figures) == 5 and all(f.lstrip().startswith("<?xml") for f in figures)
    cards, meters = figures[2], figures[4]
    assert all(c in cards for c in sweep.scenarios[0].card_frequency())
    assert "Saúde" in meters and "Desinformação" in figures[3]  # display names (modes too)
    assert "<text" in meters and "glyph" not in meters  # text, not outlines


@pytest.mark.plots
def test_html_report_of_an_interrupted_or_empty_sweep(sweep, tmp_path):
    from sorteio.sim.report import write_html

    cut = sweep._replace(scenarios=sweep.scenarios[:1], interrupted=True)
    path = tmp_path / "cut.html"
    write_html(cut, path, {})
    assert "Interrupted" in path.read_text(encoding="utf-8")
    empty = sweep._replace(scenarios=[], interrupted=True)
    write_html(empty, path, {})
    assert "No scenario finished" in path.read_text(encoding="utf-8")


@pytest.mark.plots
def test_html_report_when_no_match_ends_in_catastrophe(tmp_path):
    """Rates of exactly 0 (the protect player on curto) draw an interval from 0, not below it."""
    from sorteio.sim.report import write_html

    calm = run_sweep(load_deck("curto"), {"teto_obrigatorias": [2, 4]}, matches=30,
                     policy="protect", jobs=1)
    assert all(r.tally.catastrophes == 0 for r in calm.scenarios)
    write_html(calm, tmp_path / "calm.html", {})
    assert (tmp_path / "calm.html").read_text(encoding="utf-8").count("base64,") == 5


@pytest.mark.plots
@pytest.mark.parametrize("cards,actors", [(0, 0), (3, 1)])
def test_html_report_of_decks_with_almost_nothing_to_draw(tmp_path, cards, actors):
    from sorteio.sim.report import write_html
    from sorteio.synthetic import synthetic_deck

    deck = synthetic_deck(cards=cards, actors=actors, modes=1, meters=2, draft=1)
    result = run_sweep(deck, {"teto_obrigatorias": [2]}, matches=10, jobs=1)
    write_html(result, tmp_path / "r.html", {})
    assert (tmp_path / "r.html").read_text(encoding="utf-8").count("base64,") == 5


@pytest.mark.plots
def test_html_report_plots_use_display_names(monkeypatch, tmp_path):
    """Issue 8: the report's plots label meters and modes with the deck's names (with
    accents), and a label with '$' is text, not mathtext."""
    from sorteio.sim import report
    from sorteio.wording import Names

    deck = load_deck("padrao")
    result = run_sweep(deck, {}, matches=10, seed=1, jobs=1)
    labels = []
    real_svg = report._svg

    def capture(fig):
        for ax in fig.axes:
            labels.append(ax.get_title())
            labels.extend(t.get_text() for t in ax.get_xticklabels())
            labels.extend(t.get_text() for t in ax.texts)  # meters over their blocks, card ids
            legend = ax.get_legend()
            if legend is not None:
                labels.extend(t.get_text() for t in legend.get_texts())
        return real_svg(fig)

    monkeypatch.setattr(report, "_svg", capture)
    names = Names.of(deck)
    names.modes["cultura"] = "Cultura $x$"
    report.write_html(result, tmp_path / "r.html", {m.id: m.inicial for m in deck.medidores},
                      names)
    for name in ("Saúde", "Meio Ambiente", "Desinformação", "Educação", "Governabilidade"):
        assert name in labels, name
    assert "saude" not in labels and "desinformacao" not in labels
    assert "governabilidade" not in labels  # a meter only: its name, not its id
    assert r"Cultura \$x\$" in labels  # escaped: drawn as typed


def test_sweep_json_maps_ids_to_display_names(sweep):
    from sorteio.wording import Names

    data = sweep_json(sweep, Names.of(load_deck("curto")))
    assert data["names"]["medidores"]["saude"] == "Saúde"
    assert data["names"]["modos"]["desinformacao"] == "Desinformação"
    assert set(data["names"]["modos"]) == set(data["scenarios"][0]["mode_draws_per_match"])


def _figures_of(monkeypatch, write):
    """Each figure the report draws, as matplotlib left it just before it became SVG."""
    from sorteio.sim import report

    seen = []
    real_svg = report._svg

    def capture(fig):
        seen.append(fig)
        return real_svg(fig)

    monkeypatch.setattr(report, "_svg", capture)
    write()
    return seen


@pytest.mark.plots
def test_meters_by_year_share_one_axes_per_eight_meters(monkeypatch, tmp_path):
    """Issue 16 (the report's CPU): up to eight meters side by side in one axes, not an axes
    each; every meter is still drawn (its start value, then four closings) and named."""
    from sorteio.sim.report import METERS_PER_ROW, write_html
    from sorteio.synthetic import synthetic_deck

    deck = synthetic_deck(cards=20, actors=1, modes=2, meters=10, draft=1)
    result = run_sweep(deck, {}, matches=20, seed=3, jobs=1)
    initial = {m.id: m.inicial for m in deck.medidores}
    figures = _figures_of(monkeypatch, lambda: write_html(result, tmp_path / "r.html", initial))
    meters = figures[4]
    assert METERS_PER_ROW == 8 and len(meters.axes) == 2  # 10 meters: a row of 8, one of 2
    names = [t.get_text() for ax in meters.axes for t in ax.texts]
    assert names == [m.id for m in deck.medidores]  # synthetic meters are named by their ids
    lines = [line for ax in meters.axes for line in ax.get_lines() if len(line.get_xdata()) == 5]
    assert [line.get_ydata()[0] for line in lines] == [m.inicial for m in deck.medidores]
    means = result.baseline.trajectories()
    assert [list(line.get_ydata()[1:]) for line in lines] == [
        [mean for mean, _, _ in means[m.id]] for m in deck.medidores]


@pytest.mark.plots
def test_card_bars_are_each_cards_draws_per_match_under_its_id(monkeypatch, sweep, tmp_path):
    """Issue 16: the card figure's bars are one collection and its labels plain text; bar i is
    card i's draws per match, and the text under it is that card's id."""
    from sorteio.sim.report import write_html

    figures = _figures_of(monkeypatch, lambda: write_html(sweep, tmp_path / "r.html", {}))
    ax = figures[2].axes[0]
    (bars,) = ax.collections
    freq = sweep.baseline.card_frequency()
    heights = [path.vertices[:, 1].max() for path in bars.get_paths()]
    assert heights == pytest.approx(list(freq.values()))
    centres = [(path.vertices[:, 0].min() + path.vertices[:, 0].max()) / 2
               for path in bars.get_paths()]
    assert centres == pytest.approx(range(len(freq)))
    assert [(t.get_text(), t.get_position()[0]) for t in ax.texts] == [
        (card, i) for i, card in enumerate(freq)]
