"""``sorteio serve`` (cli.py calls ``sorteio.bridge.server.serve``): the same server as
``python -m sorteio.bridge.server``."""

import json
import subprocess
import sys
import time

from bridge_fakes import Client

RUN_CLI = [sys.executable, "-c", "from sorteio.cli import main; main()"]


def start_serve(port_file):
    """Start ``sorteio serve --port-file`` and wait (15 s at most) for its port file."""
    proc = subprocess.Popen([*RUN_CLI, "serve", "--port-file", str(port_file)])
    deadline = time.monotonic() + 15
    while not port_file.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AssertionError("serve did not start")
        time.sleep(0.02)
    return proc


def test_serve_writes_its_port_file_and_answers(tmp_path):
    port_file = tmp_path / "bridge.json"
    proc = start_serve(port_file)
    try:
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


def run_serve(*args):
    return subprocess.run([*RUN_CLI, "serve", *args], capture_output=True, text=True, timeout=30)


def assert_one_line_error(result, says):
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_serve_on_a_port_in_use_is_one_error_line():
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        result = run_serve("--port", str(taken.getsockname()[1]))
    assert_one_line_error(result, "already in use")


def test_serve_with_an_unwritable_port_file_is_one_error_line():
    assert_one_line_error(run_serve("--port-file", "/proc/nope/pf.json"), "port file")


def test_serve_with_a_port_out_of_range_is_a_usage_error():
    result = run_serve("--port", "99999")  # click's own usage message, like every option
    assert result.returncode == 2
    assert "99999" in result.stderr and "Traceback" not in result.stderr


def test_serve_stops_on_sigterm_and_removes_its_port_file(tmp_path):
    port_file = tmp_path / "bridge.json"
    proc = start_serve(port_file)
    try:
        proc.terminate()
        assert proc.wait(timeout=10) == 0
        assert not port_file.exists()
    finally:
        proc.kill()
        proc.wait(timeout=5)


def test_serve_without_options_says_where_it_listens_and_the_token():
    """Started by hand with no port file: one stderr line with host, port and token, enough
    to connect; with a port file the line names the file instead of showing the token."""
    import re

    proc = subprocess.Popen([*RUN_CLI, "serve"], stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        found = re.match(
            r"sorteio serve: listening on 127\.0\.0\.1:(\d+), token ([0-9a-f]{32})"
            r" \(Ctrl-C to stop\)",
            line,
        )
        assert found, line
        client = Client(int(found.group(1)), found.group(2))
        assert client.call("ping")["result"]["pong"] is True
        client.close()
    finally:
        proc.kill()
        proc.wait(timeout=5)


def test_serve_with_a_port_file_names_it_instead_of_the_token(tmp_path):
    port_file = tmp_path / "bridge.json"
    proc = subprocess.Popen(
        [*RUN_CLI, "serve", "--port-file", str(port_file)], stderr=subprocess.PIPE, text=True
    )
    try:
        line = proc.stderr.readline()
        assert f"token in {port_file} (Ctrl-C to stop)" in line, line
        token = json.loads(port_file.read_text())["token"]
        assert token not in line
    finally:
        proc.kill()
        proc.wait(timeout=5)
