"""Loading decks from JSON files, with errors a designer can act on.

Every error names the file, the card id (when the problem is inside a card) and the field path
(or the line and column, when the file is not even JSON), and says what is wrong. ``DeckError``
carries them all, and a deck is checked in one pass: a deck with a schema error and a reference
error reports both, not one round after the other (issue 8).
"""

import errno
import re
from pathlib import Path
from typing import Any, List, Mapping, Optional, Sequence, Set, Tuple, Union

from pydantic import TypeAdapter, ValidationError

from .compiled import paused_gc
from .deck import RANGES, Card, Deck, DeckReferenceError, Issue, reference_issues
from .errors import SorteioError
from .i18n import _
from .jsonfile import (
    MAX_FILE_BYTES,
    JsonFileError,
    Problem,
    clean,
    loads,
    printable,
    read_text,
    scan,
    too_big,
)
from .pieces import between_pieces
from .validation_text import error_text

__all__ = [
    "MAX_FILE_BYTES",
    "DeckError",
    "SorteioError",
    "load_deck",
    "parse_deck",
    "read_deck_data",
    "resolve_deck_path",
]

DECKS_DIR = Path(__file__).parent / "decks"
BUILTIN_DECKS = {"padrao": DECKS_DIR / "padrao.json", "curto": DECKS_DIR / "curto.json"}
DEFAULT_DECK = "padrao"


class DeckError(SorteioError):
    """A deck that cannot be used. ``issues``: list of ``Issue`` (card_id, field, message)."""

    def __init__(self, source: str, issues: List[Issue]) -> None:
        # Keys, ids and paths come from the user: each row must stay one printable line.
        self.source = printable(source)
        self.issues = [Issue(None if i.card_id is None else printable(i.card_id),
                             printable(i.field), printable(i.message)) for i in issues]
        super().__init__("\n".join(format_issue(self.source, issue) for issue in self.issues))


class NoDrawableCardError(DeckError):
    """A deck with no card a match can draw (no ``cartas``, or none approved and outside the
    impeachment scene): GDD 06 §1 "O sorteio escolhe as 7 cartas de cada turno (28 por
    partida) ... Parte das cartas elegíveis", and such a deck has none to start from, so a match
    on it would be 0 cards long. Refused where a match starts (``new_match``, ``sorteio play``);
    the bridges answer it with the stable code ``empty_deck`` (README "Rule decisions" 13). The
    deck is still a valid file: ``validate`` warns, and the editor's card table opens and edits
    it."""


def require_drawable(deck: Deck, source: str) -> None:
    """Raise ``NoDrawableCardError`` (a ``DeckError`` naming ``source`` and the field ``cartas``)
    when ``deck`` has no playable card (``Card.playable``, §3.1.1); else return."""
    if any(card.playable for card in deck.cartas):
        return
    if deck.cartas:
        message = _("none of its {cards} cards can be drawn (none is approved outside the "
                    "impeachment scene, §3.1.1): a match needs at least one drawable card "
                    "(§1); approve one").format(cards=len(deck.cartas))
    else:
        message = _("the deck has no cards: a match needs at least one drawable card (§1); "
                    "add cards (the Sorteio panel's card table edits an empty deck)")
    raise NoDrawableCardError(source, [Issue(None, "cartas", message)])


def format_issue(source: str, issue: Issue) -> str:
    """``file: card 'id': field: message`` (the card part only when there is a card)."""
    card = _("card '{card}': ").format(card=issue.card_id) if issue.card_id else ""
    return f"{source}: {card}{issue.field}: {issue.message}"


def resolve_deck_path(deck: Union[str, Path, None]) -> Path:
    """A built-in deck name (``padrao``, ``curto``), a path, or None for the default deck."""
    if deck is None:
        return BUILTIN_DECKS[DEFAULT_DECK]
    if not str(deck).strip():
        raise DeckError("(deck)", [Issue(None, "(path)", _("empty deck path"))])
    if str(deck) in BUILTIN_DECKS:
        return BUILTIN_DECKS[str(deck)]
    return Path(deck)


