"""The designers' requests of the editor panel (validate, lint, preview, simulate_*), through the
one request handler both bridges use: the same answers as the CLI, as data."""

import json
import os
import subprocess
import sys

import pytest

from sorteio.bridge import designer
from sorteio.bridge.handler import RequestHandler
from sorteio.lint import lint_deck
from sorteio.loader import load_deck
from sorteio.sim.report import sweep_json
from sorteio.sim.sweep import run_sweep


def run_cli(args):
    """The CLI as a user runs it: (exit code, stdout, stderr), never a traceback."""
    proc = subprocess.run([sys.executable, "-m", "sorteio.cli", *args], capture_output=True,
                          text=True, encoding="utf-8", timeout=120,
                          env=dict(os.environ, COLUMNS="400"))
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, proc.stdout, proc.stderr


def call(handler, method, **params):
    return handler.handle({"id": 9, "method": method, "params": params})


def ok(handler, method, **params):
    reply = call(handler, method, **params)
    assert reply["ok"] is True, reply
    return reply["result"]


def refused(handler, method, code, **params):
    reply = call(handler, method, **params)
    assert reply["ok"] is False and reply["error"]["code"] == code, reply
    return reply["error"]["message"]


def broken_deck(tmp_path, mutate):
    data = json.loads(load_deck.__globals__["BUILTIN_DECKS"]["padrao"].read_text("utf-8"))
    mutate(data)
    path = tmp_path / "quebrado.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def test_the_new_methods_are_dispatched_and_listed():
    handler = RequestHandler()
    for name in ("validate", "lint", "preview", "simulate_start", "simulate_step",
                 "simulate_cancel"):
        assert name in handler.methods


def test_a_game_importing_the_handler_does_not_load_the_designer_modules():
    code = ("import sys, sorteio.bridge.handler as h; h.RequestHandler(); "
            "print('sorteio.bridge.designer' in sys.modules, 'sorteio.sim.sweep' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "False"]


BLOCKING_HANDLER = r'''
import importlib.abc, sys
class Blocked(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError("blocked: " + name)
sys.meta_path.insert(0, Blocked())
from sorteio.bridge.handler import RequestHandler
h = RequestHandler()
def ok(method, **params):
    reply = h.handle({"id": 1, "method": method, "params": params})
    assert reply["ok"], (method, reply)
    return reply["result"]
'''


def run_without(packages, body):
    """Python runs BODY (which calls `ok(method, **params)` on a RequestHandler) in a child
    process where importing any of PACKAGES fails, as in a runtime that lacks them."""
    code = f"BLOCKED = {tuple(packages)!r}\n" + BLOCKING_HANDLER + body
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          encoding="utf-8", timeout=300)


def test_a_games_requests_never_import_openpyxl():
    """The Godot 4 runtime carries openpyxl for the panel's .xlsx only: the addon's export
    plugin leaves it out of an exported game (export_plugin.gd LEFT_OUT_EDITOR_ONLY). So every
    request a game makes (a whole match, a save and its load) runs with openpyxl and
    et_xmlfile unimportable, and leaves the sheets and designer modules unloaded."""
    code = r'''
ok("ping", lang="pt_BR")
ok("new_match", seed=3)
saved = ok("save")
ok("load", state=saved["state"])
while ok("state")["ending"] is None:
    ok("start_turn")
    while True:
        result = ok("draw")
        if result["draw"] is None:
            break
        if ok("choose", option=result["draw"]["option_order"][0])["ending"] is not None:
            break
ok("end_match")
print(sorted(m for m in sys.modules if m.split(".")[0] in ("openpyxl", "et_xmlfile")
             or m.startswith(("sorteio.sheets", "sorteio.bridge.designer"))))
'''
    out = run_without(("openpyxl", "et_xmlfile"), code)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["[]"], out.stdout


