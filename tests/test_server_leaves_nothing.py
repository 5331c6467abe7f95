"""The socket server's ``--game-files PREFIX`` (issue 14, "Nothing left behind"): a game killed
with SIGKILL removes none of its files (its ``user://`` deck copies, port and error files), so
the server it started watches it (``--parent-pid``, every 0.25 s; a zombie counts as gone) and,
once it is gone, removes the game's files with those prefixes and exits. A game already gone
when the server starts: the files are removed, exit 2, no error file (no one is left to read
it). A game that is still there keeps its files, whatever stopped the server.

The game here is a small Python process that starts the server as the node does (``python -c
LAUNCHER ERROR_FILE ... --parent-pid <its pid> --game-files ...``), then writes a deck copy.
"""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from sorteio.bridge import server as bridge_server
from sorteio.bridge.portfile import remove_game_files
from test_bridge_server import assert_one_line_error, run_server

WAIT = 15.0  # seconds a start-up may take on a loaded machine
CLEAN_WITHIN = 1.0  # seconds from the game's SIGKILL to nothing left

# The game: starts the server as its own child (as Godot's OS.create_process does), waits for the
# port file, writes a deck copy (the node makes it once the bridge is up), says READY, sleeps.
GAME = textwrap.dedent(
    """
    import os, subprocess, sys, time
    from sorteio.bridge.server import LAUNCHER
    user, pid = sys.argv[1], os.getpid()
    port_file = os.path.join(user, f"sorteio_bridge_{pid}_1.json")
    prefixes = [os.path.join(user, f"sorteio_bridge_{pid}_"),
                os.path.join(user, f"sorteio_deck_{pid}_")]
    args = [sys.executable, "-c", LAUNCHER, port_file + ".err", "--port", "0",
            "--port-file", port_file, "--parent-pid", str(pid)]
    for prefix in prefixes:
        args += ["--game-files", prefix]
    server = subprocess.Popen(args)
    while not os.path.exists(port_file):
        time.sleep(0.01)
    with open(os.path.join(user, f"sorteio_deck_{pid}_meu.json"), "w") as copy:
        copy.write("{}")
    print(server.pid, flush=True)
    time.sleep(120)
    """
)


def start_game(user: Path) -> tuple:
    """(game process, its server's PID) once the server is up and the deck copy written."""
    game = subprocess.Popen([sys.executable, "-c", GAME, str(user)], stdout=subprocess.PIPE,
                            text=True)
    line = game.stdout.readline()
    assert line.strip().isdigit(), "the game did not start its server"
    return game, int(line)


def gone(pid: int, wait: float) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        if not bridge_server._process_alive(pid):
            return True
        time.sleep(0.01)
    return False


def game_files(user: Path, pid: int) -> list:
    return sorted(p.name for p in user.iterdir() if f"_{pid}_" in p.name)


@pytest.fixture()
def user(tmp_path):
    folder = tmp_path / "user"
    folder.mkdir()
    return folder


def test_a_killed_game_leaves_nothing_within_a_second(user):
    """SIGKILL, as a player's task manager does; the game is reaped at once (a shell would)."""
    other = user / "sorteio_deck_1_other_game.json"  # another game's copy (PID 1 is running)
    other.write_text("{}", encoding="utf-8")
    game, server = start_game(user)
    try:
        assert game_files(user, game.pid) == [
            f"sorteio_bridge_{game.pid}_1.json", f"sorteio_deck_{game.pid}_meu.json"]
        game.kill()
        killed = time.monotonic()
        game.wait()
        deadline = killed + WAIT
        while game_files(user, game.pid) and time.monotonic() < deadline:
            time.sleep(0.005)
        took = time.monotonic() - killed
        assert game_files(user, game.pid) == []
        assert took < CLEAN_WITHIN, f"{took:.3f} s"
        assert gone(server, WAIT), "the server outlived its game"
        assert other.exists(), "another game's file was removed"
    finally:
        game.kill()
        if not gone(server, 0):
            os.kill(server, signal.SIGKILL)


