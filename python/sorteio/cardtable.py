"""The card table of the Godot editor panel (issue 15): a deck's cards as rows of text, and the
designer's edits written back into the deck file.

The panel shows and edits cells; this module owns the deck file. Reading: every card of
``cartas`` becomes a row of display text (``table_rows``), also in a deck that does not validate
(a designer fixes it in the table). Writing: ``apply_edits`` applies a list of edits to the file's
JSON data and ``write_deck_text`` writes it back so that version control shows only what changed:

- key order is kept (objects keep the order they were read in; a key the table adds goes where the
  deck model declares it, see ``CARD_KEYS``);
- integers stay integers (the JSON never passes through Godot, whose parser makes every number a
  float; a cell's text is parsed here);
- the file's own layout is kept: its indent (spaces or a tab), ``\\u`` escapes or plain UTF-8,
  a BOM, CRLF line ends, a final newline (``FileStyle``).

Each applied edit returns its ``splice`` (``{"at", "removed", "rows"}``: the rows that replace
``removed`` rows from index ``at``, so the panel patches its copy without reloading 2,000 rows)
and the raw edits that redo and undo it (``replace``/``insert``/``remove`` with the card as JSON
text), which the panel hands to Godot's undo manager.

Edits (each a dict; ``index`` is the card's position in ``cartas`` and ``card`` its id, checked
against each other so a stale table cannot edit the wrong card):

- ``{"op": "set", "index", "card", "column", "text", "option"?}``: one cell (``COLUMNS``,
  ``OPTION_COLUMNS`` with ``option``: the option's position);
- ``{"op": "add", "after"?}``: a new card (a fresh ``nova-N`` id) after index ``after`` (or last);
- ``{"op": "duplicate", "index", "card"}``: a copy with a fresh id, right after it;
- ``{"op": "delete", "index", "card"}``;
- raw (undo/redo): ``{"op": "replace"|"insert", "index", "card_json"}``, ``{"op": "remove",
  "index"}``.

Errors: ``TableError`` (a ``SorteioError``) naming the card id and the column, e.g.
``card 'eco-01': ano: 'dois' is not a whole number from 1 to 4``. No GDD rule is checked here:
the panel validates the written file with ``sorteio validate``'s own checks.
"""

import copy
import json
import re
import secrets
from typing import Any, Dict, List, NamedTuple, Optional, Tuple

from .errors import SorteioError
from .i18n import _

# The card table's columns (GDD 05 fields; ``ano`` is ``pre_requisitos.ano_minimo``, §3.1.3;
# ``status`` is ``aprendizado.status``, D-102).
COLUMNS = ("id", "titulo", "texto", "modo", "ano", "tipo", "ator", "funcao", "status")
OPTION_COLUMNS = ("opcao", "efeitos", "efeitos_atores")
# Key order of a card as the deck model declares it (``sorteio.deck.Card``): where a key the
# table adds to a card goes.
CARD_KEYS = ("id", "titulo", "texto", "modo", "tipo", "ator", "funcao", "pre_requisitos",
             "aprendizado", "opcoes")
OPTION_KEYS = ("texto", "efeitos", "efeitos_atores")
NEW_CARD_PREFIX = "nova-"
COPY_SUFFIX = "-copia"
# An effect in a cell: "caixa +8", "Saúde: -5", "governabilidade=-6"; items split by , or ;
_DECIMAL = re.compile(r"[+-]?\d+[.,]\d+")
_EFFECT = re.compile(r"^\s*(?P<name>[^:=]+?)\s*[:=]?\s*(?P<value>[+-]?\s*\d+)\s*$")


class TableError(SorteioError):
    """An edit that cannot be applied: a bad cell text, an unknown card or column."""


