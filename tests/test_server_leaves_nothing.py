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