def test_a_game_left_a_zombie_counts_as_gone(user, tmp_path):
    """The game is not the server's own parent here and, killed, stays a zombie (this test, its
    parent, does not reap it): /proc says Z, and the server removes its files all the same."""
    game = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    prefix = str(user / f"sorteio_deck_{game.pid}_")
    copy = Path(prefix + "meu.json")
    copy.write_text("{}", encoding="utf-8")
    port_file = user / f"sorteio_bridge_{game.pid}_1.json"
    server = subprocess.Popen(
        [sys.executable, "-m", "sorteio.bridge.server", "--port", "0", "--port-file",
         str(port_file), "--parent-pid", str(game.pid), "--game-files", prefix,
         "--game-files", str(user / f"sorteio_bridge_{game.pid}_")],
        stderr=subprocess.PIPE, text=True,
    )
    try:
        deadline = time.monotonic() + WAIT
        while not port_file.exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert port_file.exists(), server.stderr.read() if server.poll() is not None else ""
        os.kill(game.pid, signal.SIGKILL)
        assert gone(game.pid, WAIT)  # a zombie: dead, not reaped
        assert Path(f"/proc/{game.pid}").exists(), "the game was reaped: no zombie to test"
        assert server.wait(timeout=WAIT) == 0
        assert not copy.exists() and not port_file.exists(), list(user.iterdir())
    finally:
        game.kill()
        game.wait()
        if server.poll() is None:
            server.kill()


def test_a_game_already_gone_at_start_exit_2_files_removed_and_no_error_file(user):
    game = subprocess.Popen([sys.executable, "-c", "pass"])
    game.wait()
    copy = user / f"sorteio_deck_{game.pid}_meu.json"
    copy.write_text("{}", encoding="utf-8")
    port_file = user / f"sorteio_bridge_{game.pid}_1.json"
    error_file = Path(f"{port_file}.err")
    result = subprocess.run(
        [sys.executable, "-c", bridge_server.LAUNCHER, str(error_file), "--port", "0",
         "--port-file", str(port_file), "--parent-pid", str(game.pid),
         "--game-files", str(user / f"sorteio_deck_{game.pid}_"),
         "--game-files", str(user / f"sorteio_bridge_{game.pid}_")],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert "the game is gone" in result.stderr and "Traceback" not in result.stderr
    assert list(user.iterdir()) == [], "no error file, no port file, no deck copy"


def test_a_server_stopped_while_its_game_runs_keeps_the_games_files(user):
    """SIGTERM is what the node's close() sends: the game goes on and removes its own files."""
    prefix = str(user / f"sorteio_deck_{os.getpid()}_")
    copy = Path(prefix + "meu.json")
    copy.write_text("{}", encoding="utf-8")
    port_file = user / "bridge.json"
    server = subprocess.Popen(
        [sys.executable, "-m", "sorteio.bridge.server", "--port", "0", "--port-file",
         str(port_file), "--parent-pid", str(os.getpid()), "--game-files", prefix],
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + WAIT
    while not port_file.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    server.terminate()
    assert server.wait(timeout=WAIT) == 0
    assert copy.exists(), "the running game's deck copy was removed"
    assert not port_file.exists()  # its own port file, as always


def test_only_files_directly_under_the_prefix_go_folders_and_symlink_targets_stay(tmp_path):
    user = tmp_path / "user"
    user.mkdir()
    kept = tmp_path / "precious.txt"
    kept.write_text("keep", encoding="utf-8")
    (user / "sorteio_deck_42_a.json").write_text("{}", encoding="utf-8")
    (user / "sorteio_deck_42_link.json").symlink_to(kept)
    (user / "sorteio_deck_42_folder").mkdir()
    (user / "sorteio_deck_42_folder" / "inside.json").write_text("{}", encoding="utf-8")
    (user / "sorteio_deck_421_other.json").write_text("{}", encoding="utf-8")
    removed = remove_game_files([str(user / "sorteio_deck_42_"), str(tmp_path / "nope" / "x_")])
    assert removed == 2
    assert sorted(p.name for p in user.iterdir()) == [
        "sorteio_deck_421_other.json", "sorteio_deck_42_folder"]
    assert (user / "sorteio_deck_42_folder" / "inside.json").exists()
    assert kept.read_text(encoding="utf-8") == "keep"


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--game-files", "/tmp/sorteio_deck_1_"], "--game-files needs --parent-pid"),
        (["--parent-pid", "1", "--game-files", "sorteio_deck_1_"], "absolute path"),
        (["--parent-pid", "1", "--game-files", "/tmp/"], "absolute path"),
    ],
)
def test_bad_game_files_are_one_error_line(args, says):
    assert_one_line_error(run_server(*args), says)