class FileStyle(NamedTuple):
    """How a deck file is laid out, so a rewrite changes only the edited lines."""

    indent: Any  # int (spaces), "\t", or None (one line)
    ensure_ascii: bool
    bom: bool
    newline: str
    final_newline: bool

    @classmethod
    def of(cls, text: str) -> "FileStyle":
        """The style of ``text`` (a deck file's contents)."""
        bom = text.startswith("\ufeff")
        body = text[1:] if bom else text
        newline = "\r\n" if "\r\n" in body else "\n"
        indent: Any = None
        match = re.search(r"\n([ \t]+)\S", body)
        if match:
            lead = match.group(1)
            indent = "\t" if lead.startswith("\t") else len(lead)
        ascii_only = all(ord(ch) < 128 for ch in body)
        return cls(indent, ascii_only and "\\u" in body, bom, newline,
                   body.endswith(("\n", "\r\n")))

    def dump(self, data: Any) -> str:
        """``data`` as text in this style."""
        text = _indented(data, self) if self.indent is not None else json.dumps(
            data, ensure_ascii=self.ensure_ascii)
        if self.newline != "\n":
            text = text.replace("\n", self.newline)
        if self.final_newline:
            text += self.newline
        return ("\ufeff" if self.bom else "") + text


# Indented text of cards already written once, by (indent, ensure_ascii, compact JSON): json's
# indented encoder is pure Python (~0.7 ms a card), so a 2,000-card deck is re-encoded only
# where it changed.
_CARD_TEXT: Dict[Tuple[Any, bool, str], str] = {}
_CARD_TEXT_MAX = 100_000


def _indented(data: Any, style: FileStyle) -> str:
    """``json.dumps(data, indent=...)`` of a deck, each card's text from ``_CARD_TEXT``."""
    cards = data.get("cartas") if isinstance(data, dict) else None
    if not isinstance(cards, list) or not cards:
        return json.dumps(data, ensure_ascii=style.ensure_ascii, indent=style.indent)
    token = f"@sorteio-card-{secrets.token_hex(8)}@"
    skeleton = dict(data, cartas=[token] * len(cards))
    pieces = json.dumps(skeleton, ensure_ascii=style.ensure_ascii,
                        indent=style.indent).split(f'"{token}"')
    unit = style.indent if isinstance(style.indent, str) else " " * style.indent
    if len(_CARD_TEXT) > _CARD_TEXT_MAX:
        _CARD_TEXT.clear()
    out = [pieces[0]]
    for card, piece in zip(cards, pieces[1:]):
        key = (style.indent, style.ensure_ascii,
               json.dumps(card, ensure_ascii=False, separators=(",", ":")))
        text = _CARD_TEXT.get(key)
        if text is None:  # a card sits two levels deep: {"cartas": [card]}
            text = json.dumps(card, ensure_ascii=style.ensure_ascii,
                              indent=style.indent).replace("\n", "\n" + unit * 2)
            _CARD_TEXT[key] = text
        out += [text, piece]
    return "".join(out)


def write_deck_text(data: Any, style: FileStyle) -> str:
    """The deck file's new text (see ``FileStyle``)."""
    return style.dump(data)


# -- reading: cards as rows of text ------------------------------------------------------------


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False)


def _effects_text(value: Any) -> str:
    """``{"caixa": 8, "saude": -5}`` -> ``"caixa +8, saude -5"`` (anything else as JSON)."""
    if not isinstance(value, dict):
        return _text(value)
    parts = []
    for key, delta in value.items():
        if isinstance(delta, int) and not isinstance(delta, bool):
            parts.append(f"{key} {delta:+d}")
        else:
            parts.append(f"{key} {_text(delta)}")
    return ", ".join(parts)


def _names(data: Dict[str, Any], key: str) -> Dict[str, str]:
    out = {}
    for entry in data.get(key) or []:
        if isinstance(entry, dict) and isinstance(entry.get("id"), str):
            out[entry["id"]] = _text(entry.get("nome", entry["id"]))
    return out


def card_row(card: Any, modes: Dict[str, str]) -> Dict[str, Any]:
    """One card as the table shows it: ``COLUMNS`` as text, ``modo_nome`` (the mode's display
    name), ``ano`` as an int when it is one (for sorting) and ``opcoes``: ``[{"opcao",
    "efeitos", "efeitos_atores"}]`` as text."""
    if not isinstance(card, dict):
        return {"id": "", "titulo": _text(card), "opcoes": [], "ano": None, "modo_nome": ""}
    row: Dict[str, Any] = {column: _text(card.get(column)) for column in COLUMNS
                           if column not in ("ano", "status")}
    prereq = card.get("pre_requisitos")
    year = prereq.get("ano_minimo", 1) if isinstance(prereq, dict) else 1
    row["ano"] = year if isinstance(year, int) and not isinstance(year, bool) else None
    row["ano_texto"] = _text(year)
    learning = card.get("aprendizado")
    row["status"] = _text(learning.get("status", "aprovado")) if isinstance(learning, dict) \
        else "aprovado"
    row["modo_nome"] = modes.get(row["modo"], row["modo"])
    options = card.get("opcoes") if isinstance(card.get("opcoes"), list) else []
    row["opcoes"] = [
        {"opcao": _text(o.get("texto")), "efeitos": _effects_text(o.get("efeitos", {})),
         "efeitos_atores": _effects_text(o.get("efeitos_atores", {}))}
        if isinstance(o, dict) else {"opcao": _text(o), "efeitos": "", "efeitos_atores": ""}
        for o in options]
    return row