def read_deck_data(deck: Union[str, Path, None],
                   text: Optional[str] = None) -> Tuple[str, Any, List[Problem]]:
    """``(source, data, problems)`` of a deck file: a regular file of at most ``MAX_FILE_BYTES``,
    UTF-8, JSON (see ``jsonfile``). The one place the CLI and the bridge handler read a deck.
    Raises ``DeckError`` when the file cannot be read or decoded; a missing file's error names
    the built-in decks.

    ``text``: the deck's JSON text itself (at most ``MAX_FILE_BYTES`` in UTF-8), as a game hands
    a deck that lives inside its pack (issue 14: no copy on disk); ``deck`` then only names it
    in messages (``(deck)`` when None) and nothing is read from disk."""
    source = (str(deck) if deck is not None and str(deck).strip() else "(deck)") \
        if text is not None else str(resolve_deck_path(deck))
    try:
        if text is None:
            text = read_text(source)
        elif len(text) * 4 > MAX_FILE_BYTES:  # could be over the limit (up to 4 bytes a char)
            size = len(text.encode("utf-8", "surrogatepass"))
            if size > MAX_FILE_BYTES:  # the limit of a file, the same for its text
                raise JsonFileError(source, "(file)", too_big(size, MAX_FILE_BYTES))
        data, problems = loads(text[1:] if text[:1] == "\ufeff" else text, source)
    except JsonFileError as exc:
        message = exc.message
        if exc.errno == errno.ENOENT:
            message = _("no such file (the built-in decks are {decks}; a path names a .json "
                        "file)").format(decks=", ".join(BUILTIN_DECKS))
        raise DeckError(source, [Issue(None, exc.where, message)]) from None
    return source, data, problems


def load_deck(deck: Union[str, Path, None] = None, in_pieces: bool = False,
              text: Optional[str] = None) -> Deck:
    """Read and validate a deck file (GDD 06 §3, §7). Raises ``DeckError`` listing every
    problem found: file, card id, field, what is wrong. ``in_pieces``: see ``parse_deck``;
    ``text``: the deck's JSON text, ``deck`` only naming it (see ``read_deck_data``)."""
    with paused_gc():  # a big deck builds faster without the garbage collector rescanning it
        source, data, problems = read_deck_data(deck, text)
        return parse_deck(data, source, problems, in_pieces=in_pieces)


CARDS_PER_PIECE = 250  # ~3-8 ms of pydantic-core per piece on a loaded core
_CARDS = TypeAdapter(List[Card])


def parse_deck(data: Any, source: str = "<deck>",
               problems: Optional[Sequence[Problem]] = None, in_pieces: bool = False) -> Deck:
    """Validate already-decoded JSON data as a deck. Raises ``DeckError`` with every problem:
    ``problems`` found while decoding (when None, ``data`` is scanned for them here), schema
    errors, and reference errors (unknown ids...) even when the schema has errors too.

    ``in_pieces``: validate the cards ``CARDS_PER_PIECE`` at a time, letting other threads take
    the GIL between pieces, instead of in one pydantic-core call that keeps it 0.4-1 s for
    30,000 cards (the in-process bridge's work thread: the game's frames wait for the GIL,
    issue 13). Same deck, same errors: a deck with any error is validated again in one piece,
    and its errors come from that."""
    if problems is None:
        data, problems = scan(data)
    if is_saved_match(data):
        raise DeckError(source, [Issue(None, "(file)", _("a saved match, not a deck (preview it "
                                                        "with `sorteio turn --state FILE`)"))])
    issues = [Issue(_card_id(data, [str(p) for p in problem.loc]), _field(problem.loc),
                    _with_range(problem)) for problem in problems]
    try:
        deck = _validate_in_pieces(data) if in_pieces else None
        if deck is None:
            deck = Deck.model_validate(data)
    except ValidationError as exc:
        issues.extend(_merge(issues, issues_from(exc, data)))
        raise DeckError(source, _in_deck_order(issues)) from None
    except RecursionError:  # not expected: json's own limit stops deeper data first
        issues.append(Issue(None, "(deck)", _("nested too deeply to check")))
        raise DeckError(source, issues) from None
    if issues:
        raise DeckError(source, _in_deck_order(issues))
    return deck


def _validate_in_pieces(data: Any) -> Optional[Deck]:
    """The deck, its cards validated piece by piece; None when a piece fails (the caller then
    validates in one piece, for the errors exactly as they always were)."""
    cards = data.get("cartas") if isinstance(data, dict) else None
    if not isinstance(cards, list):
        return None
    built: List[Card] = []
    for start in range(0, len(cards), CARDS_PER_PIECE):
        try:
            built.extend(_CARDS.validate_python(cards[start:start + CARDS_PER_PIECE]))
        except ValidationError:
            return None
        between_pieces()  # the game's frame may take the GIL now; a closed bridge stops here
    # The cards are Card instances now: the deck keeps them as they are (pydantic does not
    # validate a model instance again) and checks the rest, cross-references included.
    return Deck.model_validate({**data, "cartas": built})