def test_sorteio_serve_takes_game_files_too(user):
    game = subprocess.Popen([sys.executable, "-c", "pass"])
    game.wait()
    copy = user / f"sorteio_deck_{game.pid}_meu.json"
    copy.write_text("{}", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "sorteio", "serve", "--parent-pid", str(game.pid),
         "--game-files", str(user / f"sorteio_deck_{game.pid}_")],
        capture_output=True, text=True, timeout=60,
    )
    assert result.returncode == 2, result.stderr
    assert "the game is gone" in result.stderr
    assert not copy.exists()


# A dying multithreaded game hands its server from thread to thread, and Linux sends the
# parent-death signal at each step (the frozen server asks for SIGTERM): a second one often comes
# ~0.1 s after the first, while the server is removing the files. Here it lands between the port
# file and the deck copy, where it killed the server before (issue 14's race).
SECOND_SIGTERM = textwrap.dedent(
    """
    import asyncio, os, signal, subprocess, sys
    from sorteio.bridge import server
    user = sys.argv[1]
    game = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
    prefix = os.path.join(user, f"sorteio_deck_{game.pid}_")
    open(prefix + "meu.json", "w").close()
    removing_the_port_file = server.remove_port_file

    def and_the_next_parent_death_signal(path, written):
        removing_the_port_file(path, written)
        os.kill(os.getpid(), signal.SIGTERM)

    server.remove_port_file = and_the_next_parent_death_signal

    async def main():
        ready = asyncio.Event()
        serving = asyncio.ensure_future(server.serve_async(
            port_file=os.path.join(user, "bridge.json"), parent_pid=game.pid,
            game_files=[prefix], handle_signals=True, ready=ready))
        await ready.wait()
        os.kill(os.getpid(), signal.SIGTERM)  # the first one: the game is dying
        game.kill()
        game.wait()
        await serving

    asyncio.run(main())
    print("stopped whole", flush=True)
    """
)


