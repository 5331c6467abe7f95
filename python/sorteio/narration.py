"""How the CLI tells a match to a designer, in the run's language (``i18n``): why each card
came (§3.3, §3.4, §5), the option chosen, the meters after it, with the deck's display names
(``wording.py``). ``--json`` output keeps the engine's own dicts, each reason with its ``texto``.

Every console here is made with ``markup=False``: a deck's titles, ids and texts are user data
and print as they are (``[bold]`` in a card title is text, not a style); styles are applied with
``rich.text.Text``, never with markup in an f-string.
"""

from typing import Iterable, List, Optional

from rich.console import Console
from rich.text import Text

from .i18n import _
from .jsonfile import printable
from .match import MatchObserver, Step
from .results import MatchEnd, TurnEnd, TurnStart
from .wording import (
    Names,
    card_mode_text,
    ending_text,
    meters_text,
    obligations_with_texts,
    reason_text,
    with_texts,
)

RULE_WIDTH = 76


def console(stderr: bool = False) -> Console:
    """A console that prints text, never markup, and does not cut lines at 80 columns when the
    output is piped to a file (in a terminal rich wraps at word boundaries)."""
    probe = Console(stderr=stderr)
    return Console(stderr=stderr, highlight=False, markup=False, emoji=False,
                   width=None if probe.is_terminal else 200)


out = console()
err = console(stderr=True)


def styled(*parts) -> Text:
    """``Text`` from plain strings and ``(text, style)`` pairs; nothing is parsed as markup."""
    return Text.assemble(*parts)


def say(console_: Console, *parts) -> None:
    """Print one line of text; in a terminal it wraps at word boundaries, in a file it is kept
    whole (a file reader has no width)."""
    console_.print(styled(*parts), soft_wrap=not console_.is_terminal)


def say_lines(console_: Console, lines: Iterable[tuple], batch: int = 2000) -> None:
    """``say`` for many lines (each a tuple of ``say``'s parts), the same bytes: one rich print
    per ``batch`` lines instead of one per line (rich spends ~0.15 ms on each print call, which
    was 13 of the 15 s ``sorteio validate`` took on a 30,000-card deck's 90,000 warnings)."""
    wrap = not console_.is_terminal
    pending: List[Text] = []

    def flush() -> None:
        if pending:
            console_.print(Text("\n").join(pending), soft_wrap=wrap)
            pending.clear()

    for parts in lines:
        pending.append(styled(*parts))
        if len(pending) >= batch:
            flush()
    flush()


def error_lines(messages: Iterable[str]) -> None:
    """``error_line`` for each message, in batches (``say_lines``)."""
    say_lines(err, (((_("error"), "red"), ": ", printable(m)) for m in messages))


def warning_lines(messages: Iterable[str]) -> None:
    """``warning_line`` for each message, in batches (``say_lines``)."""
    say_lines(err, (((_("warning"), "yellow"), ": ", printable(m)) for m in messages))


def error_line(message: str) -> None:
    """``error: ...`` on stderr, the message as one line of text (``jsonfile.printable``: no
    control character or lone surrogate from a user file reaches the terminal)."""
    say(err, (_("error"), "red"), ": ", printable(message))


def warning_line(message: str) -> None:
    """``warning: ...`` on stderr, the message as one line of text (see ``error_line``)."""
    say(err, (_("warning"), "yellow"), ": ", printable(message))


def heading(text: str, console_: Optional[Console] = None) -> None:
    """A section rule; in a file, a fixed-width one rather than one as wide as the page."""
    console_ = console_ or out
    if console_.is_terminal:
        console_.rule(Text(text))
    else:
        console_.print(Text(f"── {text} " + "─" * max(3, RULE_WIDTH - len(text))), soft_wrap=True)


class Printer(MatchObserver):
    """Prints a match card by card with ``names`` (``Names.of(deck)``), or collects it for
    ``--json`` in ``events`` (each draw's reason with its ``texto``)."""

    def __init__(self, as_json: bool, names: Names, console_: Optional[Console] = None) -> None:
        self.as_json = as_json
        self.names = names
        self.console = console_ or out
        self.events: List[dict] = []

    def heading(self, text: str) -> None:
        heading(text, self.console)

    def turn_started(self, turn: TurnStart) -> None:
        data = turn.to_dict()
        data["mandatory"] = obligations_with_texts(self.names, data["mandatory"])
        if self.as_json:
            self.events.append({"event": "turn_started", **data})
            return
        self.heading(_("Year {year}").format(year=turn.year))
        for ob in data["mandatory"]:
            say(self.console, "  ", _("mandatory: {obligation}").format(obligation=ob["texto"]))

    def card_played(self, step: Step) -> None:
        draw, choice = step
        if self.as_json:
            self.events.append({"event": "card_played",
                                "draw": with_texts(self.names, draw.to_dict()),
                                "choice": choice.to_dict()})
            return
        card = draw.card
        why = reason_text(self.names, draw.reason, card)
        say(self.console, (f"{draw.year}.{draw.slot}", "bold"),
            f" {card['id']} «{card['titulo']}» ",
            (f"({card_mode_text(self.names, card)}; {why})", "dim"))
        say(self.console, "    → ", card["opcoes"][choice.option]["texto"])
        say(self.console, "    ", (meters_text(self.names, choice.meters), "dim"))

    def turn_ended(self, end: TurnEnd) -> None:
        if self.as_json:
            self.events.append({"event": "turn_ended", **end.to_dict()})
        elif end.short:
            say(self.console, ("  " + _("short turn: {cards} cards (§5)").format(cards=end.cards),
                               "yellow"))

    def match_ended(self, ending: MatchEnd) -> None:
        if self.as_json:
            self.events.append({"event": "match_ended",
                                **ending.to_dict(), "texto": ending_text(self.names,
                                                                         ending.to_dict())})
            return
        self.heading(_("End"))
        say(self.console, ending_text(self.names, ending.to_dict()))

