"""``sorteio serve`` (cli.py calls ``sorteio.bridge.server.serve``): the same server as
``python -m sorteio.bridge.server``. Skipped until the command is registered in cli.py."""

import json
import subprocess
import sys
import time

import pytest

from bridge_fakes import Client
from sorteio import cli

pytestmark = pytest.mark.skipif(
    "serve" not in getattr(cli.cli, "commands", {}), reason="cli.py has no 'serve' command yet"
)
RUN_CLI = [sys.executable, "-c", "from sorteio.cli import main; main()"]


def test_serve_writes_its_port_file_and_answers(tmp_path):
    port_file = tmp_path / "bridge.json"
    proc = subprocess.Popen([*RUN_CLI, "serve", "--port-file", str(port_file)])
    try:
        deadline = time.monotonic() + 15
        while not port_file.exists():
            assert proc.poll() is None and time.monotonic() < deadline, "serve did not start"
            time.sleep(0.02)
        info = json.loads(port_file.read_text())
        client = Client(info["port"], info["token"])
        assert client.call("ping")["result"]["pong"] is True
        client.close()
    finally:
        proc.kill()
        proc.wait(timeout=5)


def test_serve_refuses_a_public_address():
    result = subprocess.run(
        [*RUN_CLI, "serve", "--host", "0.0.0.0"], capture_output=True, text=True, timeout=30
    )
    assert result.returncode == 2
    assert "loopback" in result.stderr
