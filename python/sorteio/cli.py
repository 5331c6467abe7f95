"""``sorteio``: the designers' command line (click + rich).

Exit codes: 0 ok, 2 bad input (a broken deck or saved match, a bad option), 130 Ctrl-C, 141 when
the reader of the output went away (``sorteio play | head -1``: quiet, like other Unix tools).
User errors print one clear message per problem, never a traceback; text from the user (paths,
ids, deck text) is printed as text, never read as rich markup.
"""

import contextlib
import json
import os
import sys
from pathlib import Path
from typing import Optional, Tuple

import click
from rich.text import Text

from .checks import validation_report
from .clihelp import DECK_HELP
from .clihelp import Group as _LocalizedGroup
from .deck import Deck
from .engine import DRAWING, ENDED, TURN_START, Engine
from .errors import SorteioError, StateError
from .i18n import LANGUAGES, N_, _, install_for_click, ngettext, parse, set_language
from .jsonfile import loads, printable, read_text
from .loader import BUILTIN_DECKS, load_deck, require_drawable, resolve_deck_path
from .match import POLICIES, Step, make_policy, play_match, play_turn
from .narration import (
    Printer,
    err,
    error_line,
    error_lines,
    heading,
    out,
    say,
    warning_line,
    warning_lines,
)
from .sim.commands import err as sim_err
from .sim.commands import lint_cmd, simulate_cmd
from .sim.commands import out as sim_out
from .wording import Names, ending_with_text, midturn_text

BAD_INPUT = 2
INTERRUPTED = 130
BROKEN_PIPE = 128 + 13  # what a shell reports for a tool killed by SIGPIPE


deck_option = click.option("--deck", "deck_path", default=None, metavar="DECK", help=DECK_HELP)
seed_option = click.option("--seed", default=0, show_default=True, type=click.IntRange(min=0),
                           help=N_("seed of the draw and of the simulated player's choices"))
policy_option = click.option("--policy", default="random", show_default=True,
                             type=click.Choice(list(POLICIES)),
                             help=N_("simulated player: random; protect the weakest meter; "
                                     "lookahead (one choice ahead, the worst next card)"))
json_option = click.option("--json", "as_json", is_flag=True, help=N_("machine-readable output"))
# `turn` draws from the saved RNG state: its seed only drives the simulated player (and, from a
# situation, which has no RNG state, the draw too).
player_seed_option = click.option("--seed", default=0, show_default=True,
                                  type=click.IntRange(min=0),
                                  help=N_("seed of the simulated player's choices (the draw "
                                       "continues from the saved RNG state; from a "
                                       "--situation it seeds the draw too)"))


def _load(deck_path: Optional[str]) -> Deck:
    return load_deck(deck_path)


def _read_json(path: str) -> object:
    """A saved match file: a bounded regular file of JSON (``jsonfile``), refused with every
    problem (duplicate keys, lone surrogates, too-long numbers) named by its path."""
    data, problems = loads(read_text(path), path)
    if problems:
        whole = "(file)"  # a field name, as in deck errors (not translated)
        raise SorteioError("\n".join(printable(
            f"{path}: {'.'.join(str(p) for p in problem.loc) or whole}: {problem.message}")
            for problem in problems))
    return data


def _writable(path: Optional[str]) -> None:
    """Refuse an unwritable ``--save`` path before the match is played, not after: a folder, a
    missing folder, or something that is not a regular file (writing into a FIFO would block)."""
    if path is None:
        return
    target = Path(path)
    if target.is_dir():
        raise SorteioError(_("{path}: is a folder; give a file name for --save").format(path=path))
    if not target.parent.is_dir():
        raise SorteioError(_("{path}: folder {folder} does not exist").format(
            path=path, folder=target.parent))
    if target.exists() and not target.is_file():
        raise SorteioError(_("{path}: not a regular file (a pipe, a device or a socket); give "
                             "a file name for --save").format(path=path))