def test_a_second_parent_death_sigterm_during_the_clean_up_does_not_cut_it_short(user):
    result = subprocess.run([sys.executable, "-c", SECOND_SIGTERM, str(user)],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, f"exit {result.returncode}: {result.stderr[-2000:]}"
    assert "stopped whole" in result.stdout
    assert list(user.iterdir()) == [], "the deck copy or the port file stayed"


# -- Windows: the parent check opens the process (signal 0 would be CTRL_C_EVENT there) ---------

WAIT_OBJECT_0, WAIT_TIMEOUT, WAIT_FAILED = 0, 0x102, 0xFFFFFFFF
ERROR_ACCESS_DENIED, ERROR_INVALID_PARAMETER = 5, 87


class FakeKernel32:
    """What ``ctypes.WinDLL("kernel32")`` gives, for one process: ``handle`` (0: OpenProcess
    fails with ``error``) and what a 0 ms wait on it returns."""

    class Function:
        def __init__(self, body):
            self.body = body

        def __call__(self, *args):
            return self.body(*args)

    def __init__(self, handle: int, wait: int = WAIT_TIMEOUT, error: int = 0):
        self.calls: list = []
        self.wait = wait
        self.error = error

        def open_process(access, inherit, pid):
            self.calls.append(("OpenProcess", access, inherit, pid))
            return handle or None

        def wait_for(waited, milliseconds):
            self.calls.append(("WaitForSingleObject", waited, milliseconds))
            return self.wait

        def close(closed):
            self.calls.append(("CloseHandle", closed))
            return 1

        self.OpenProcess = self.Function(open_process)
        self.WaitForSingleObject = self.Function(wait_for)
        self.CloseHandle = self.Function(close)


@pytest.fixture()
def on_windows(monkeypatch):
    """Pretends to be Windows; returns a function that installs a FakeKernel32. ``os.kill`` must
    not be called at all."""
    import ctypes

    monkeypatch.setattr(sys, "platform", "win32")  # not os.name: pathlib would make WindowsPaths

    def no_kill(pid, sig):
        raise AssertionError(f"os.kill({pid}, {sig}) on Windows")

    monkeypatch.setattr(os, "kill", no_kill)
    monkeypatch.setattr(bridge_server, "_windows_handles", {})

    def install(kernel: FakeKernel32) -> FakeKernel32:
        def windll(name, use_last_error=False):
            assert name == "kernel32" and use_last_error
            return kernel

        monkeypatch.setattr(ctypes, "WinDLL", windll, raising=False)
        monkeypatch.setattr(ctypes, "get_last_error", lambda: kernel.error, raising=False)
        return kernel

    return install


@pytest.mark.parametrize(
    ("kernel", "alive"),
    [
        ({"handle": 77, "wait": WAIT_TIMEOUT}, True),
        ({"handle": 77, "wait": WAIT_OBJECT_0}, False),  # exited (a handle keeps its PID taken)
        ({"handle": 77, "wait": WAIT_FAILED}, True),  # unsure: alive, as an unreadable /proc
        ({"handle": 0, "error": ERROR_INVALID_PARAMETER}, False),  # no such PID
        ({"handle": 0, "error": ERROR_ACCESS_DENIED}, True),  # another user's process
    ],
    ids=["running", "exited", "wait-failed", "no-such-pid", "access-denied"],
)
def test_windows_parent_check_opens_the_process_and_waits_0_ms(on_windows, kernel, alive):
    fake = on_windows(FakeKernel32(**kernel))
    assert bridge_server._process_alive(4242) is alive
    access = 0x00100000 | 0x1000  # SYNCHRONIZE | PROCESS_QUERY_LIMITED_INFORMATION
    calls = [("OpenProcess", access, 0, 4242)]
    if kernel["handle"]:
        calls.append(("WaitForSingleObject", 77, 0))
    if kernel["handle"] and not alive:
        calls.append(("CloseHandle", 77))
    assert fake.calls == calls


def test_windows_parent_check_keeps_the_handle_so_the_pid_is_not_reused(on_windows):
    """While it runs, one OpenProcess and the handle kept; once it exited, the handle closed."""
    fake = on_windows(FakeKernel32(handle=77, wait=WAIT_TIMEOUT))
    assert bridge_server._process_alive(4242) and bridge_server._process_alive(4242)
    fake.wait = WAIT_OBJECT_0
    assert not bridge_server._process_alive(4242)
    assert [call[0] for call in fake.calls] == [
        "OpenProcess", "WaitForSingleObject", "WaitForSingleObject", "WaitForSingleObject",
        "CloseHandle"]
    assert bridge_server._windows_handles == {}


def test_windows_game_already_gone_at_start_has_its_files_removed(on_windows, user):
    on_windows(FakeKernel32(handle=0, error=ERROR_INVALID_PARAMETER))
    copy = user / "sorteio_deck_4242_meu.json"
    copy.write_text("{}", encoding="utf-8")
    with pytest.raises(bridge_server.GameGone):
        bridge_server.check_options("127.0.0.1", 0, None, 4242, [str(user / "sorteio_deck_4242_")])
    assert not copy.exists()