def test_validate_a_good_deck_has_no_errors_and_a_summary():
    result = ok(RequestHandler(), "validate", deck="padrao")
    assert result["valid"] is True and result["errors"] == []
    assert result["file"].endswith("padrao.json")
    assert result["summary"]["cards"] == 101 and result["summary"]["meters"] == 8


def test_validate_rows_name_file_card_and_field(tmp_path):
    def two_mistakes(data):
        data["cartas"][0]["modo"] = ""  # schema problem
        data["cartas"][3]["opcoes"][0]["efeitos"]["saude"] = 500  # out of range
    path = broken_deck(tmp_path, two_mistakes)
    result = ok(RequestHandler(), "validate", deck=str(path))
    assert result["valid"] is False and result["summary"] is None
    data = json.loads(path.read_text("utf-8"))
    rows = {(r["card_id"], r["field"]) for r in result["errors"]}
    assert (data["cartas"][0]["id"], "cartas.0.modo") in rows
    assert (data["cartas"][3]["id"], "cartas.3.opcoes.0.efeitos.saude") in rows
    assert all(r["file"] == str(path) and r["severity"] == "error" for r in result["errors"])


def test_validate_lists_schema_and_reference_problems_together(tmp_path):
    """Issue 8: one answer with every problem, not rounds (schema first, references later)."""
    def both(data):
        data["cartas"][0]["modo"] = ""  # schema
        data["cartas"][1]["opcoes"][0]["efeitos"]["medidor_fantasma"] = 5  # reference
    path = broken_deck(tmp_path, both)
    result = ok(RequestHandler(), "validate", deck=str(path))
    fields = [r["field"] for r in result["errors"]]
    assert "cartas.0.modo" in fields
    assert any("medidor_fantasma" in f or "medidor_fantasma" in r["message"]
               for f, r in zip(fields, result["errors"])), result["errors"]


def test_validate_gives_the_same_rows_as_the_cli(tmp_path):
    path = broken_deck(tmp_path, lambda d: d["cartas"][1].update(tipo="nenhum"))
    result = ok(RequestHandler(), "validate", deck=str(path))
    code, out, _err = run_cli(["validate", str(path), "--json"])
    assert code == 2
    cli_rows = json.loads(out)["errors"]
    assert [(r["card_id"], r["field"], r["message"]) for r in result["errors"]] == [
        (r["card_id"], r["field"], r["message"]) for r in cli_rows]


def test_validate_a_missing_file_is_one_row_not_an_error_reply(tmp_path):
    result = ok(RequestHandler(), "validate", deck=str(tmp_path / "nada.json"))
    assert result["valid"] is False
    assert [r["field"] for r in result["errors"]] == ["(file)"]


def test_lint_is_the_coverage_report_of_the_cli():
    result = ok(RequestHandler(), "lint", deck="curto")
    expected = lint_deck(load_deck("curto"))
    assert {k: result[k] for k in expected} == json.loads(json.dumps(expected))
    assert result["file"].endswith("curto.json")


def test_lint_of_a_broken_deck_is_a_deck_error(tmp_path):
    path = broken_deck(tmp_path, lambda d: d["cartas"][0].pop("titulo"))
    message = refused(RequestHandler(), "lint", "deck_error", deck=str(path))
    assert str(path) in message and "titulo" in message


def test_preview_from_the_start_is_the_first_turn_sorteio_play_prints():
    """Same seed and policy: the cards, options and reason texts of `sorteio play`'s year 1."""
    result = ok(RequestHandler(), "preview", deck="padrao", seed=4)
    assert result["from"] == "start"
    assert result["rows"][0]["event"] == "turn_started"
    cards = [r for r in result["rows"] if r["event"] == "card_played"]
    assert [r["slot"] for r in cards] == list(range(1, 8)) and {r["year"] for r in cards} == {1}
    code, out, _err = run_cli(["play", "--seed", "4", "--json"])
    assert code == 0
    played = [e for e in json.loads(out)["events"] if e["event"] == "card_played"][:7]
    assert [(r["card_id"], r["option"]) for r in cards] == [
        (e["draw"]["card_id"], e["choice"]["option"]) for e in played]
    code, text, _err = run_cli(["play", "--seed", "4"])
    flat = " ".join(text.split())
    for row in cards:
        assert " ".join(row["reason_text"].split()) in flat, row["reason_text"]


