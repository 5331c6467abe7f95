"""The designers' words for what the draw reports, with display names, not ids, in the
language of the run or request (``i18n``: pt-BR or en).

One place for every sentence a person reads about a draw: the CLI narration, the bridges'
``reason.texto`` (what the Godot node passes to ``card_drawn``), the demo and the editor panel all
get their text from here. Plain strings, no markup and no terminal styling (``narration.py``
prints them as text, never as rich markup).

Shapes: ``reason`` is a ``Draw.reason`` dict (``results.py``), ``card`` a card dict as in the deck
(``Draw.card``), ``ending`` a ``MatchEnd.to_dict()``; ids are looked up in ``Names`` and fall back
to the id itself when the deck gives no name (modes without ``modos``).
"""

from typing import Any, Dict, Iterable, Mapping, Optional

from .deck import Deck
from .i18n import N_, _, ngettext

OBLIGATION = {"emergency": N_("emergency of {target}"), "actor": N_("attack of {target}"),
              "meter": N_("low meter: {target}")}
CATASTROPHE = "catastrophe"


class Names:
    """Display names of a deck's meters, actors, levels and modes (``nome``), by id."""

    def __init__(self, meters: Mapping[str, str], actors: Mapping[str, str],
                 levels: Mapping[str, str], modes: Mapping[str, str]) -> None:
        self.meters = dict(meters)
        self.actors = dict(actors)
        self.levels = dict(levels)
        self.modes = dict(modes)

    @classmethod
    def of(cls, deck: Deck) -> "Names":
        modes = {md.id: md.nome for md in deck.modos}
        for card in deck.cartas:  # undeclared modes (no ``modos`` in the deck) show their id
            modes.setdefault(card.modo, card.modo)
        return cls({m.id: m.nome for m in deck.medidores}, {a.id: a.nome for a in deck.atores},
                   {lv.id: lv.nome for lv in deck.niveis}, modes)

    def meter(self, ident: str) -> str:
        return self.meters.get(ident, ident)

    def actor(self, ident: str) -> str:
        return self.actors.get(ident, ident)

    def mode(self, ident: str) -> str:
        return self.modes.get(ident, ident)

    def level(self, ident: str) -> str:
        return self.levels.get(ident, ident)

    def target(self, kind: str, ident: str) -> str:
        """The name of an obligation's target: an actor for ``actor``, else a meter (§3.3)."""
        return self.actor(ident) if kind == "actor" else self.meter(ident)

    def mode_list(self) -> list:
        """``[{"id", "nome"}]`` for every mode, declared order first (the bridges' deck summary)."""
        return [{"id": k, "nome": v} for k, v in self.modes.items()]


def obligation_text(names: Names, kind: str, target: str) -> str:
    """``emergência de Dignidade``, ``ataque de Latifundiários``, ``medidor baixo: Saúde``
    (en: ``emergency of Dignidade``, ``attack of Latifundiários``, ``low meter: Saúde``)."""
    template = _(OBLIGATION[kind]) if kind in OBLIGATION else kind + " {target}"
    return template.format(target=names.target(kind, target))


def reason_text(names: Names, reason: Mapping[str, Any], card: Optional[Mapping] = None) -> str:
    """One sentence saying why a card was drawn (§3.3, §3.4, §5). With ``card``, a meter or
    emergency obligation also names the option that raises the meter (what links it, §3.2)."""
    kind = reason["kind"]
    if kind == "mandatory":
        obligation, target = reason["obligation"], reason["target"]
        text = _("mandatory: {obligation}").format(
            obligation=obligation_text(names, obligation, target))
        also = [obligation_text(names, m["kind"], m["target"]) for m in reason.get("merged") or ()]
        if also:  # §5 "Mesma carta atende duas obrigações — conta uma vez"
            text += " " + _("(also serves: {obligations})").format(obligations=", ".join(also))
        if card is not None and obligation != "actor":
            raising = [o["texto"] for o in card["opcoes"] if o["efeitos"].get(target, 0) > 0]
            if raising:
                text += " " + _("(the option «{option}» raises {meter})").format(
                    option=raising[0], meter=names.meter(target))
        return text
    if kind == "scene":
        return _("impeachment scene (outside the slots)")
    candidates = reason["candidates"]
    if reason["mode_relaxed"]:
        text = (_("the only eligible card (no new mode: rule relaxed)") if candidates == 1 else
                _("drawn among {candidates} eligible (no new mode: rule relaxed)"))
    else:
        text = (_("the only eligible card of a new mode") if candidates == 1 else
                _("drawn among {candidates} eligible of a new mode"))
    text = text.format(candidates=candidates)
    replaced = reason.get("replaces")
    if replaced:
        lost = obligation_text(names, replaced["kind"], replaced["target"])
        text += _(", in place of the mandatory {obligation} (no eligible card, §5)").format(
            obligation=lost)
    return text


