"""The designers' CLI, run as a user runs it: exit codes, messages, no tracebacks."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from cli_run import sorteio
from sorteio.cli import BROKEN_PIPE
from sorteio.loader import BUILTIN_DECKS
from sorteio.synthetic import synthetic_deck


def test_play_prints_a_whole_match_on_the_default_deck(pt_br):
    out = sorteio("play", "--seed", "3").stdout
    assert "Ano 1" in out and "Fim" in out
    assert out.count("→") >= 7


def test_play_json_is_the_same_match_for_the_same_seed():
    first = json.loads(sorteio("play", "--seed", "5", "--json").stdout)
    again = json.loads(sorteio("play", "--seed", "5", "--json").stdout)
    assert first == again
    cards = [e["draw"]["card_id"] for e in first["events"] if e["event"] == "card_played"]
    assert len(cards) == len(set(cards)) == first["ending"]["cards_played"]


def test_turn_previews_the_next_turn_from_a_saved_state(tmp_path, pt_br):
    state = tmp_path / "state.json"
    sorteio("play", "--seed", "2", "--stop-after", "7", "--save", str(state))
    preview = json.loads(sorteio("turn", "--state", str(state), "--json").stdout)
    events = preview["events"]
    # Saved with turn 1's slots full: the preview closes it, then shows turn 2.
    assert [e["event"] for e in events[:2]] == ["turn_ended", "turn_started"]
    assert events[1]["year"] == 2
    draws = [e["draw"] for e in events if e["event"] == "card_played"]
    assert 1 <= len(draws) <= 7
    assert all("kind" in d["reason"] for d in draws)
    text = sorteio("turn", "--state", str(state)).stdout
    assert "Ano 2" in text


def test_validate_ok_and_warnings():
    assert "ok" in sorteio("validate", "padrao").stdout
    proc = sorteio("validate", "curto")
    assert "warning" in proc.stderr and "22 playable cards for 28 slots" in proc.stderr


def test_validate_broken_deck_exits_2_naming_file_card_and_field(tmp_path):
    data = synthetic_deck().model_dump(mode="json")
    data["cartas"][3]["pre_requisitos"]["ano_minimo"] = 7
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    proc = sorteio("validate", str(path), check_code=2)
    assert f"{path}: card 'c003': cartas.3.pre_requisitos.ano_minimo" in proc.stderr
    report = json.loads(sorteio("validate", str(path), "--json", check_code=2).stdout)
    assert report["valid"] is False and report["errors"][0]["card_id"] == "c003"


@pytest.mark.parametrize("args", [
    ["play", "--deck", "/no/such/deck.json"],
    ["play", "--seed", "-1"],
    ["play", "--policy", "psychic"],
    ["turn", "--state", "/no/such/state.json"],
    ["simulate", "--matches", "0"],
])
def test_bad_input_exits_2_without_traceback(args):
    sorteio(*args, check_code=2)


def test_turn_with_a_state_of_another_deck_exits_2(tmp_path):
    state = tmp_path / "state.json"
    sorteio("play", "--deck", "curto", "--stop-after", "3", "--save", str(state))
    proc = sorteio("turn", "--state", str(state), check_code=2)
    assert "another deck" in proc.stderr


def test_schema_is_the_deck_json_schema():
    schema = json.loads(sorteio("schema").stdout)
    assert schema["title"] == "Deck"
    card = schema["$defs"]["Card"]["properties"]
    assert {"modo", "tipo", "pre_requisitos", "opcoes", "ator", "funcao"} <= set(card)


def test_every_command_has_help():
    for command in ["play", "turn", "validate", "schema", "simulate"]:
        assert "Usage" in sorteio(command, "--help").stdout


def test_simulate_summary_json():
    summary = json.loads(sorteio("simulate", "--matches", "30", "--json").stdout)
    assert summary


def test_turn_reads_a_godot_save_with_a_card_on_screen(tmp_path):
    from sorteio.bridge.handler import RequestHandler

    handler = RequestHandler()
    for method, params in [("new_match", {"seed": 4}), ("start_turn", {}), ("draw", {})]:
        assert handler.handle({"method": method, "params": params})["ok"]
    saved = handler.handle({"method": "save"})["result"]["state"]
    path = tmp_path / "godot-save.json"
    path.write_text(json.dumps(saved), encoding="utf-8")
    events = json.loads(sorteio("turn", "--state", str(path), "--json").stdout)["events"]
    assert events[0]["event"] == "card_played"  # the card on screen is answered first
    assert events[0]["draw"]["card_id"] == handler.engine.current.card_id


def test_turn_says_when_the_preview_ends_the_match(tmp_path, pt_br):
    # Seed 19 loses Caixa in year 4 (found by a tester); preview the turn that ends it.
    state = tmp_path / "s.json"
    sorteio("play", "--seed", "19", "--stop-after", "21", "--save", str(state))
    text = sorteio("turn", "--state", str(state), "--seed", "0").stdout
    assert "Fim" in text


def test_save_to_a_missing_folder_fails_before_playing(tmp_path):
    proc = sorteio("play", "--save", str(tmp_path / "no" / "s.json"), check_code=2)
    assert "does not exist" in proc.stderr and proc.stdout == ""


def test_piped_output_is_not_cut_at_80_columns():
    out = sorteio("play", "--seed", "1").stdout
    assert max(len(line) for line in out.splitlines()) > 80
    assert "…" not in out


def test_the_same_match_whatever_the_hash_seed():
    # No rule may depend on set or dict iteration order (issue 2: determinism).
    outputs = set()
    for hash_seed in ("0", "1", "12345"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        proc = subprocess.run([sys.executable, "-m", "sorteio.cli", "play", "--seed", "11",
                               "--json"], capture_output=True, text=True, env=env, timeout=120)
        outputs.add(proc.stdout)
    assert len(outputs) == 1


def test_turn_asks_for_the_file_of_a_deck_saved_by_godot_as_a_res_path(tmp_path):
    state = tmp_path / "s.json"
    sorteio("play", "--stop-after", "3", "--save", str(state))
    wrapped = {"format": 1, "deck": "res://decks/padrao.json", "seed": 0,
               "engine": json.loads(state.read_text(encoding="utf-8"))}
    state.write_text(json.dumps(wrapped), encoding="utf-8")
    proc = sorteio("turn", "--state", str(state), check_code=2)
    assert "give that file with --deck" in proc.stderr
    sorteio("turn", "--state", str(state), "--deck", "padrao")


def test_turn_reads_a_godot_save_of_the_default_deck(tmp_path):
    # SorteioNode.save_state() names the deck as the game did: "" when it used the default one
    # (start_match(seed) with deck_path ""); the bridge loads that as the default deck, and so
    # must `turn` (it said "(deck): (path): empty deck path").
    state = tmp_path / "s.json"
    sorteio("play", "--stop-after", "3", "--save", str(state))
    wrapped = {"format": 1, "deck": "", "seed": 0,
               "engine": json.loads(state.read_text(encoding="utf-8"))}
    state.write_text(json.dumps(wrapped), encoding="utf-8")
    assert "«" in sorteio("turn", "--state", str(state)).stdout


# -- issue 10: bad input at the command line ---------------------------------------------------

@pytest.mark.parametrize("name", ["a[/]b.json", "decks[red]/x.json", "[bold]x.json",
                                  ":smile: [link=x]y[/link].json"])
def test_paths_with_markup_are_printed_as_text(tmp_path, name):
    # issue 10: `validate 'a[/]b.json'` crashed with MarkupError; decks[red]/x.json lost "[red]".
    path = tmp_path / name
    proc = sorteio("validate", str(path), check_code=2)
    assert proc.stderr.startswith(f"error: {path}: (file): no such file")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(BUILTIN_DECKS["padrao"].read_text(encoding="utf-8"), encoding="utf-8")
    assert sorteio("validate", str(path)).stdout.startswith(f"{path}: ok")
    for args in (["play", "--deck", str(tmp_path / "no" / name)],
                 ["turn", "--state", str(path) + ".missing"]):
        assert f"{tmp_path}" in sorteio(*args, check_code=2).stderr


def test_deck_text_with_markup_prints_as_text_in_validate(tmp_path):
    data = json.loads(BUILTIN_DECKS["padrao"].read_text(encoding="utf-8"))
    del data["modos"]  # no mode names: a new mode is legal (with modos it would be an error)
    data["cartas"][0]["modo"] = "[bold]x[/]"  # a mode with one card: a warning quoting it
    data["cartas"][1]["id"] = "[/]"
    data["cartas"][1]["opcoes"][0]["efeitos"]["[red]"] = 1
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    proc = sorteio("validate", str(path), check_code=2)
    assert f"error: {path}: card '[/]': cartas.1.opcoes.0.efeitos: unknown meter '[red]'" in \
        proc.stderr.splitlines()
    del data["cartas"][1]["opcoes"][0]["efeitos"]["[red]"]
    path.write_text(json.dumps(data), encoding="utf-8")
    warnings = sorteio("validate", str(path)).stderr
    assert "mode '[bold]x[/]' has no other card" in warnings


def test_validate_reports_every_problem_at_once_one_row_each(tmp_path):
    # issue 8: schema errors and reference errors in one run, each with file, card and field.
    data = json.loads(BUILTIN_DECKS["padrao"].read_text(encoding="utf-8"))
    data["cartas"][0]["titulo"] = 5
    data["cartas"][2]["opcoes"][0]["efeitos"]["petroleo"] = 3
    path = tmp_path / "deck.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    report = json.loads(sorteio("validate", str(path), "--json", check_code=2).stdout)
    assert [(r["file"], r["card_id"], r["field"]) for r in report["errors"]] == [
        (str(path), data["cartas"][0]["id"], "cartas.0.titulo"),
        (str(path), data["cartas"][2]["id"], "cartas.2.opcoes.0.efeitos"),
    ]
    lines = sorteio("validate", str(path), check_code=2).stderr.splitlines()
    assert len(lines) == 2 and all(line.startswith(f"error: {path}: card '") for line in lines)


def test_an_unknown_deck_names_the_built_in_decks():
    proc = sorteio("play", "--deck", "nope", check_code=2)
    assert proc.stderr == ("error: nope: (file): no such file (the built-in decks are padrao, "
                           "curto; a path names a .json file)\n")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
def test_a_fifo_as_deck_or_state_is_refused_at_once(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    for args in (["validate", str(fifo)], ["turn", "--state", str(fifo)]):
        assert "not a regular file" in sorteio(*args, check_code=2).stderr


@pytest.mark.parametrize("args", [["play"], ["play", "--json"], ["validate", "padrao"],
                                  ["simulate", "--matches", "20", "--jobs", "1"]])
def test_a_closed_pipe_exits_quietly_like_unix_tools(args):
    # issue 10: `sorteio play | head -1` exited 1 (rich's handler); Unix tools die of SIGPIPE.
    proc = subprocess.Popen([sys.executable, "-m", "sorteio.cli", *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # the reader goes away before the first line
    stderr = proc.stderr.read().decode("utf-8")
    assert proc.wait(timeout=120) == BROKEN_PIPE and stderr == ""


def test_ctrl_c_while_the_cli_is_imported_exits_130_without_traceback():
    # issue 10: Ctrl-C in the first ~0.2 s (while click, rich and pydantic load) printed an
    # import traceback. The KeyboardInterrupt is raised exactly there, by an import hook.
    code = (
        "import sys\n"
        "class Stop:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'sorteio.cli':\n"
        "            raise KeyboardInterrupt\n"
        "sys.meta_path.insert(0, Stop())\n"
        "sys.argv = ['sorteio', 'play']\n"
        "from sorteio.launch import main\n"
        "main()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert (proc.returncode, proc.stderr) == (130, "aborted\n")


def test_the_sorteio_command_and_python_m_sorteio_run_the_cli():
    proc = subprocess.run([sys.executable, "-m", "sorteio", "validate", "curto"],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and "ok" in proc.stdout
    script = Path(sys.executable).with_name("sorteio")
    if script.exists():
        proc = subprocess.run([str(script), "validate", "curto"], capture_output=True,
                              text=True, timeout=60)
        assert proc.returncode == 0 and "ok" in proc.stdout


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
def test_a_fifo_as_save_target_is_refused_before_playing(tmp_path):
    fifo = tmp_path / "s.json"
    os.mkfifo(fifo)
    assert "not a regular file" in sorteio("play", "--save", str(fifo), check_code=2).stderr


@pytest.mark.plots  # --out needs matplotlib, checked first
@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are a POSIX thing")
def test_a_fifo_in_the_out_folder_is_refused_before_the_sweep(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    os.mkfifo(out / "sweep.csv")
    proc = sorteio("simulate", "--matches", "5", "--out", str(out), check_code=2)
    assert "sweep.csv is not a regular file" in proc.stderr


FULL_SAVE = """
import errno, pathlib, sys
def full(self, *args, **kwargs):
    raise OSError(errno.ENOSPC, "No space left on device")
