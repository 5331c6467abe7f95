"""The editor bridge's per-card job (``simulate_start`` with ``per_card``): the study of
``sorteio simulate --per-card`` in steps, with progress, the same figures as the CLI."""

import json
import subprocess
import sys

import pytest

from sorteio.bridge.handler import RequestHandler


def _call(handler, method, **params):
    return handler.handle({"id": 1, "method": method, "params": params})


def _ok(handler, method, **params):
    reply = _call(handler, method, **params)
    assert reply["ok"] is True, reply
    return reply["result"]


def test_per_card_job_gives_the_figures_of_the_cli():
    handler = RequestHandler()
    study = {"precision": 2.0, "max_matches": 4000}
    started = _ok(handler, "simulate_start", deck="padrao", seed=5, per_card=study)
    assert started["scenarios"] == 96 and started["total"] > 0
    steps = []
    while True:
        step = _ok(handler, "simulate_step", job=started["job"], budget_ms=200)
        steps.append(step)
        if step["finished"]:
            break
    assert len(steps) > 1 and steps[-1]["cards_settled"] == steps[-1]["cards"] == 95
    done = [s["done"] for s in steps]
    assert done == sorted(done) and done[-1] == steps[-1]["total"]
    assert all(s["done"] <= s["total"] for s in steps)
    # step_ms: how long each step played (the Godot 4 panel sizes its next budget by it); a
    # step stops at the first chunk past its budget (a 500-match chunk: well under 1 s)
    assert all(isinstance(s["step_ms"], float) and 0 < s["step_ms"] < 200 + 1000 for s in steps)
    result = steps[-1]["result"]
    proc = subprocess.run([sys.executable, "-m", "sorteio.cli", "simulate", "--per-card",
                           "--precision", "2", "--max-matches", "4000", "--seed", "5", "--json"],
                          capture_output=True, text=True, encoding="utf-8", timeout=300)
    assert proc.returncode == 0, proc.stderr
    cli = json.loads(proc.stdout)
    assert result["cards"] == cli["cards"] and result["summary"] == cli["summary"]
    assert result["matches_played"] == cli["matches_played"]
    assert "Saúde" in result["names"]["medidores"].values()
    assert all(isinstance(c["verdict"], str) and c["verdict"] for c in result["cards"])


@pytest.mark.parametrize("per_card", [
    "yes", 3, {"precision": 0}, {"precision": "x"}, {"max_matches": 0}, {"precision": True},
])
def test_per_card_bad_params_are_bad_requests(per_card):
    reply = _call(RequestHandler(), "simulate_start", deck="curto", per_card=per_card)
    assert reply["ok"] is False and reply["error"]["code"] == "bad_request", reply
    assert "per_card" in reply["error"]["message"] or "max_matches" in reply["error"]["message"]


def test_per_card_takes_no_sweep_and_cancels_like_a_sweep():
    handler = RequestHandler()
    reply = _call(handler, "simulate_start", deck="curto", per_card=True,
                  sweep=["teto_obrigatorias=2..4"])
    assert reply["ok"] is False and "sweep" in reply["error"]["message"]
    job = _ok(handler, "simulate_start", deck="curto", per_card=True)["job"]
    assert _ok(handler, "simulate_step", job=job, budget_ms=1)["cards"] == 22
    assert _ok(handler, "simulate_cancel", job=job) == {"job": job, "cancelled": True}