def _not_a_deck(path: Optional[str], deck_path: Optional[str]) -> None:
    """Refuse a ``--save`` target that is the deck being played or a built-in deck: the save
    would overwrite it (a typo must not cost the designer the deck)."""
    if path is None or not Path(path).is_file():
        return
    for deck in {resolve_deck_path(deck_path), *BUILTIN_DECKS.values()}:
        with contextlib.suppress(OSError):
            if os.path.samefile(path, deck):
                raise SorteioError(_("{path}: is the deck {deck}; give another file for --save "
                                     "(the save would overwrite the deck)").format(path=path,
                                                                                   deck=deck))


def _save(engine: Engine, path: str) -> None:
    """Write beside the file and rename over it: a full disk never leaves half a save, nor
    destroys the previous one."""
    target = Path(path)
    partial = target.with_name(f".{target.name}.partial")
    try:
        partial.write_text(json.dumps(engine.to_state()), encoding="utf-8")
        os.replace(partial, target)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise SorteioError(_("{path}: cannot write: {reason}; nothing was saved").format(
            path=path, reason=exc.strerror or exc)) from None


def _saved_match(data: object) -> Tuple[object, Optional[str]]:
    """The engine state inside a save, and the deck it names: ``play --save`` writes the engine
    state itself; the Godot node wraps it as ``{"format": 1, "deck", "seed", "engine"}``."""
    if isinstance(data, dict) and isinstance(data.get("engine"), dict):
        deck = data.get("deck")
        return data["engine"], deck if isinstance(deck, str) else None
    return data, None


class _Group(_LocalizedGroup):
    """Help in the run's language (``clihelp``); takes a closed output pipe before click does
    (click exits 1 for it)."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            quiet_broken_pipe()


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]},
             help=N_('GDD 06 "Sorteio": play, preview, validate and simulate the card draw.'))
@click.version_option(package_name="sorteio")
@click.option("--lang", type=click.Choice(LANGUAGES, case_sensitive=False), default=None,
              help=N_("language of every message: pt-BR or en (default: SORTEIO_LANG, else the "
                   "system locale, else pt-BR)"))
def cli(lang) -> None:
    if lang is not None:  # main() already chose it from the command line; kept for cli() callers
        set_language(lang)


def _lang_argument(argv) -> Optional[str]:
    """The value of a top-level ``--lang`` in ``argv`` (before the command name), read before
    click parses anything, so click's own usage errors are in that language too."""
    for i, arg in enumerate(argv):
        if arg == "--lang" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
        if not arg.startswith("-"):
            return None  # the command name: its own options are its own
    return None


def choose_language(argv) -> None:
    """One language for the whole run: ``--lang``, else ``SORTEIO_LANG``, else the system
    locale, else pt-BR (``sorteio.i18n``); click's own messages follow it."""
    chosen = _lang_argument(argv)
    set_language(parse(chosen, "--lang") if chosen is not None else None)
    install_for_click()


@cli.command(help=N_(
    "Play one whole match card by card: year, slot, card, why it came, option, "
    "meters."))
@deck_option
@seed_option
@policy_option
@json_option
@click.option("--stop-after", type=click.IntRange(min=1), default=None, metavar="CARDS",
              help=N_("stop after this many cards (use with --save)"))
@click.option("--save", "save_path", default=None, metavar="FILE",
              help=N_("write the match state here when the match stops"))
def play(deck_path, seed, policy, as_json, stop_after, save_path) -> None:
    _writable(save_path)
    _not_a_deck(save_path, deck_path)
    deck = _load(deck_path)
    require_drawable(deck, str(resolve_deck_path(deck_path)))  # GDD 06 §1: no 0-card match
    printer = Printer(as_json, Names.of(deck))
    engine = Engine(deck, seed)
    if stop_after is None:
        ending = play_match(deck, seed, policy, observer=printer, engine=engine)
    else:
        ending = _play_some(engine, make_policy(policy, seed), stop_after, printer)
    if save_path:
        _save(engine, save_path)
    if as_json:
        click.echo(json.dumps({"seed": seed, "events": printer.events,
                               "ending": ending_with_text(printer.names,
                                                          ending.to_dict() if ending else None)},
                              ensure_ascii=False))
        return
    if ending is None:
        say(out, _("stopped after {cards} cards; phase {phase}").format(
            cards=len(engine.played), phase=engine.phase))
    else:
        printer.match_ended(ending)
    if save_path:
        say(out, _("state saved in {path}").format(path=save_path))