def mandatory_text(names: Names, obligation: Mapping[str, Any]) -> str:
    """A turn's mandatory slot (``Obligation.to_dict()``) with the card reserved for it."""
    text = obligation_text(names, obligation["kind"], obligation["target"])
    card = obligation.get("card_id")
    text += (f" -> {card}" if card else
             " -> " + _("no eligible card: the slot goes to the random draw (§5)"))
    # §5 "Mesma carta atende duas obrigações": the others this card serves, counted once.
    also = [obligation_text(names, m["kind"], m["target"]) for m in obligation.get("merged") or ()]
    return text + (" " + _("(also serves: {obligations}; counted once, §5)").format(
        obligations=", ".join(also)) if also else "")


def ending_text(names: Names, ending: Mapping[str, Any]) -> str:
    """How the match ended: ``catástrofe: Saúde chegou a 0 no ano 3, 17 cartas jogadas`` or
    ``fim do mandato no ano 4, 28 cartas jogadas`` (plus a note for a short match, §5)."""
    zeroed = ending.get("zeroed")
    played = ending["cards_played"]
    if ending["reason"] == CATASTROPHE:
        text = ngettext("catastrophe: {meter} reached 0 in year {year}, {cards} card played",
                        "catastrophe: {meter} reached 0 in year {year}, {cards} cards played",
                        played)
    else:
        text = ngettext("end of mandate in year {year}, {cards} card played",
                        "end of mandate in year {year}, {cards} cards played", played)
    text = text.format(meter=names.meter(zeroed) if zeroed else "", year=ending["year"],
                       cards=played)
    return text + (" " + _("(short match: eligible cards ran out)") if ending.get("short")
                   else "")


def meters_text(names: Names, meters: Mapping[str, int]) -> str:
    """``Caixa 55 · Dignidade 45 · Saúde 28 ...`` in the deck's meter order."""
    return " · ".join(f"{names.meter(k)} {v}" for k, v in meters.items())


def midturn_text(year: int, slot: int, n_slots: int, card_on_screen: bool) -> str:
    """``Ano 2, a partir da vaga 4 de 7 (partida salva no meio do turno)``: where the preview of
    a save made mid-turn starts (``slot``: cards already shown this turn; ``sorteio turn``, the
    editor panel's preview)."""
    if card_on_screen:
        text = _("Year {year}, card {slot} of {slots}, on screen (match saved mid-turn)")
    elif slot < n_slots:
        text = _("Year {year}, from slot {next} of {slots} (match saved mid-turn)")
    else:
        text = _("Year {year}, all {slots} slots already filled (match saved mid-turn)")
    return text.format(year=year, slot=slot, next=slot + 1, slots=n_slots)


def card_mode_text(names: Names, card: Mapping[str, Any]) -> str:
    """The line above a card's title: its mode's name and its type (``Desinformação · comum``)."""
    return f"{names.mode(card['modo'])} · {card.get('tipo', 'comum')}"


def with_texts(names: Names, draw: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """A ``Draw.to_dict()`` whose ``reason`` also carries ``texto`` (``reason_text``): what the
    bridges and ``--json`` send, so no consumer writes the sentence again."""
    if draw is None:
        return None
    reason = dict(draw["reason"], texto=reason_text(names, draw["reason"], draw["card"]))
    return dict(draw, reason=reason)


def ending_with_text(names: Names, ending: Optional[Dict[str, Any]]) -> Optional[Dict[str, Any]]:
    """A ``MatchEnd.to_dict()`` with its ``texto`` (``ending_text``)."""
    return None if ending is None else dict(ending, texto=ending_text(names, ending))


def obligations_with_texts(names: Names, items: Iterable[Mapping[str, Any]]) -> list:
    """``TurnStart.to_dict()["mandatory"]`` rows, each with its ``texto`` (``mandatory_text``)."""
    return [dict(item, texto=mandatory_text(names, item)) for item in items]