def test_preview_from_a_saved_state_matches_sorteio_turn(tmp_path):
    save = tmp_path / "meio.json"
    code, _out, _err = run_cli(["play", "--seed", "2", "--stop-after", "9", "--save",
                                     str(save)])
    assert code == 0
    result = ok(RequestHandler(), "preview", deck="padrao", state=str(save), seed=0)
    assert result["from"] == "state"
    code, out, _err = run_cli(["turn", "--state", str(save), "--seed", "0", "--json"])
    assert code == 0
    events = [e for e in json.loads(out)["events"] if e["event"] == "card_played"]
    cards = [r for r in result["rows"] if r["event"] == "card_played"]
    assert [(r["card_id"], r["option"]) for r in cards] == [
        (e["draw"]["card_id"], e["choice"]["option"]) for e in events]
    # And the text the CLI prints for each card is the row's reason_text.
    code, text, _err = run_cli(["turn", "--state", str(save), "--seed", "0"])
    flat = " ".join(text.split())
    for row in cards:
        assert " ".join(row["reason_text"].split()) in flat, row["reason_text"]


def test_preview_of_a_bad_state_file_is_refused_with_its_path(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    message = refused(RequestHandler(), "preview", "rule_error", deck="padrao", state=str(bad))
    assert str(bad) in message


@pytest.mark.parametrize("params", [
    {"seed": -1}, {"seed": "x"}, {"policy": "lazy"}, {"state": 3}, {"deck": 5},
])
def test_preview_bad_params_are_bad_requests(params):
    refused(RequestHandler(), "preview", "bad_request", **params)


def run_job(handler, budget_ms=20, **params):
    started = ok(handler, "simulate_start", **params)
    progress = []
    while True:
        step = ok(handler, "simulate_step", job=started["job"], budget_ms=budget_ms)
        progress.append(step["done"])
        if step["finished"]:
            return started, progress, step["result"]


def test_simulate_in_steps_gives_the_figures_of_sorteio_simulate():
    """Chunked steps merge in match order: the figures equal run_sweep's (the CLI's) exactly."""
    handler = RequestHandler()
    started, progress, result = run_job(handler, budget_ms=1, deck="padrao", matches=400, seed=3)
    assert started["total"] == 400 and started["scenarios"] == 1
    assert progress == sorted(progress) and progress[-1] == 400 and len(progress) > 1
    expected = json.loads(json.dumps(sweep_json(run_sweep(load_deck("padrao"), {}, 400, 3,
                                                          jobs=1))))
    scenario = result["scenarios"][0]
    for key in ("catastrophes", "catastrophe_pct", "catastrophe_ci95_low_pct",
                "catastrophe_ci95_high_pct", "card_draws", "mode_draws_per_match",
                "never_drawn"):
        assert scenario[key] == expected["scenarios"][0][key], key
    assert scenario["catastrophe_ci95_low_pct"] <= scenario["catastrophe_pct"] \
        <= scenario["catastrophe_ci95_high_pct"]
    per_match = scenario["card_draws_per_match"]
    assert per_match and all(per_match[c] == scenario["card_draws"][c] / 400 for c in per_match)
    assert set(result["names"]["modos"]) == set(scenario["mode_draws_per_match"])
    assert "Saúde" in result["names"]["medidores"].values()
    # The job is forgotten once its result is out.
    refused(handler, "simulate_step", "no_job", job=started["job"])


def test_simulate_defaults_to_3000_matches():
    started = ok(RequestHandler(), "simulate_start", deck="curto")
    assert started["total"] == designer.DEFAULT_MATCHES == 3000


def test_simulate_results_do_not_depend_on_the_step_budget():
    a = run_job(RequestHandler(), budget_ms=1, deck="curto", matches=200, seed=1)[2]
    b = run_job(RequestHandler(), budget_ms=5000, deck="curto", matches=200, seed=1)[2]
    assert a == b


def test_a_sweep_gives_the_table_of_scenarios_with_the_baseline_first():
    _started, _p, result = run_job(RequestHandler(), deck="padrao", matches=150, seed=0,
                                   sweep=["teto_obrigatorias=2..4"])
    rows = result["scenarios"]
    assert [r["teto_obrigatorias"] for r in rows] == [3, 2, 4]
    assert rows[0]["baseline"] == 1 and rows[0]["diff_vs_baseline_pp"] == 0.0
    assert result["parameters"] == ["teto_obrigatorias"]
    expected = sweep_json(run_sweep(load_deck("padrao"), {"teto_obrigatorias": [2, 3, 4]}, 150,
                                    0, jobs=1))
    assert [r["catastrophe_pct"] for r in rows] == [
        r["catastrophe_pct"] for r in expected["scenarios"]]
    assert [r["diff_vs_baseline_pp"] for r in rows] == [
        r["diff_vs_baseline_pp"] for r in expected["scenarios"]]


@pytest.mark.parametrize("params", [
    {"matches": 0}, {"matches": 10**9}, {"matches": True}, {"policy": "x"},
    {"sweep": "teto_obrigatorias=2..4"}, {"sweep": ["teto_obrigatorias=9"]},
    {"sweep": ["nada=1"]}, {"seed": -3},
])
def test_simulate_bad_params_are_bad_requests(params):
    message = refused(RequestHandler(), "simulate_start", "bad_request", deck="curto", **params)
    assert message


def test_simulate_cancel_forgets_the_job_and_unknown_jobs_are_refused():
    handler = RequestHandler()
    job = ok(handler, "simulate_start", deck="curto", matches=100)["job"]
    assert ok(handler, "simulate_cancel", job=job) == {"job": job, "cancelled": True}
    refused(handler, "simulate_step", "no_job", job=job)
    refused(handler, "simulate_step", "no_job", job=12345)
    refused(handler, "simulate_step", "bad_request", job="a")


def test_abandoned_jobs_do_not_pile_up():
    handler = RequestHandler()
    for _ in range(designer.MAX_JOBS + 3):
        ok(handler, "simulate_start", deck="curto", matches=10)
    assert len(handler._simulations.jobs) == designer.MAX_JOBS


def test_designer_requests_work_over_json_text_as_the_in_process_bridge_sends_them():
    handler = RequestHandler()
    reply = json.loads(handler.handle_json(json.dumps(
        {"id": 1, "method": "simulate_start", "params": {"deck": "curto", "matches": 50.0}})))
    assert reply["ok"] is True and reply["result"]["total"] == 50


def test_the_panels_requests_need_none_of_the_cli_extras(tmp_path):
    """The Godot 4 panel runs on the GDExtension's Python, which has sorteio, pydantic and the
    `sheets` extra's openpyxl only (scripts/gdextension.sh: no `cli` or `report` extras).
    Every panel request, the per-card study included (it once imported rich at the top of its
    report module), works with click, rich and matplotlib unimportable."""
    code = r'''
ok("validate", deck="padrao")
ok("lint", deck="padrao")
ok("preview", deck="padrao", seed=1)
for extra in ({"matches": 200, "sweep": ["teto_obrigatorias=2..3"]},
              {"per_card": {"precision": 5.0, "max_matches": 400}}):
    job = ok("simulate_start", deck="padrao", seed=1, **extra)["job"]
    while True:
        step = ok("simulate_step", job=job, budget_ms=200)
        if step["finished"]:
            break
    assert step["result"], step
print("panel requests ok")
'''
    proc = run_without(("rich", "click", "matplotlib"), code)
    assert proc.returncode == 0 and "panel requests ok" in proc.stdout, proc.stderr[-3000:]