def _play_some(engine: Engine, chooser, cards: int, printer: Printer):
    while engine.phase != ENDED and len(engine.played) < cards:
        if engine.phase == TURN_START:
            printer.turn_started(engine.start_turn())
            continue
        draw = engine.draw()
        if draw is None:
            printer.turn_ended(engine.last_turn_end)
            continue
        printer.card_played(Step(draw, engine.choose(chooser(engine, draw))))
    return engine.ending


@cli.command(help=N_(
    "Preview the cards a saved match draws next, with reasons: the rest of the "
    "current turn, or the next turn when the save is between turns; or the turn a "
    "--situation starts.\n\nCards after the first depend on the options chosen (actor "
    "moods change eligibility), so the preview plays them with --policy; the draw "
    "itself continues from the saved RNG state. A card saved on screen is answered "
    "first. A Godot save names its deck; --deck overrides it."))
@deck_option
@click.option("--state", "state_path", default=None, metavar="STATE.json",
              help=N_("a match saved by `play --save` or by the Godot node (Sorteio.save_state)"))
@click.option("--situation", "situation_path", default=None, metavar="FILE",
              help=N_("a situation written by hand (year, meters, satisfaction, cards already "
                   "played; `sorteio schema --situation`), or a shipped sample: secao4"))
@player_seed_option
@policy_option
@json_option
def turn(deck_path, state_path, situation_path, seed, policy, as_json) -> None:
    if (state_path is None) == (situation_path is None):
        raise click.UsageError(_("give one of --state (a saved match) or --situation (a "
                                 "situation file)"))
    if situation_path is not None:
        _turn_from_situation(deck_path, situation_path, seed, policy, as_json)
        return
    state, saved_deck = _saved_match(_read_json(state_path))
    if deck_path is None and saved_deck and "://" in saved_deck:
        raise SorteioError(_("{path}: the save names the Godot deck {deck}; give that file "
                             "with --deck").format(path=state_path, deck=saved_deck))
    # "" is how the Godot node saves the default deck (as the bridge, read it as the default).
    from .state import restore_state  # here, not at start-up: `simulate` needs no saves

    deck = _load(deck_path if deck_path is not None else (saved_deck or None))
    engine = Engine(deck)
    try:
        notes = restore_state(engine, state)
    except StateError as exc:  # name the file on every line, as deck errors do
        raise SorteioError("\n".join(f"{state_path}: {line}" for line in str(exc).splitlines())
                           ) from None
    if not as_json:  # a save of an earlier version of the deck: say what changed (upgrade.py)
        for note in notes:
            warning_line(_("{path}: deck update: {note}").format(path=state_path, note=note))
    printer = Printer(as_json, Names.of(deck))
    if engine.phase == ENDED:
        raise SorteioError(_("{path}: the match has already ended").format(path=state_path))
    chooser = make_policy(policy, seed)
    if engine.phase != TURN_START and not as_json:  # a mid-turn save: say what is previewed
        heading(_midturn_heading(engine))
    if engine.current is not None:  # saved with a card on screen: the player answers it first
        printer.card_played(Step(engine.current, engine.choose(chooser(engine, engine.current))))
    # A turn saved midway is previewed to its end; one saved with no slot left just closes.
    shown = play_turn(engine, chooser, printer) if engine.phase == DRAWING else []
    if not shown and engine.phase == TURN_START:
        printer.turn_started(engine.start_turn())
        play_turn(engine, chooser, printer)
    if engine.ending is not None:
        printer.match_ended(engine.ending)
    if as_json:
        click.echo(json.dumps({"events": printer.events, "deck_update": notes},
                              ensure_ascii=False))


