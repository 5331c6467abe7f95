"""The Godot 4 addon's runtime (issues 13 and 14) on the real Godot 4 engine.

Each test runs one scenario of tests/godot4/ through tests/godot4_harness.py: a throwaway
project with addons/sorteio linked and the Sorteio autoload, GDScript warnings as errors, any
unexpected engine error or warning a failure. The socket bridge runs this venv's Python
(SORTEIO_PYTHON); the scripted-bridge tests hide every Python from the game.
"""

import json
import re
import time

import pytest

from godot4_harness import ROOT, godot_env, make_project, run_script, shared_project, user_dir

pytestmark = pytest.mark.godot


@pytest.fixture(scope="module")
def project(tmp_path_factory):
    return shared_project(tmp_path_factory)


def process_gone(pid: int, wait: float = 5.0) -> bool:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", encoding="utf-8") as stat:
                if stat.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except FileNotFoundError:
            return True
        time.sleep(0.05)
    return False


def left_in_user_dir(home, project):
    """Files the run left in user:// (Godot's own logs/ aside)."""
    folder = user_dir(home, project)
    if not folder.exists():
        return []
    return sorted(p.name for p in folder.iterdir() if p.name != "logs")


@pytest.mark.parametrize("seed", [3, 99])
def test_a_whole_autoplay_match_over_the_socket_bridge(project, tmp_path, seed):
    """GDD 06 §2-§5 as the game sees them: 7 cards a full turn, no repeat, mandatory first
    (checked by the Python suite), here through the node: signal order, typed cards with int
    numbers, state before each signal, the ending; the server child gone after exit and no file
    left in user:// (port file, error file, deck copies)."""
    home = tmp_path / "home"
    run = run_script(project, "test_autoplay.gd", f"--seed={seed}", home=home)
    run.passed(
        "the match ended",
        "signals in order with the node's state updated before each",
        "no card repeated",
        "every payload number is an int",
        "ending consistent",
    )
    assert run.lines("BRIDGE ") == ["socket"]
    match = re.search(r"MATCH seed=\d+ reason=(\w+) cards=(\d+)", run.log)
    assert match and match.group(1) in ("end_of_mandate", "catastrophe")
    pid = int(run.lines("SERVER_PID ")[0])
    assert pid > 0 and process_gone(pid), f"server child {pid} outlived the game"
    assert left_in_user_dir(home, project) == []


def test_the_node_runs_the_same_launcher_as_the_server():
    from pathlib import Path

    from sorteio.bridge.server import LAUNCHER

    root = Path(__file__).resolve().parents[1]
    gd = (root / "addons" / "sorteio" / "bridges" / "socket_bridge.gd").read_text("utf-8")
    block = re.search(r"const LAUNCHER: String = \((.*?)\n\)", gd, re.S)
    assert block, "socket_bridge.gd has no LAUNCHER"
    assert "".join(re.findall(r'"([^"]*)"', block.group(1))) == LAUNCHER


@pytest.fixture(scope="module")
def game(tmp_path_factory):
    """A project holding decks as a game does: a copy of the default deck and a broken one."""
    deck = (ROOT / "python" / "sorteio" / "decks" / "padrao.json").read_text("utf-8")
    files = {"decks/meu.json": deck, "decks/broken.json": '{"nome": "x", "cartas": [\n'}
    return shared_project(tmp_path_factory, name="sorteio game", files=files)


def test_the_api_over_the_socket_bridge(game, tmp_path):
    """Issue 14's API: calls awaited in _ready wait for the bridge (no bridge_not_ready), the
    typed card (mode name, year, slot, reason, int effects) and its sides (GDD 05 §3.4: the
    sides drawn with the card), choose_side, advance, save/load mid-turn and between turns
    through JSON text continuing exactly (same cards, years, slots, meters: determinism),
    errors with codes, start_match mid-match refused, abandon_match, a relative deck path read
    and saved as res://, a SorteioDeck resource, no deck copy left."""
    home = tmp_path / "home"
    run = run_script(game, "test_api.gd", "--deck-copy=res://decks/meu.json", home=home)
    run.passed(
        "start_match awaited in _ready succeeds",
        "no bridge_not_ready on any bridge",
        "sides follow the drawn option_order",
        "choose_side applies the option shown on that side",
        "the match continues exactly (cards, years, slots, meters)",
        "a save between turns continues with the same next year and card",
        "start_match mid-match is refused before anything else",
        "abandon_match clears the match",
        "Python forgot the abandoned match, save_state() is {} (no_match)",
        "advance() after abandon_match gives no_match, as before any match",
        "it is read and saved as the res:// path",
        "a SorteioDeck made in code starts a match",
        "no deck copy is left in user://",
    )
    assert run.lines("BRIDGE ") == ["socket"]
    assert left_in_user_dir(home, game) == []