pathlib.Path.write_text = full
sys.argv[0] = "sorteio"
from sorteio.cli import main
main()
"""


def test_a_full_disk_on_save_keeps_the_previous_save(tmp_path):
    state = tmp_path / "s.json"
    state.write_text('{"old": "save"}', encoding="utf-8")
    proc = subprocess.run([sys.executable, "-c", FULL_SAVE, "play", "--stop-after", "3",
                           "--save", str(state)], capture_output=True, text=True, timeout=120)
    assert "Traceback" not in proc.stderr and proc.returncode == 2
    assert "No space left on device; nothing was saved" in proc.stderr
    assert state.read_text(encoding="utf-8") == '{"old": "save"}'
    assert os.listdir(tmp_path) == ["s.json"]


def test_turn_help_says_the_seed_drives_only_the_simulated_player(tmp_path):
    # Found by qacli: `turn --help` said --seed is the "seed of the draw", but the preview draws
    # from the saved RNG state (README "sorteio turn"); a designer would re-seed in vain.
    state = tmp_path / "s.json"
    sorteio("play", "--seed", "3", "--stop-after", "9", "--save", str(state))
    firsts = {next(line for line in sorteio("turn", "--state", str(state), "--seed",
                                           str(seed)).stdout.splitlines() if line[:1].isdigit())
              for seed in (0, 1, 99)}
    assert len(firsts) == 1  # the seed does not change what is drawn next
    help_text = " ".join(sorteio("turn", "--help").stdout.split())
    assert "seed of the draw" not in help_text
    assert "seed of the simulated player's choices" in help_text


def test_save_onto_the_deck_file_is_refused_and_the_deck_kept(tmp_path):
    # Found by qacli: `play --deck mine.json --save mine.json` overwrote the deck with the save
    # ("nothing is lost" on bad input). The shipped decks are protected the same way.
    from sorteio.loader import BUILTIN_DECKS

    deck = tmp_path / "mine.json"
    deck.write_bytes(BUILTIN_DECKS["padrao"].read_bytes())
    before = deck.read_bytes()
    for save in (str(deck), str(tmp_path / "." / "mine.json")):
        proc = sorteio("play", "--deck", str(deck), "--stop-after", "3", "--save", save,
                       check_code=2)
        assert "is the deck" in proc.stderr and proc.stdout == ""
    proc = sorteio("play", "--deck", "curto", "--stop-after", "3", "--save",
                   str(BUILTIN_DECKS["padrao"]), check_code=2)
    assert "is the deck" in proc.stderr
    assert deck.read_bytes() == before


def test_a_save_given_as_deck_and_a_deck_given_as_save_say_so_in_one_line(tmp_path):
    # Found by qacli: each mix-up printed ~20 rows of "Field required" / "Extra inputs".
    state = tmp_path / "s.json"
    sorteio("play", "--stop-after", "3", "--save", str(state))
    for args in (["validate", str(state)], ["play", "--deck", str(state)]):
        proc = sorteio(*args, check_code=2)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
        assert "saved match" in proc.stderr and "turn --state" in proc.stderr
    from sorteio.loader import BUILTIN_DECKS

    proc = sorteio("turn", "--state", str(BUILTIN_DECKS["padrao"]), check_code=2)
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "a deck, not a saved match" in proc.stderr


def test_turn_errors_name_the_state_file_on_every_line(tmp_path):
    # Found by qacli: state errors said only "saved match: ..." while deck errors name the file.
    state = tmp_path / "s.json"
    sorteio("play", "--stop-after", "3", "--save", str(state))
    data = json.loads(state.read_text(encoding="utf-8"))
    data.update(year=9, slot=99)
    state.write_text(json.dumps(data), encoding="utf-8")
    lines = sorteio("turn", "--state", str(state), check_code=2).stderr.strip().splitlines()
    assert len(lines) == 2 and all(f"{state}: saved match: " in line for line in lines)


def test_play_refuses_a_deck_with_no_cards_exit_2_gdd_06_s1(tmp_path):
    # GDD 06 §1: a match draws 7 cards a turn from the deck; none to draw is bad input, not a
    # silent 0-card match (README "Rule decisions" 13).
    data = json.loads(BUILTIN_DECKS["curto"].read_text("utf-8"))
    data["cartas"] = []
    deck = tmp_path / "vazio.json"
    deck.write_text(json.dumps(data), "utf-8")
    env = {**os.environ, "SORTEIO_LANG": "pt-BR"}
    proc = sorteio("play", "--deck", str(deck), check_code=2, env=env)
    assert proc.stdout == ""
    assert proc.stderr.strip() == (
        f"erro: {deck}: cartas: o baralho não tem cartas: uma partida precisa de ao menos uma "
        "carta sorteável (§1); adicione cartas (a tabela de cartas do painel Sorteio edita um "
        "baralho vazio)")
    english = sorteio("play", "--deck", str(deck), check_code=2,
                      env={**os.environ, "SORTEIO_LANG": "en"})
    assert "cartas: the deck has no cards: a match needs at least one drawable card" in \
        english.stderr
