"""How the CLI tells a match to a designer, in Portuguese: why each card came (§3.3, §3.4, §5),
the option chosen, the meters after it. ``--json`` output keeps the engine's own dicts instead."""

from typing import List, Optional

from rich.console import Console

from .match import MatchObserver, Step
from .results import CATASTROPHE, MatchEnd, TurnEnd, TurnStart

OBLIGATION = {"emergency": "emergência de", "actor": "ataque de", "meter": "medidor baixo:"}


def console(stderr: bool = False) -> Console:
    """A console that does not cut lines at 80 columns when the output is piped to a file."""
    probe = Console(stderr=stderr)
    return Console(stderr=stderr, highlight=False,
                   width=None if probe.is_terminal else 200)


out = console()
err = console(stderr=True)


def heading(text: str) -> None:
    """A section rule; in a file, a fixed-width one rather than one as wide as the page."""
    if out.is_terminal:
        out.rule(text)
    else:
        out.print(f"── {text} " + "─" * max(3, 76 - len(text)))


def obligation_text(kind: str, target: str) -> str:
    return f"{OBLIGATION.get(kind, kind)} {target}"


def describe(reason: dict, card: Optional[dict] = None) -> str:
    """One line saying why a card was drawn. With ``card``, a meter obligation also names the
    option that raises the meter (what makes the card linked to it, §3.2)."""
    kind = reason["kind"]
    if kind == "mandatory":
        text = "obrigatória: " + obligation_text(reason["obligation"], reason["target"])
        if card is not None and reason["obligation"] != "actor":
            raising = [o["texto"] for o in card["opcoes"]
                       if o["efeitos"].get(reason["target"], 0) > 0]
            if raising:
                text += f" (a opção «{raising[0]}» sobe {reason['target']})"
        return text
    if kind == "scene":
        return "cena de impeachment (fora das vagas)"
    if reason["mode_relaxed"]:
        text = f"sorteada entre {reason['candidates']} elegíveis (nenhum modo novo: regra relaxada)"
    else:
        text = f"sorteada entre {reason['candidates']} elegíveis de modo novo"
    replaced = reason.get("replaces")
    if replaced:
        lost = obligation_text(replaced["kind"], replaced["target"])
        text += f", no lugar da obrigatória {lost} (sem carta elegível, §5)"
    return text


def ending_text(ending: MatchEnd) -> str:
    what = (f"catástrofe: {ending.zeroed} chegou a 0" if ending.reason == CATASTROPHE
            else "fim do mandato")
    return (f"{what} ({ending.reason}) no ano {ending.year}, {ending.cards_played} cartas"
            + (" (partida curta: faltaram cartas elegíveis)" if ending.short else ""))


class Printer(MatchObserver):
    """Prints a match card by card, or collects it for ``--json`` in ``events``."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self.events: List[dict] = []

    def turn_started(self, turn: TurnStart) -> None:
        if self.as_json:
            self.events.append({"event": "turn_started", **turn.to_dict()})
            return
        heading(f"Ano {turn.year}")
        for ob in turn.mandatory:
            card = ob.card_id or "sem carta elegível: a vaga vai ao sorteio (§5)"
            # §5 "Mesma carta atende duas obrigações": the others this card serves, counted once.
            also = ", ".join(obligation_text(k, t) for k, t in ob.merged)
            also = f" (também atende: {also}; conta uma vez, §5)" if also else ""
            out.print(f"  obrigatória: {obligation_text(ob.kind, ob.target)} -> {card}{also}")

    def card_played(self, step: Step) -> None:
        draw, choice = step
        if self.as_json:
            self.events.append({"event": "card_played", "draw": draw.to_dict(),
                                "choice": choice.to_dict()})
            return
        card = draw.card
        out.print(f"[bold]{draw.year}.{draw.slot}[/] {card['id']} «{card['titulo']}» "
                  f"[dim]({card['modo']}; {describe(draw.reason, card)})[/]", soft_wrap=True)
        option = card["opcoes"][choice.option]["texto"]
        meters = " ".join(f"{k}={v}" for k, v in choice.meters.items())
        out.print(f"    → {option}", soft_wrap=True)
        out.print(f"    [dim]{meters}[/]", soft_wrap=True)

    def turn_ended(self, end: TurnEnd) -> None:
        if self.as_json:
            self.events.append({"event": "turn_ended", **end.to_dict()})
        elif end.short:
            out.print(f"  [yellow]turno curto: {end.cards} cartas (§5)[/]")

    def match_ended(self, ending: MatchEnd) -> None:
        if self.as_json:
            self.events.append({"event": "match_ended", **ending.to_dict()})
            return
        heading("Fim")
        out.print(ending_text(ending), soft_wrap=True)