def test_match_lost_when_the_server_dies(game, tmp_path):
    """The server killed mid-match: match_lost, phase lost, match_lost refusals; a restarted
    bridge holds no match and says so; a save loads and the match continues; both servers are
    gone after exit."""
    run = run_script(game, "test_lost.gd", home=tmp_path / "home")
    run.passed(
        "match_lost comes when the server dies",
        "the phase says lost",
        "calls about the lost match are refused with match_lost",
        "after reconnecting the match is still said lost",
        "and the match continues with its pending card",
        "stop_bridge() mid-match loses it, said at once",
        "abandon_match() then stop_bridge() at once is quiet",
        "the next call is not stuck behind it",
    )
    pids = [int(pid) for pid in run.lines("SERVER_PID ")]
    assert len(pids) == 2 and pids[0] != pids[1]
    assert all(process_gone(pid) for pid in pids)


def test_misuse_is_reported_with_codes_and_print_warnings_off_is_quiet(game, tmp_path):
    """Calls before a match, a missing and a broken deck, a node never started, a bad
    interpreter: error_occurred with its code and a message saying what to do. The autoload's
    warnings are exactly the provoked ones; the node with print_warnings off prints none."""
    allowed = [
        # The bridge speaks pt-BR in these runs (godot_env's SORTEIO_LANG; issue 15).
        (r"WARNING: sorteio: nenhuma partida: chame start_match\(\) ou load_state\(\) antes "
         r"\(os pedidos new_match ou load\) \(no_match\)",
         "provoked"),
        (r"WARNING: sorteio: nenhuma carta espera escolha .*\(rule_error\)", "provoked"),
        (r"WARNING: sorteio: nenhum arquivo de baralho em res://decks/nope.json .*\(deck_error\)",
         "provoked"),
        (r"WARNING: sorteio: .*broken.json.*\(deck_error\)", "provoked"),
        (r"WARNING: sorteio: (um|o) SorteioDeck .*feito no código: .*\(deck_error\)",
         "provoked"),
    ]
    run = run_script(game, "test_misuse.gd", home=tmp_path / "home", allowed=allowed)
    run.passed(
        "draw before a match gives no_match",
        "a missing deck gives deck_error naming it",
        "a broken deck gives Python's deck_error naming the file",
        "it names the res path the game gave, not the OS path",
        "load_state's deck_error names the res path too",
        "a deck from the pack (sent as its text) is named as the game gave it",
        "a SorteioDeck made in code is named as one in its deck_error",
        "with its deck_name when it has one",
        "it says bridge_down and start_bridge()",
        "a bad interpreter gives bridge_down naming it",
        "calls then say bridge_down",
    )
    warnings = [line for line in run.log.splitlines() if line.startswith("WARNING:")]
    assert len(warnings) == 11, warnings
    assert not any("bridge_down" in line for line in warnings), "print_warnings off still printed"


def test_the_scripted_bridge_replays_a_recorded_match_with_no_python(project, tmp_path):
    """Issue 14's test double: a real match recorded over the socket bridge (record_path),
    replayed by bridge_mode "scripted" with no Python reachable (SORTEIO_PYTHON names a program
    that leaves a mark if it is ever run, PATH is empty): the same cards in the same slots, the
    same ending; a drifting call is script_mismatch; replies scripted in code."""
    recording = tmp_path / "match.json"
    recorded = run_script(project, "test_scripted.gd", f"--record={recording}",
                          home=tmp_path / "h1", log_name="scripted-record")
    recorded.passed("the match reached its end")
    data = json.loads(recording.read_text("utf-8"))
    assert data["format"] == "sorteio-recording/1"
    methods = [exchange["method"] for exchange in data["exchanges"]]
    cards = recorded.lines("SEQ ")[0].split()
    assert methods[0] == "new_match" and methods.count("choose") == len(cards) >= 7
    assert str(tmp_path) not in recording.read_text("utf-8"), "a recording holds no path"

    mark = tmp_path / "python-was-run"
    fake = tmp_path / "python3"
    fake.write_text(f"#!/bin/sh\ntouch {mark}\nexit 1\n")
    fake.chmod(0o755)
    empty = tmp_path / "empty-path"
    empty.mkdir()
    home = tmp_path / "h2"
    env = godot_env(home, SORTEIO_PYTHON=str(fake), PATH=str(empty))
    replayed = run_script(project, "test_scripted.gd", f"--replay={recording}", home=home,
                          env=env, log_name="scripted-replay")
    replayed.passed(
        "the match reached its end",
        "a call that drifts from the recording is a script_mismatch",
        "a scripted refusal reaches the game as error_occurred",
        "a script that ran out says so",
    )
    assert replayed.lines("BRIDGE ") == ["scripted"]
    assert replayed.lines("SERVER_PID ") == ["-1"]
    assert replayed.lines("SEQ ") == recorded.lines("SEQ ") and recorded.lines("SEQ ")[0]
    assert replayed.lines("ENDING ") == recorded.lines("ENDING ")
    assert not mark.exists(), "the scripted bridge ran a Python"