def table_rows(data: Any, offset: int = 0, limit: Optional[int] = None) -> Dict[str, Any]:
    """The rows of ``data["cartas"]`` from ``offset`` (at most ``limit``): ``{"total",
    "offset", "rows", "modes": [{id, nome}], "meters", "actors", "types"}`` (the choices a
    cell editor offers). Raises ``TableError`` when ``data`` has no list of cards."""
    cards = _cards(data)
    modes = _names(data, "modos")
    for card in cards:  # modes used by cards but not declared (a deck without "modos")
        if isinstance(card, dict) and isinstance(card.get("modo"), str):
            modes.setdefault(card["modo"], card["modo"])
    end = len(cards) if limit is None else min(len(cards), offset + limit)
    return {
        "total": len(cards), "offset": offset,
        "rows": [card_row(card, modes) for card in cards[offset:end]],
        "modes": [{"id": k, "nome": v} for k, v in modes.items()],
        "meters": [{"id": k, "nome": v} for k, v in _names(data, "medidores").items()],
        "actors": [{"id": k, "nome": v} for k, v in _names(data, "atores").items()],
        "types": ["comum", "ator", "impeachment"],
        "statuses": ["aprovado", "rascunho"],
    }


def _cards(data: Any) -> List[Any]:
    if not isinstance(data, dict) or not isinstance(data.get("cartas"), list):
        raise TableError(_("the deck has no list of cards ('cartas')"))
    return data["cartas"]


# -- writing: edits -----------------------------------------------------------------------------


def _ordered(obj: Dict[str, Any], key: str, value: Any, order: Tuple[str, ...]) -> None:
    """Set ``obj[key] = value``; a new key goes where ``order`` puts it (before the first key
    that comes after it), so files keep the model's order."""
    if key in obj or key not in order:
        obj[key] = value
        return
    later = set(order[order.index(key) + 1:])
    items = list(obj.items())
    position = next((i for i, (k, _v) in enumerate(items) if k in later), len(items))
    items.insert(position, (key, value))
    obj.clear()
    obj.update(items)


def _lookup(name: str, names: Dict[str, str]) -> str:
    """An id from an id or a display name (case and accents as typed, case-insensitive)."""
    if name in names:
        return name
    folded = name.casefold()
    for ident, nome in names.items():
        if nome.casefold() == folded or ident.casefold() == folded:
            return ident
    return name


def parse_effects(text: str, names: Dict[str, str], where: str) -> Dict[str, int]:
    """``"caixa +8, Saúde -5"`` -> ``{"caixa": 8, "saude": -5}`` (display names become ids;
    ``,`` or ``;`` between items). Raises ``TableError`` naming ``where`` and the item."""
    out: Dict[str, int] = {}
    text = text.replace("\u2212", "-")  # the minus some programs write (as the sheets read it)
    # A decimal comma or point ("caixa +8,5", "caixa 8.5", "1.000"): split at the comma it read
    # as '5' alone, and the point made a meter named 'caixa 8.' with an effect of 5.
    decimal = _DECIMAL.search(text)
    if decimal:
        raise TableError("{where}: {why}".format(where=where, why=_(
            "{value} is not a whole number (every number of a deck is an integer)").format(
                value=repr(decimal.group(0)))))
    for item in re.split(r"[;,]", text):
        if not item.strip():
            continue
        match = _EFFECT.match(item)
        if not match:
            raise TableError(_("{where}: '{item}' is not 'name +N' or 'name -N'").format(
                where=where, item=item.strip()))
        out[_lookup(match.group("name"), names)] = int(match.group("value").replace(" ", ""))
    return out


