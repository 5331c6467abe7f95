"""Loading decks from JSON files, with errors a designer can act on.

Every error names the file, the card id (when the problem is inside a card) and the field path,
and says what is wrong. ``DeckError`` carries them all, so a deck with five mistakes reports five.
"""

import json
from pathlib import Path
from typing import Any, Callable, List, Optional, Union

from pydantic import ValidationError

from .compiled import paused_gc
from .deck import Deck, DeckReferenceError, Issue
from .errors import SorteioError

__all__ = ["DeckError", "SorteioError", "load_deck", "parse_deck", "resolve_deck_path"]

DECKS_DIR = Path(__file__).parent / "decks"
BUILTIN_DECKS = {"padrao": DECKS_DIR / "padrao.json", "curto": DECKS_DIR / "curto.json"}
DEFAULT_DECK = "padrao"


class DeckError(SorteioError):
    """A deck that cannot be used. ``issues``: list of ``Issue`` (card_id, field, message)."""

    def __init__(self, source: str, issues: List[Issue]) -> None:
        self.source = source
        self.issues = issues
        super().__init__("\n".join(format_issue(source, issue) for issue in issues))


def format_issue(source: str, issue: Issue) -> str:
    """``file: card 'id': field: message`` (the card part only when there is a card)."""
    card = f"card '{issue.card_id}': " if issue.card_id else ""
    return f"{source}: {card}{issue.field}: {issue.message}"


def resolve_deck_path(deck: Union[str, Path, None]) -> Path:
    """A built-in deck name (``padrao``, ``curto``), a path, or None for the default deck."""
    if deck is None:
        return BUILTIN_DECKS[DEFAULT_DECK]
    if not str(deck).strip():
        raise DeckError("(deck)", [Issue(None, "(path)", "empty deck path")])
    if str(deck) in BUILTIN_DECKS:
        return BUILTIN_DECKS[str(deck)]
    return Path(deck)


def load_deck(deck: Union[str, Path, None] = None) -> Deck:
    """Read and validate a deck file (GDD 06 §3, §7). Raises ``DeckError`` for any problem."""
    path = resolve_deck_path(deck)
    source = str(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise DeckError(source, [Issue(None, "(file)", f"cannot read: {exc.strerror}")]) from None
    except UnicodeDecodeError as exc:
        raise DeckError(source, [Issue(None, "(file)", f"not UTF-8 text: {exc.reason}")]) from None
    with paused_gc():  # a big deck builds faster without the garbage collector rescanning it
        return parse_deck(decode_json(text, source, DeckError), source)


def decode_json(text: str, source: str, error: Callable[[str, List[Issue]], Exception]) -> Any:
    """``json.loads`` whose failures (syntax, absurd nesting, numbers too long to read) become
    ``error(source, [Issue])`` instead of a traceback."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        issue = Issue(None, f"(line {exc.lineno}, column {exc.colno})", f"invalid JSON: {exc.msg}")
    except RecursionError:
        issue = Issue(None, "(file)", "invalid JSON: nested too deeply")
    except ValueError as exc:  # e.g. an integer of thousands of digits
        issue = Issue(None, "(file)", f"invalid JSON: {exc}")
    raise error(source, [issue]) from None


def parse_deck(data: Any, source: str = "<deck>") -> Deck:
    """Validate already-decoded JSON data as a deck. Raises ``DeckError``."""
    try:
        return Deck.model_validate(data)
    except ValidationError as exc:
        raise DeckError(source, issues_from(exc, data)) from None


def issues_from(exc: ValidationError, data: Any) -> List[Issue]:
    """Turn pydantic errors into ``Issue`` rows, mapping ``cartas.<i>`` to the card's id."""
    issues: List[Issue] = []
    for error in exc.errors(include_url=False):
        original = (error.get("ctx") or {}).get("error")
        if isinstance(original, DeckReferenceError):
            issues.extend(original.issues)
            continue
        loc = [str(part) for part in error["loc"]]
        field = ".".join(loc) or "(deck)"
        message = error["msg"]
        if message.startswith("Value error, "):
            message = message[len("Value error, ") :]
        issues.append(Issue(_card_id(data, loc), field, message))
    return issues


def _card_id(data: Any, loc: List[str]) -> Optional[str]:
    if len(loc) < 2 or loc[0] != "cartas" or not loc[1].isdigit():
        return None
    try:
        card = data["cartas"][int(loc[1])]
    except (KeyError, IndexError, TypeError):
        return None
    ident = card.get("id") if isinstance(card, dict) else None
    return str(ident) if ident is not None else f"#{loc[1]}"