@pytest.mark.parametrize("deck_file", ["decks/padrao.json", "decks/padrao.sorteio.json"])
def test_a_save_made_by_the_godot_3_addon_loads_in_godot_4(deck_file, tmp_path):
    """Issue 13: a Godot 3 save loads in the Godot 4 addon (one Python handler behind both) and
    the match continues exactly (determinism: the RNG state and every counter are in the save).
    The save is made now by the Godot 3 addon in Godot 3.2.3 on the Godot 3 demo; the Godot 4
    project holds the same deck at the same res:// path, or renamed to ``.sorteio.json`` as
    "Moving from Godot 3" asks (the Godot 4 importer takes that extension only): the save,
    which names ``res://decks/padrao.json``, then loads the renamed file and is saved again
    under its new name (QA h-qa13: it was refused with "no deck file at res://decks/padrao.json")."""
    from test_godot_engine import DEMO
    from test_godot_engine import SCRIPTS as GODOT3_SCRIPTS
    from test_godot_engine import run_godot as run_godot3

    out = tmp_path / "godot3_save.json"
    script = str(GODOT3_SCRIPTS / "save_for_godot4.gd")
    result, log = run_godot3(tmp_path, ["-s", script, "--", f"--out={out}"], project=DEMO,
                             name="save_for_godot4")
    assert result.returncode == 0 and "GODOT-TEST passed" in log, log[-3000:]
    deck = (DEMO / "decks" / "padrao.json").read_text("utf-8")
    project = make_project(tmp_path / "g4", files={deck_file: deck})
    run = run_script(project, "test_godot3_save.gd", f"--save={out}",
                     f"--saved-deck=res://{deck_file}", home=tmp_path / "home")
    run.passed(
        "a Godot 3 save loads",
        "its pending card is back",
        "the match continues as it did in Godot 3",
        "saved again under the deck's res:// path",
    )


def readme_example() -> str:
    readme = (ROOT / "addons" / "sorteio" / "README.md").read_text("utf-8")
    return re.search(r"## Your first game.*?```gdscript\n(.*?)```", readme, re.S).group(1)


def test_the_readme_first_game_plays_saves_loads_and_restarts(tmp_path):
    """The addon README's example as written: a whole match through pick(), save_game() and
    load_game() bringing the saved card back, restart(); its push_error on any error_occurred
    would fail the run (no ERROR line allowed)."""
    project = make_project(tmp_path / "game", files={"readme_example.gd": readme_example()})
    allowed = [  # the example reports every error_occurred with push_error, as it should
        (r"ERROR: sorteio bad_request: load_state precisa", "the test's corrupt save files"),
    ]
    run = run_script(project, "run_readme_example.gd", home=tmp_path / "home", allowed=allowed)
    run.passed(
        "the example plays a whole match",
        "load_game() brings the saved card back",
        "restart() begins a new match",
        'a save file holding "" is refused and the match kept',
        'a save file holding "[1, 2]" is refused and the match kept',
    )
    assert re.search(r"EXAMPLE drawn=\d+ reason=(catastrophe|end_of_mandate)", run.log)
    assert re.search(r"^1\.1 .+ \[.+\] .+$", run.log, re.M), "the example prints the card"


def test_the_readme_links_resolve():
    """Every relative link of the Godot 4 README points at a file of the repository; a release
    zip carries these at the same relative places (docs/protocol.md, CHANGELOG.md)."""
    readme = ROOT / "addons" / "sorteio" / "README.md"
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", readme.read_text("utf-8"))
    relative = [link for link in links if not link.startswith(("http://", "https://"))]
    assert relative, "no links found"
    missing = [link for link in relative if not (readme.parent / link).resolve().exists()]
    assert not missing, missing


def test_a_slow_request_lets_frames_run(project, tmp_path):
    """Issue 13: a 30,000-card deck's new_match takes seconds; the socket bridge waits for it
    while the game's frames run (the longest gap between two frames stays far below the
    request's own time)."""
    from sorteio.synthetic import synthetic_deck

    deck = tmp_path / "big.json"
    deck.write_text(synthetic_deck(cards=30_000, seed=1).model_dump_json(by_alias=True),
                    encoding="utf-8")
    run = run_script(project, "test_frames.gd", f"--deck={deck}", home=tmp_path / "home")
    run.passed("the big deck's match starts", "frames ran while it was read", "and the match plays")
    _frames, gap, took = (int(n) for n in run.lines("FRAMES ")[0].split())
    assert gap < took / 3, f"a frame waited {gap} ms of a {took} ms request"