def _year(text: str, where: str) -> int:
    try:
        value = int(text.strip())
    except ValueError:
        value = 0
    if not 1 <= value <= 4:
        raise TableError(_("{where}: '{text}' is not a whole number from 1 to 4 (§3.1.3)").format(
            where=where, text=text))
    return value


def _set_cell(data: Dict[str, Any], card: Dict[str, Any], edit: Dict[str, Any]) -> None:
    column, text = edit.get("column"), edit.get("text")
    where = _("card '{card}': ").format(card=_text(card.get("id"))) + str(column)
    if not isinstance(text, str):
        raise TableError(_("{where}: the cell's text must be a string").format(where=where))
    if column in OPTION_COLUMNS:
        _set_option_cell(data, card, edit, column, text, where)
    elif column == "ano":
        prereq = card.get("pre_requisitos")
        if not isinstance(prereq, dict):
            prereq = {}
            _ordered(card, "pre_requisitos", prereq, CARD_KEYS)
        prereq["ano_minimo"] = _year(text, where)
    elif column == "status":
        learning = card.get("aprendizado")
        if not isinstance(learning, dict):
            learning = {}
            _ordered(card, "aprendizado", learning, CARD_KEYS)
        _ordered(learning, "status", text.strip(), ("status", "texto"))
    elif column in ("ator", "funcao") and not text.strip():
        card.pop(column, None)  # optional fields: an empty cell removes them
    elif column in COLUMNS:
        value = text if column in ("titulo", "texto") else text.strip()
        if column == "modo":
            value = _lookup(value, _names(data, "modos"))
        elif column == "ator":
            value = _lookup(value, _names(data, "atores"))
        _ordered(card, column, value, CARD_KEYS)
    else:
        raise TableError(_("{where}: no such column (columns: {columns})").format(
            where=where, columns=", ".join(COLUMNS + OPTION_COLUMNS)))


def _set_option_cell(data: Dict[str, Any], card: Dict[str, Any], edit: Dict[str, Any],
                     column: str, text: str, where: str) -> None:
    options = card.get("opcoes")
    index = _whole(edit.get("option"))
    if not isinstance(options, list):
        options = []
        _ordered(card, "opcoes", options, CARD_KEYS)
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= len(options):
        raise TableError(_("{where}: no option {index!r} (the card has {count})").format(
            where=where, index=index, count=len(options)))
    if index == len(options):  # one past the last: a new option
        options.append({"texto": "", "efeitos": {}})
    option = options[index]
    if not isinstance(option, dict):
        raise TableError(_("{where}: option {index} is not an object; fix it in the file").format(
            where=where, index=index))
    where = _("card '{card}': ").format(card=_text(card.get("id"))) + f"opcoes.{index}.{column}"
    if column == "opcao":
        _ordered(option, "texto", text, OPTION_KEYS)
    elif column == "efeitos":
        _ordered(option, "efeitos", parse_effects(text, _names(data, "medidores"), where),
                 OPTION_KEYS)
    elif text.strip() or "efeitos_atores" in option:
        effects = parse_effects(text, _names(data, "atores"), where)
        if effects or "efeitos_atores" in option:
            _ordered(option, "efeitos_atores", effects, OPTION_KEYS)


def _fresh_id(cards: List[Any], base: str) -> str:
    taken = {c.get("id") for c in cards if isinstance(c, dict)}
    if base not in taken and not base.endswith("-"):
        return base
    number = 1
    while f"{base}{number}" in taken:
        number += 1
    return f"{base}{number}"


def new_card(data: Dict[str, Any]) -> Dict[str, Any]:
    """A new card to fill in: the first declared mode, year 1, approved, two options without
    effects (the validator then warns about them until they are filled)."""
    cards = _cards(data)
    modes = list(_names(data, "modos")) or [c.get("modo") for c in cards
                                              if isinstance(c, dict) and c.get("modo")]
    return {"id": _fresh_id(cards, NEW_CARD_PREFIX), "titulo": "Nova carta", "texto": "",
            "modo": modes[0] if modes else "", "tipo": "comum",
            "pre_requisitos": {"ano_minimo": 1}, "aprendizado": {"status": "aprovado"},
            "opcoes": [{"texto": "Sim", "efeitos": {}}, {"texto": "Não", "efeitos": {}}]}


