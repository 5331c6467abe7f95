"""Deck warnings (what is legal but risky for the draw, GDD 06 §5, §3.3) and the whole validation
report of a deck file (errors and warnings, shared by the CLI and the bridges)."""

from collections import Counter
from pathlib import Path
from typing import List, Union

from .compiled import compile_deck, paused_gc
from .deck import ATTACK_FUNCTION, CardType, Deck, Issue
from .engine import YEARS
from .i18n import _
from .loader import DeckError, load_deck, resolve_deck_path


def deck_warnings(deck: Deck) -> List[Issue]:
    """Warnings as ``Issue`` rows: too few playable cards for 4 x N slots (§5, D-102), a meter no
    card is linked to (its emergency and meter slots go to the random draw, §5), an actor without
    an attack card (§3.3.2), an actor whose ``satisfacao_inicial`` is in the Furioso band (§5
    "Ano 1"), a mode with a single card (often a typo), a card whose option count is not the two
    sides of the screen (GDD 05 §3.4), a declared mode no playable card has; and (issue 15) a card
    without ``texto`` (missing or blank: the player reads only the title), an option with empty
    ``efeitos`` (it moves no meter; the message says when ``efeitos_atores`` is empty too and the
    choice changes nothing), two options of one card whose ``texto`` is the same after stripping
    whitespace, case-insensitive (the two sides of GDD 05 §3.4 look alike)."""
    ix = compile_deck(deck)
    out: List[Issue] = []
    playable = sum(ix.playable)
    slots = ix.n_slots * YEARS
    if playable == 0:
        # Not an error: a designer starts a deck from scratch in the card table; a match on it is
        # refused (``require_drawable``, README "Rule decisions" 13).
        out.append(Issue(None, "cartas", _("no playable card: a match cannot start on this deck "
                                           "until it has one (§1)")))
    elif playable < slots:
        out.append(Issue(None, "cartas", _("{playable} playable cards for {slots} slots: "
                                           "matches will end short (§5, CA-11)").format(
                                               playable=playable, slots=slots)))
    for m, meter in enumerate(ix.meter_ids):
        if not ix.linked[m]:
            out.append(Issue(None, f"medidores.{m}", _(
                "no playable card is linked to meter '{meter}' (§3.2): its emergency and meter "
                "slots will go to the random draw (§5)").format(meter=meter)))
    for a, actor in enumerate(ix.actor_ids):
        if not ix.attack_cards[a]:
            out.append(Issue(None, f"atores.{a}", _(
                "actor '{actor}' has no playable attack card (funcao 'ataque'): when Furioso, its "
                "mandatory slot goes to the random draw (§5)").format(actor=actor)))
    for a, actor in enumerate(deck.atores):
        level = deck.level_of(actor.satisfacao_inicial)
        if level.funcao == ATTACK_FUNCTION:
            out.append(Issue(None, f"atores.{a}.satisfacao_inicial", _(
                "actor '{actor}' starts at satisfaction {satisfaction}, in level '{level}' "
                "(Furioso, {low}-{high}, funcao '{function}'): its attack card is mandatory in "
                "the first turn, but GDD 06 §5 says \"Ano 1 ... nenhum ator Furioso (todos em "
                "50)\"").format(actor=actor.id, satisfaction=actor.satisfacao_inicial,
                                level=level.id, low=level.minimo, high=level.maximo,
                                function=ATTACK_FUNCTION)))
    used = {c.modo for c in deck.cartas if c.playable}
    for i, mode in enumerate(deck.modos):
        if mode.id not in used:
            out.append(Issue(None, f"modos.{i}", _(
                "mode '{mode}' ({name}) is declared but no playable card has it").format(
                    mode=mode.id, name=mode.nome)))
    modes = Counter(c.modo for c in deck.cartas)
    for i, card in enumerate(deck.cartas):
        if modes[card.modo] == 1 and card.tipo != CardType.IMPEACHMENT:
            out.append(Issue(card.id, f"cartas.{i}.modo", _(
                "mode '{mode}' has no other card (a typo?)").format(mode=card.modo)))
        if len(card.opcoes) != 2:
            out.append(Issue(card.id, f"cartas.{i}.opcoes", _(
                "{count} option(s): the screen shows two sides (GDD 05 §3.4)").format(
                    count=len(card.opcoes))))
        if not card.texto.strip():
            out.append(Issue(card.id, f"cartas.{i}.texto", _(
                "the card has no text: the player reads only its title before choosing")))
        seen: dict = {}
        for j, option in enumerate(card.opcoes):
            if not option.efeitos:
                out.append(Issue(card.id, f"cartas.{i}.opcoes.{j}.efeitos", (
                    _("the option moves no meter and no actor: the choice changes nothing")
                    if not option.efeitos_atores else
                    _("the option moves no meter (only actors' satisfaction, efeitos_atores)"))))
            key = option.texto.strip().casefold()
            if key in seen:
                # Numbered from 1 as a designer counts (the field keeps the JSON index).
                out.append(Issue(card.id, f"cartas.{i}.opcoes.{j}.texto", _(
                    "option {this} has the same text as option {other}: the player cannot tell "
                    "the two sides of the screen apart (GDD 05 §3.4)").format(
                        this=j + 1, other=seen[key] + 1)))
            else:
                seen[key] = j
    return out


def issue_rows(source: str, issues: List[Issue]) -> List[dict]:
    """``Issue`` rows as JSON-safe dicts: ``{"file", "card_id", "field", "message"}``."""
    return [dict(issue._asdict(), file=source) for issue in issues]


def validation_report(deck_path: Union[str, Path, None]) -> dict:
    """Everything wrong with a deck file at once (issue 8), for ``sorteio validate`` and any
    bridge that asks: ``{"file", "valid", "errors": [row], "warnings": [row], "summary"}``.

    Errors are every problem of the file in one pass (schema, references, JSON, reading); rows
    are ``issue_rows``; warnings (``deck_warnings``) come only for a valid deck. ``summary`` is
    ``{"cards", "playable", "meters", "actors"}`` for a valid deck, else None. Never raises for
    a bad deck."""
    try:
        source = str(resolve_deck_path(deck_path))
        deck = load_deck(deck_path)
    except DeckError as exc:
        return {"file": exc.source, "valid": False, "errors": issue_rows(exc.source, exc.issues),
                "warnings": [], "summary": None}
    with paused_gc():  # bulk rows (3 per card on a deck without texts), no garbage cycles
        warnings = issue_rows(source, deck_warnings(deck))
    summary = {"cards": len(deck.cartas), "playable": sum(c.playable for c in deck.cartas),
               "meters": len(deck.medidores), "actors": len(deck.atores)}
    return {"file": source, "valid": True, "errors": [], "warnings": warnings,
            "summary": summary}