def _turn_from_situation(deck_path: Optional[str], path: str, seed: int, policy: str,
                         as_json: bool) -> None:
    """``turn --situation``: the turn the situation starts, drawn with ``seed``."""
    from .situation import load_situation, situation_engine

    deck = _load(deck_path)
    situation = load_situation(path, deck)
    engine = situation_engine(deck, situation, seed)
    printer = Printer(as_json, Names.of(deck))
    if not as_json:
        say(out, printable(ngettext(
            "situation «{name}» ({path}): year {year}, {cards} card already played",
            "situation «{name}» ({path}): year {year}, {cards} cards already played",
            len(situation.cartas_jogadas)).format(name=situation.nome, path=path,
                                                  year=situation.ano,
                                                  cards=len(situation.cartas_jogadas))))
    printer.turn_started(engine.start_turn())
    if engine.phase == DRAWING:
        play_turn(engine, make_policy(policy, seed), printer)
    if engine.ending is not None:
        printer.match_ended(engine.ending)
    if as_json:
        click.echo(json.dumps({"events": printer.events}, ensure_ascii=False))


def _midturn_heading(engine: Engine) -> str:
    """``Ano 2, a partir da vaga 4 de 7 (partida salva no meio do turno)``: the preview of a save
    made mid-turn continues a year whose heading was printed by another run."""
    return midturn_text(engine.year, engine.slot, engine.index.n_slots,
                        engine.current is not None)


@cli.command(help=N_(
    "Check a deck: every problem at once (exit 2), each naming the file, card and "
    "field; warnings do not fail."))
@click.argument("deck_path", metavar="DECK")
@json_option
def validate(deck_path, as_json) -> None:
    report = validation_report(deck_path)
    if as_json:
        click.echo(json.dumps(report, ensure_ascii=False))
        if not report["valid"]:
            sys.exit(BAD_INPUT)
        return
    error_lines(_row_text(row) for row in report["errors"])
    if not report["valid"]:
        sys.exit(BAD_INPUT)
    warning_lines(_row_text(row) for row in report["warnings"])
    summary = report["summary"]
    out.print(Text(_("{file}: ok — {cards} cards ({playable} playable), {meters} meters, "
                     "{actors} actors, {warnings} warning(s)").format(
        file=report["file"], warnings=len(report["warnings"]), **summary)), soft_wrap=True)


def _row_text(row: dict) -> str:
    card = _("card '{card}': ").format(card=row["card_id"]) if row["card_id"] else ""
    return f"{row['file']}: {card}{row['field']}: {row['message']}"


@cli.command(help=N_(
    "Print the deck's JSON Schema (for editors that validate while you type)."))
@click.option("--situation", "of_situation", is_flag=True,
              help=N_("the schema of a situation file instead (`turn --situation`)"))
def schema(of_situation) -> None:
    from .situation import situation_schema

    data = situation_schema() if of_situation else Deck.model_json_schema()
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


# `simulate` (GDD 06 §7 sweeps) and `lint` (deck coverage) live in sim/commands.py.
cli.add_command(simulate_cmd)
cli.add_command(lint_cmd)


@cli.group(help=N_(
    "A deck as a spreadsheet and back: export, edit in Excel, LibreOffice or Google "
    "Sheets, import (README \"Spreadsheets\")."))
def sheet() -> None:
    pass  # a group of commands: its help is in help= above


@sheet.command("export", help=N_(
    "Write DECK (a file or a built-in deck) as a workbook (.xlsx) or one CSV file "
    "(.csv)."))
@click.argument("deck_path", metavar="DECK")
@click.argument("out_path", metavar="OUT.xlsx|OUT.csv")
def sheet_export(deck_path, out_path) -> None:
    from .sheets import export_deck, format_issue

    done = export_deck(deck_path, out_path)
    for issue in done.warnings:
        warning_line(format_issue(done.file, issue))
    what = (_("workbook") if done.format == "xlsx"
            else _("CSV for Excel pt-BR: UTF-8 with BOM, ';' between cells"))
    say(out, _("{file}: {cards} cards from {deck} ({what})").format(
        file=done.file, cards=done.cards, deck=done.deck, what=what))