def _whole(value: Any) -> Any:
    """``value`` as an int when it is a whole number: Godot's JSON sends every number as a
    float (``3.0``)."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _card_at(cards: List[Any], edit: Dict[str, Any]) -> int:
    """The index an edit names, checked against its card id (a stale table fails here)."""
    index, ident = _whole(edit.get("index")), edit.get("card")
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(cards):
        raise TableError(_("no card at index {index!r} (the deck has {count}); reload").format(
            index=index, count=len(cards)))
    if "card" in edit:
        found = cards[index].get("id") if isinstance(cards[index], dict) else None
        if found != ident:
            raise TableError(_("card '{card}' is no longer at index {index} (the deck changed "
                               "on disk?); reload the table").format(card=ident, index=index))
    return index


def _card_from_json(text: Any) -> Any:
    if not isinstance(text, str):
        raise TableError(_("'card_json' must be a card as JSON text"))
    return json.loads(text)


Splice = Dict[str, Any]


def _apply(data: Dict[str, Any], edit: Any) -> Tuple[Splice, List[Dict], List[Dict]]:
    """Apply one edit; returns (splice, redo edits, undo edits)."""
    cards = _cards(data)
    if not isinstance(edit, dict):
        raise TableError(_("an edit must be an object with an 'op'"))
    op = edit.get("op")
    modes = _names(data, "modos")
    if op in ("set", "replace"):
        index = _card_at(cards, edit)
        before = json.dumps(cards[index], ensure_ascii=False)
        if op == "set":
            if not isinstance(cards[index], dict):
                raise TableError(_("card {index} is not an object; fix it in the file").format(
                    index=index))
            card = copy.deepcopy(cards[index])
            _set_cell(data, card, edit)
        else:
            card = _card_from_json(edit.get("card_json"))
        cards[index] = card
        after = json.dumps(card, ensure_ascii=False)
        return ({"at": index, "removed": 1, "rows": [card_row(card, modes)]},
                [{"op": "replace", "index": index, "card_json": after}],
                [{"op": "replace", "index": index, "card_json": before}])
    if op in ("add", "duplicate", "insert"):
        if op == "add":
            after = _whole(edit.get("after"))
            index = len(cards) if after is None else _card_at(cards, {"index": after}) + 1
            card = new_card(data)
        elif op == "duplicate":
            source = _card_at(cards, edit)
            card = copy.deepcopy(cards[source])
            if isinstance(card, dict):
                card["id"] = _fresh_id(cards, f"{_text(card.get('id'))}{COPY_SUFFIX}")
            index = source + 1
        else:
            index = _whole(edit.get("index"))
            if not isinstance(index, int) or not 0 <= index <= len(cards):
                raise TableError(_("cannot insert at index {index!r} (the deck has {count})"
                                   ).format(index=index, count=len(cards)))
            card = _card_from_json(edit.get("card_json"))
        cards.insert(index, card)
        text = json.dumps(card, ensure_ascii=False)
        return ({"at": index, "removed": 0, "rows": [card_row(card, modes)]},
                [{"op": "insert", "index": index, "card_json": text}],
                [{"op": "remove", "index": index}])
    if op in ("delete", "remove"):
        index = _card_at(cards, edit)
        text = json.dumps(cards.pop(index), ensure_ascii=False)
        return ({"at": index, "removed": 1, "rows": []},
                [{"op": "remove", "index": index}],
                [{"op": "insert", "index": index, "card_json": text}])
    raise TableError(_("unknown edit op {op!r} (set, add, duplicate, delete, replace, insert, "
                       "remove)").format(op=op))


def apply_edits(data: Dict[str, Any], edits: List[Any]) -> Dict[str, Any]:
    """Apply ``edits`` in order to the deck data (in place). Returns ``{"splices", "redo",
    "undo"}``: redo replays the whole batch, undo reverts it (in reverse order). All or
    nothing for the file: on a ``TableError`` ``data`` may be half edited and must be dropped
    (``deck_edit`` then writes nothing)."""
    if not isinstance(edits, list) or not edits:
        raise TableError(_("'edits' must be a non-empty list"))
    splices: List[Splice] = []
    redo: List[Dict] = []
    undo: List[Dict] = []
    for edit in edits:
        splice, forward, back = _apply(data, edit)
        splices.append(splice)
        redo += forward
        undo = back + undo
    return {"splices": splices, "redo": redo, "undo": undo}
