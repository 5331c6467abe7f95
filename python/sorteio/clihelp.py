"""``--help`` in the language of the run (issue 15 "One language").

click reads a command's help and its options' help when the command is built, at import, before
``--lang`` is known. So the code gives click the English message ids (``help=N_("...")``, which
``scripts/i18n.py`` extracts) and these command classes translate them only when a help page or
a command list is written, in the language of that moment. Fields in a help text
(``{decks}``) are filled from ``FIELDS`` after translating, so a translation never freezes a
list the code owns (the built-in decks, the §7 parameter names).

Each id is one logical line (no indentation inside): click cleans a docstring with
``inspect.cleandoc`` and the id must be the cleaned text; ``\\n\\n`` separates paragraphs.
"""

import contextlib
from typing import Dict, Iterator, List, Tuple

import click

from .i18n import N_, _
from .loader import BUILTIN_DECKS

FIELDS: Dict[str, str] = {"decks": ", ".join(BUILTIN_DECKS)}  # more from sim/commands.py
DECK_HELP = N_("deck file, or a built-in deck: {decks} (default: padrao)")


def help_text(message: str) -> str:
    """A help id in the current language, its ``{fields}`` filled from ``FIELDS``."""
    return _(message).format_map(FIELDS)


@contextlib.contextmanager
def _translated(command: click.Command) -> Iterator[None]:
    """The command's and its parameters' help, translated for the block (the CLI is one thread,
    one language per run; the originals are put back however the block ends)."""
    saved: List[Tuple[object, str]] = []
    for target in (command, *command.params):
        text = getattr(target, "help", None)
        if text:
            saved.append((target, text))
            target.help = help_text(text)  # type: ignore[union-attr]
    try:
        yield
    finally:
        for target, text in saved:
            target.help = text  # type: ignore[attr-defined]


class _Localized:
    """Help pages and command lists written in the run's language."""

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        with _translated(self):  # type: ignore[arg-type]
            super().format_help(ctx, formatter)  # type: ignore[misc]

    def get_short_help_str(self, limit: int = 45) -> str:
        with _translated(self):  # type: ignore[arg-type]
            return super().get_short_help_str(limit)  # type: ignore[misc]


class Command(_Localized, click.Command):
    """A ``click.Command`` whose help is translated when shown."""


class Group(_Localized, click.Group):
    """A ``click.Group`` whose help, and its commands' and subgroups', are translated when shown."""

    command_class = Command
    group_class = type  # subgroups are of this class too
