"""Issue 14: the base install (`pip install sorteio`) carries only what the rules and the Godot
bridges import (pydantic); the command line and reports are extras (`cli`, `sheets`, `report`).

Checked in a fresh venv with the package installed from a copy of this checkout, base only (its
dependencies from the package index, as a user gets them): no click, rich, openpyxl or
matplotlib there; the in-process bridge plays, the socket server serves (`sorteio serve` and the
launcher the Godot node runs), and every other `sorteio` command says which extra to install
(exit 2, no traceback).
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sorteio.bridge import protocol
from sorteio.bridge.server import LAUNCHER
from sorteio.launch import CLI_EXTRA, missing_cli_library

ROOT = Path(__file__).resolve().parents[1]
# What the extras bring (and the base install must not).
EXTRAS = {"click", "rich", "pygments", "markdown-it-py", "mdurl", "openpyxl", "et-xmlfile",
          "matplotlib"}
INSTALLERS = {"pip", "setuptools", "wheel"}


def _pyproject() -> str:
    return (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_the_base_dependencies_are_pydantic_only_and_the_cli_is_an_extra():
    text = _pyproject()
    base = text.split("dependencies = [", 1)[1].split("]", 1)[0]
    named = [line.strip().strip('",') for line in base.splitlines()
             if line.strip().startswith('"')]
    assert named == ["pydantic>=2.10,<3"]
    extras = text.split("[project.optional-dependencies]", 1)[1].split("\n[", 1)[0]
    assert 'cli = ["click' in extras and "rich" in extras and "openpyxl" in extras
    assert 'sheets = ["openpyxl' in extras and 'report = ["matplotlib' in extras


def test_only_a_missing_cli_library_is_taken_for_the_missing_extra():
    for name in CLI_EXTRA:
        assert missing_cli_library(ModuleNotFoundError(f"No module named '{name}'", name=name))
    assert missing_cli_library(ModuleNotFoundError("x", name="rich.text"))
    assert not missing_cli_library(ModuleNotFoundError("x", name="pydantic"))
    assert not missing_cli_library(ImportError("cannot import name 'x' from 'click'"))


@pytest.fixture(scope="module")
def base_venv(tmp_path_factory):
    """A new venv with `pip install <copy of this checkout>` (no extras)."""
    work = tmp_path_factory.mktemp("base")
    src = work / "src"
    src.mkdir()
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy(ROOT / name, src / name)
    shutil.copytree(ROOT / "python", src / "python",
                    ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.so"))
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    env = dict(os.environ, SORTEIO_PURE="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
    proc = subprocess.run([str(python), "-m", "pip", "install", "-q", str(src)], env=env,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return venv


def _run(venv: Path, *args: str, **kwargs):
    return subprocess.run([str(venv / "bin" / args[0]), *args[1:]], capture_output=True,
                          text=True, timeout=120, cwd=str(venv.parent), **kwargs)


def test_the_base_install_holds_pydantic_and_nothing_of_the_extras(base_venv):
    # Every distribution in the venv is sorteio, pydantic or what pydantic requires (closure),
    # apart from the installers the venv was made with.
    script = (
        "import json, re\n"
        "from importlib import metadata as m\n"
        "norm = lambda n: re.sub('[-_.]+', '-', n).lower()\n"
        "need, todo = set(), ['sorteio']\n"
        "while todo:\n"
        "    name = todo.pop()\n"
        "    if name in need: continue\n"
        "    need.add(name)\n"
        "    for req in m.requires(name) or []:\n"
        "        if 'extra ==' not in req:\n"
        "            todo.append(norm(re.split('[ ;<>=!~\\[(]', req, 1)[0]))\n"
        "print(json.dumps({'need': sorted(need),\n"
        "                  'have': sorted(norm(d.metadata['Name']) for d in m.distributions())}))\n"
    )
    proc = _run(base_venv, "python", "-c", script)
    assert proc.returncode == 0, proc.stderr
    found = json.loads(proc.stdout)
    assert set(found["have"]) - INSTALLERS == set(found["need"]), found
    assert set(found["need"]) & EXTRAS == set(), found
    assert {"sorteio", "pydantic"} <= set(found["need"])


def test_the_in_process_bridge_plays_and_answers_the_panel_with_the_base_install(base_venv):
    script = (
        "import json, sys\n"
        "from sorteio.bridge.inprocess import InProcessBridge\n"
        "b = InProcessBridge()\n"
        "def call(m, **p):\n"
        "    r = json.loads(b.request(json.dumps({'id': 1, 'method': m, 'params': p})))\n"
        "    return r\n"
        "assert call('new_match', seed=3)['ok']\n"
        "assert call('start_turn')['ok']\n"
        "d = call('draw')['result']['draw']\n"
        "assert call('choose', option=0)['ok'], d\n"
        "assert call('validate', deck='curto')['result']['valid']\n"
        "assert call('lint', deck='curto')['ok']\n"
        "assert call('preview', deck='curto')['ok']\n"
        "job = call('simulate_start', deck='curto', matches=20)['result']['job']\n"
        "step = {'finished': False}\n"
        "while not step['finished']:\n"
        "    step = call('simulate_step', job=job)['result']\n"
        "assert step['result']['scenarios'], step\n"
        "assert call('sheet_export', deck='curto', sheet='curto.csv')['result']['cards'] == 25\n"
        "r = call('sheet_import', sheet='curto.csv', out='curto.json')['result']\n"
        "assert r['written'], r\n"
        "x = call('sheet_export', deck='curto', sheet='curto.xlsx')\n"
        "assert not x['ok'] and \"pip install 'sorteio[sheets]'\" in x['error']['message'], x\n"
        "print(d['card']['id'])\n"
    )
    proc = _run(base_venv, "python", "-c", script)
    assert proc.returncode == 0 and proc.stdout.strip(), proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr


def _ping(port_file: Path, proc: subprocess.Popen) -> dict:
    deadline = time.monotonic() + 60
    while not port_file.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the server never wrote its port file"
        time.sleep(0.05)
    time.sleep(0.05)  # the file is renamed into place whole; give the listener its moment
    info = json.loads(port_file.read_text())
    with socket.create_connection(("127.0.0.1", info["port"]), timeout=30) as conn:
        conn.sendall(protocol.encode_frame({"id": 1, "method": "ping",
                                            "token": info["token"]}))
        header = conn.recv(4)
        length = protocol.frame_length(header)
        body = b""
        while len(body) < length:
            body += conn.recv(length - len(body))
    return protocol.decode_body(body)


@pytest.mark.parametrize("how", ["sorteio serve", "godot launcher"])
def test_the_socket_server_serves_with_the_base_install(base_venv, tmp_path, how):
    port_file = tmp_path / "bridge.json"
    if how == "sorteio serve":
        args = [str(base_venv / "bin" / "sorteio"), "serve", "--port-file", str(port_file)]
    else:  # what addons/sorteio/bridges/socket_bridge.gd runs
        args = [str(base_venv / "bin" / "python"), "-c", LAUNCHER, str(tmp_path / "err.txt"),
                "--port-file", str(port_file), "--parent-pid", str(os.getpid())]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        reply = _ping(port_file, proc)
        assert reply["ok"] and reply["result"]["pong"] is True, reply
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err, err


@pytest.mark.parametrize("args", [["play"], ["--help"], ["sheet", "export", "padrao", "x.csv"],
                                  []])
def test_other_commands_name_the_cli_extra_and_exit_2_without_a_traceback(base_venv, args):
    proc = _run(base_venv, "sorteio", *args)
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "pip install 'sorteio[cli]'" in proc.stderr and "Traceback" not in proc.stderr
    proc = _run(base_venv, "python", "-m", "sorteio", *args)
    assert proc.returncode == 2 and "sorteio[cli]" in proc.stderr