def test_the_project_setting_names_the_python(tmp_path_factory, tmp_path):
    """The project setting sorteio/python (no SORTEIO_PYTHON) names the socket bridge's Python."""
    import sys

    settings = {"sorteio": {"python": f'"{sys.executable}"'}}
    project = shared_project(tmp_path_factory, name="settings", settings=settings)
    home = tmp_path / "home"
    env = godot_env(home, SORTEIO_PYTHON=None)
    run = run_script(project, "test_autoplay.gd", "--seed=5", home=home, env=env)
    run.passed("the match ended", "ending consistent")


SHORT_DECK = ROOT / "python" / "sorteio" / "decks" / "curto.json"


def empty_deck_file(tmp_path):
    """The short deck with "cartas": [] (valid, with warnings; no match can start on it)."""
    data = json.loads(SHORT_DECK.read_text("utf-8"))
    data["cartas"] = []
    path = tmp_path / "vazio.json"
    path.write_text(json.dumps(data, ensure_ascii=False), "utf-8")
    return path


def test_a_save_of_a_deck_made_in_code_loads_back_and_an_empty_deck_is_refused(game, tmp_path):
    """QA: a SorteioDeck made in code has no path, so its save's deck is "": load_state(save)
    loads it into the deck made in code of the node's last match (or a deck_resource made in
    code), load_state(save, deck) into the deck given; a node with neither refuses it with a
    message saying how to pass the deck. GDD 06 §1: start_match on a deck with no card is
    empty_deck (README "Rule decisions" 13). Over the socket bridge."""
    run = run_script(game, "test_deck_in_code.gd", f"--deck-file={SHORT_DECK}",
                     f"--empty-file={empty_deck_file(tmp_path)}", home=tmp_path / "home")
    run.passed(
        "a match starts on a deck made in code", "its save names no deck (no path)",
        "load_state(save) loads into the deck made in code of the last match",
        "without the deck the default deck refuses it, saying how to pass it",
        "load_state(save, deck) loads into the SorteioDeck given",
        "the node remembers that deck for the next load",
        "a deck that is neither a path nor a SorteioDeck is bad_request, the match kept",
        "load_state(save, path) loads into that file, and saves name it",
        "a deck_resource made in code takes a save of deck \"\"",
        "a deck with no card is refused with empty_deck (GDD 06 §1), no match started",
    )
    assert run.lines("BRIDGE ") == ["socket"]


def _old_server(tmp_path):
    """tests/old_server.py (a sorteio serve older than deck_text) on a port file; (proc, file)."""
    import subprocess
    import sys

    port_file = tmp_path / "old" / "bridge.json"
    proc = subprocess.Popen([sys.executable, str(ROOT / "tests" / "old_server.py"), "--port", "0",
                             "--port-file", str(port_file)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 30
    while not port_file.exists():
        assert proc.poll() is None and time.monotonic() < deadline, proc.stderr.read()
        time.sleep(0.05)
    return proc, port_file


def test_a_game_joining_a_server_older_than_deck_text_sends_a_copy_and_says_so(game, tmp_path):
    """QA: a `sorteio serve` from before decks sent as text ignores deck_text (and its hello
    lists no features); the node sends a deck made in code as a user:// copy it can read
    instead of a deck_error, warns once naming the fix, and removes the copy."""
    proc, port_file = _old_server(tmp_path)
    home = tmp_path / "home"
    try:
        allowed = [(r"WARNING: sorteio: o servidor do sorteio é anterior aos baralhos enviados "
                    r"como texto \(deck_text\).*pip install -U sorteio", "provoked: an old server")]
        run = run_script(game, "test_old_server.gd", f"--deck-file={SHORT_DECK}", home=home,
                         env=godot_env(home, SORTEIO_BRIDGE_FILE=str(port_file)),
                         allowed=allowed)
    finally:
        proc.terminate()
        proc.wait(10)
    run.passed(
        "a match starts on a deck made in code through the old server", "and plays",
        "a save loads back into it", "no deck copy is left in user://",
    )
    assert run.lines("BRIDGE ") == ["socket"]
    warnings = [line for line in run.log.splitlines() if line.startswith("WARNING:")]
    assert len(warnings) == 1, warnings  # said once, though two requests sent a copy
    assert left_in_user_dir(home, game) == []


def test_load_state_with_a_deck_made_in_code_on_the_scripted_bridge(game, tmp_path):
    """QA on the scripted bridge (no Python): load_state(save, deck) sends the deck made in
    code as deck_text and remembers it for a save of deck ""; empty_deck passes through."""
    run = run_script(game, "test_deck_in_code_scripted.gd", home=tmp_path / "home")
    run.passed(
        "load_state(save, deck) sends its text", "a save of \"\" loads into it again",
        "another deck's text is a script_mismatch naming deck_text",
        "a scripted empty_deck reaches the game with its code",
    )
