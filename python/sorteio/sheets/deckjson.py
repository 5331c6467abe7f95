"""Writing a deck back to JSON the way the project's decks are written, with small diffs.

The text is ``json.dumps(indent=2, ensure_ascii=False)`` plus a final newline, as
``python/sorteio/decks/*.json``. Key order and which default-valued fields are written follow
the file being replaced (the *template*) entry by entry (entries matched by ``id``, options by
position), so re-importing an edited sheet over its deck changes only the lines of what was
edited. Entries the template does not have are written in the project's order: the deck's keys
``$schema, nome, parametros, medidores, niveis, atores, modos, cartas``; a card's ``id, titulo,
texto, modo, tipo, ator, funcao, pre_requisitos, aprendizado, opcoes``; an option's ``texto,
efeitos, efeitos_atores``; effects in the sheet's column order (the deck's meter and actor
order). Integers are written as integers.
"""

import contextlib
import functools
import json
import os
from enum import Enum
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple, Type

from pydantic import BaseModel

from ..deck import (
    Actor,
    Card,
    Deck,
    Learning,
    Level,
    Meter,
    Mode,
    Option,
    Parameters,
    Prerequisites,
)
from ..errors import SorteioError

DECK_ORDER = ("$schema", "nome", "parametros", "medidores", "niveis", "atores", "modos", "cartas")
CARD_ORDER = ("id", "titulo", "texto", "modo", "tipo", "ator", "funcao", "pre_requisitos",
              "aprendizado", "opcoes")
OPTION_ORDER = ("texto", "efeitos", "efeitos_atores")

# field -> the model of its value (a dict) or of each item of its list
_NESTED: Dict[Type[BaseModel], Dict[str, Type[BaseModel]]] = {
    Deck: {"parametros": Parameters, "medidores": Meter, "niveis": Level, "atores": Actor,
           "modos": Mode, "cartas": Card},
    Card: {"pre_requisitos": Prerequisites, "aprendizado": Learning, "opcoes": Option},
}
_ORDER: Dict[Type[BaseModel], Tuple[str, ...]] = {Deck: DECK_ORDER, Card: CARD_ORDER,
                                                  Option: OPTION_ORDER}
# Left out of a new entry when empty (the project's decks never write them so).
_QUIET: Dict[Type[BaseModel], Dict[str, Any]] = {
    Deck: {"$schema": None, "modos": []},
    Card: {"ator": None, "funcao": None},
    Option: {"efeitos_atores": {}},
}
_MISSING = object()


def _json_value(value: Any) -> Any:
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    return value


@functools.lru_cache(maxsize=None)
def _defaults(model: Type[BaseModel]) -> Dict[str, Any]:
    """Each optional field's default as JSON data (``$schema`` by its alias)."""
    out = {}
    for name, field in model.model_fields.items():
        if field.is_required():
            continue
        out[field.alias or name] = _json_value(field.get_default(call_default_factory=True))
    return out


def deck_data(deck: Deck, template: Any = None) -> Dict[str, Any]:
    """The deck as JSON data shaped like ``template`` (the decoded file it replaces, or None)."""
    data = deck.model_dump(mode="json")
    data["$schema"] = deck.schema_ref
    return _shape(Deck, data, template if isinstance(template, dict) else None)


def _shape(model: Type[BaseModel], new: Dict[str, Any], old: Optional[Dict[str, Any]]
           ) -> Dict[str, Any]:
    defaults = _defaults(model)
    canonical = list(_ORDER.get(model, tuple(new)))
    canonical += [k for k in new if k not in canonical]
    kept: Dict[str, Any] = {}
    for key in canonical:
        value = new.get(key, _MISSING)
        if value is _MISSING:
            continue
        if old is None:
            quiet = _QUIET.get(model, {})
            if key in quiet and value == quiet[key]:
                continue
        elif key in old:
            if value is None and old[key] is not None:
                continue  # a blanked optional field goes away rather than becoming null
        elif key in defaults and value == defaults[key]:
            continue  # the file left it to its default and it still is
        kept[key] = _nested(model, key, value, old.get(key) if old else None)
    return _ordered(kept, list(old) if old else [], canonical)


def _nested(model: Type[BaseModel], key: str, value: Any, old: Any) -> Any:
    inner = _NESTED.get(model, {}).get(key)
    if inner is None:
        if isinstance(value, dict) and isinstance(old, dict):  # effects: the file's order
            return _ordered(value, list(old), list(value))
        return value
    if isinstance(value, dict):
        return _shape(inner, value, old if isinstance(old, dict) else None)
    if isinstance(value, list):
        olds = old if isinstance(old, list) else []
        if inner is Option:  # options are matched by position
            return [_shape(inner, v, olds[i] if i < len(olds) and isinstance(olds[i], dict)
                           else None) for i, v in enumerate(value)]
        by_id = {}
        for entry in olds:
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                by_id.setdefault(entry["id"], entry)
        return [_shape(inner, v, by_id.get(v.get("id"))) for v in value]
    return value


def _ordered(data: Dict[str, Any], old_order: List[str], canonical: List[str]) -> Dict[str, Any]:
    """``data``'s keys in ``old_order``; a key the old order lacks goes right after the nearest
    key before it in ``canonical`` that is already placed (first when there is none)."""
    order = [k for k in old_order if k in data]
    for key in canonical:
        if key not in data or key in order:
            continue
        at = 0
        for before in reversed(canonical[:canonical.index(key)]):
            if before in order:
                at = order.index(before) + 1
                break
        order.insert(at, key)
    order += [k for k in data if k not in order]
    return {k: data[k] for k in order}


def dumps(data: Dict[str, Any]) -> str:
    """The project's deck formatting: 2-space indent, UTF-8 text as is, a final newline."""
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def read_template(path: Path) -> Any:
    """The decoded JSON of the file an import replaces, or None (no file, or not JSON)."""
    from ..jsonfile import JsonFileError, loads, read_text

    try:
        data, _ = loads(read_text(path), str(path))
    except (JsonFileError, ValueError):
        return None
    return data


def write_text(path: Path, text: str) -> None:
    """Write beside the file and rename over it: a full disk never leaves half a deck."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_bytes(text.encode("utf-8"))  # "\n" line ends on every system
        os.replace(partial, path)
    except OSError as exc:
        with contextlib.suppress(OSError):
            partial.unlink()
        raise SorteioError(f"{path}: cannot write: {exc.strerror or exc}; nothing was "
                           f"written") from None