@sheet.command("import", help=N_(
    "Read SHEET (.xlsx or .csv) as a deck, check it (every problem names its cell, "
    "card and column; nothing is written then, exit 2) and write OUT.json, keeping "
    "the key order of the OUT.json it replaces."))
@click.argument("sheet_path", metavar="SHEET")
@click.argument("out_path", metavar="OUT.json")
def sheet_import(sheet_path, out_path) -> None:
    from .sheets import import_sheet

    done = import_sheet(sheet_path, out_path)
    deck = done.deck
    kept = _("; key order kept from the file it replaced") if done.shaped else ""
    say(out, _("{file}: {cards} cards, {meters} meters, {actors} actors from {sheet}").format(
        file=done.file, cards=len(deck.cartas), meters=len(deck.medidores),
        actors=len(deck.atores), sheet=done.sheet) + kept)


@cli.command(help=N_(
    "Serve the draw to Godot over a loopback socket (see addons/sorteio/README.md)."))
@click.option("--host", default="127.0.0.1", show_default=True,
              help=N_("loopback address to bind: 127.0.0.1, localhost or ::1 only"))
@click.option("--port", default=0, show_default=True, type=click.IntRange(0, 65535),
              help=N_("TCP port; 0 picks a free one"))
@click.option("--token", default=None, help=N_("request token (default: a random one per launch)"))
@click.option("--port-file", default=None, metavar="FILE",
              help=N_("write {{port, token, pid}} here as JSON, mode 0600 (what Godot reads)"))
@click.option("--parent-pid", type=int, default=None, metavar="PID",
              help=N_("exit when this process is gone (the game that started the server)"))
@click.option("--game-files", multiple=True, metavar="PREFIX",
              help=N_("once the --parent-pid game is gone, remove its files whose path starts "
                      "with PREFIX (an absolute path; repeatable)"))
@click.option("--log", "log", is_flag=True, help=N_("log connections to stderr"))
def serve(host, port, token, port_file, parent_pid, game_files, log) -> None:
    from .bridge.server import LOOPBACK
    from .bridge.server import serve as serve_bridge

    if host not in LOOPBACK:
        raise click.BadParameter(_("the bridge serves on loopback only, not {host!r}").format(
                                 host=host),
                                 param_hint="--host")
    serve_bridge(host, port, token, port_file, parent_pid, log, game_files=game_files)


def main() -> None:
    """Entry point: runs the CLI, turning user errors into exit code 2 without a traceback, Ctrl-C
    into 130 and a closed output pipe into a quiet 141."""
    # rich's own handler exits 1, which reads as a failure of the command itself.
    for console in (out, err, sim_out, sim_err):
        console.on_broken_pipe = quiet_broken_pipe  # type: ignore[method-assign]
    try:
        try:
            choose_language(sys.argv[1:])
            cli.main(standalone_mode=False)
        except click.exceptions.Abort:
            say(err, _("aborted"))
            sys.exit(INTERRUPTED)
        except KeyboardInterrupt:
            say(err, _("aborted"))
            sys.exit(INTERRUPTED)
        except click.ClickException as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except SorteioError as exc:
            for line in str(exc).splitlines():
                error_line(line)
            sys.exit(BAD_INPUT)
        except click.exceptions.Exit as exc:
            sys.exit(exc.exit_code)
        sys.stdout.flush()  # a pipe closed early fails here, inside the handler below
    except BrokenPipeError:
        quiet_broken_pipe()


def quiet_broken_pipe() -> None:
    """Exit 141 without a message: stdout is pointed at /dev/null first, so the interpreter's own
    final flush has nowhere to fail (see the Python docs, "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):
        pass
    sys.exit(BROKEN_PIPE)


if __name__ == "__main__":
    main()