def is_saved_match(data: Any) -> bool:
    """Whether decoded JSON is a saved match (``state.save_state``, or the Godot node's wrapper
    with the engine state under ``engine``) rather than a deck."""
    if isinstance(data, dict) and isinstance(data.get("engine"), dict):
        data = data["engine"]
    return isinstance(data, dict) and str(data.get("format", "")).startswith("sorteio-match/")


_CARD_FIELD = re.compile(r"cartas\.(\d+)(\.|$)")


def _in_deck_order(issues: List[Issue]) -> List[Issue]:
    """Rows about the whole deck first, then card by card in file order (a card's rows
    together), each group in the order found."""
    def card_position(issue: Issue) -> int:
        match = _CARD_FIELD.match(issue.field)
        return int(match.group(1)) if match else -1

    return sorted(issues, key=card_position)


def _field(loc: Sequence[Any]) -> str:
    return ".".join(clean(str(part)) for part in loc) or "(deck)"


def _merge(known: List[Issue], found: List[Issue]) -> List[Issue]:
    """``found`` without the rows of a field ``known`` already explains (a surrogate or a long
    number replaced in the data makes the model fail there too)."""
    fields: Set[str] = {issue.field for issue in known}
    return [issue for issue in found if issue.field not in fields]


def issues_from(exc: ValidationError, data: Any,
                overrides: Optional[Mapping[str, str]] = None) -> List[Issue]:
    """Turn pydantic errors into ``Issue`` rows, mapping ``cartas.<i>`` to the card's id, each
    message in the run's language (``validation_text.error_text``; ``overrides`` as there). When
    the schema failed, the reference checks (which pydantic runs only on a valid schema) are run
    on the raw data, so every problem is reported at once."""
    issues: List[Issue] = []
    references_checked = False
    for error in exc.errors(include_url=False):
        original = (error.get("ctx") or {}).get("error")
        if isinstance(original, DeckReferenceError):
            issues.extend(original.issues)
            references_checked = True
            continue
        loc = [clean(str(part)) for part in error["loc"]]
        field = ".".join(loc) or "(deck)"
        message = _range_message(error, loc) or error_text(error, overrides)
        issues.append(Issue(_card_id(data, loc), field, message))
    if not references_checked:
        seen = {(issue.field, issue.message) for issue in issues}
        issues.extend(issue for issue in reference_issues(data)
                      if (issue.field, issue.message) not in seen)
    return issues


def _range_message(error: Any, loc: List[str]) -> Optional[str]:
    """``5 is out of range: ano_minimo must be 1 to 4 (a mandate has 4 years, §3.1.3)``."""
    if error["type"] not in ("greater_than_equal", "less_than_equal"):
        return None
    rule = _range_rule([str(part) for part in loc])
    if rule is None:
        return None
    value = error.get("input")
    text = str(value) if isinstance(value, int) and abs(value) < 10**20 else _("a huge number")
    return _("{value} is out of range: {rule}").format(value=text, rule=rule)


def _range_rule(loc: List[str]) -> Optional[str]:
    """``ano_minimo must be 1 to 4 (why)`` for a bounded field's path, else None."""
    if not loc:
        return None
    name = loc[-2] if len(loc) >= 2 and loc[-2] in ("efeitos", "efeitos_atores") else loc[-1]
    if name not in RANGES:
        return None
    low, high, why = RANGES[name]
    return _("{field} must be {low} to {high} ({why})").format(field=name, low=low, high=high,
                                                               why=_(why))


def _with_range(problem: Problem) -> str:
    """A decoding problem's message, plus the field's range when it is a number out of it."""
    rule = _range_rule([str(part) for part in problem.loc])
    if rule is None or problem.kind != "long_number":
        return problem.message
    return f"{problem.message}; {rule}"


def _card_id(data: Any, loc: List[str]) -> Optional[str]:
    if len(loc) < 2 or loc[0] != "cartas" or not loc[1].isdigit():
        return None
    try:
        card = data["cartas"][int(loc[1])]
    except (KeyError, IndexError, TypeError):
        return None
    ident = card.get("id") if isinstance(card, dict) else None
    if isinstance(ident, str) and ident.strip():
        return clean(ident)
    return f"#{loc[1]}"
