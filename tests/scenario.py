"""Hand-made decks and engine states for rule tests: each test builds exactly the situation a GDD
line describes (meter values, closings, moods, year) and then asks the engine what it draws."""

from typing import Dict, Iterable, List, Optional

from sorteio.deck import Deck
from sorteio.engine import DRAWING, Engine
from sorteio.synthetic import LEVELS, METERS

ACTORS = ["banqueiros", "latifundiarios", "sindicatos"]
FURIOUS, INSATISFIED, NEUTRAL = 10, 30, 50


def card(ident: str, modo: str, up: Iterable[str] = (), down: Iterable[str] = ("caixa",),
         ano: int = 1, tipo: str = "comum", ator: Optional[str] = None,
         funcao: Optional[str] = None, status: str = "aprovado") -> dict:
    """A card whose first option raises every meter in ``up`` (so it is linked to them, §3.2)
    and lowers those in ``down``; its second option changes nothing."""
    effects = {m: 5 for m in up}
    for m in down:
        effects.setdefault(m, -1)
    out = {"id": ident, "titulo": ident, "modo": modo, "tipo": tipo,
           "aprendizado": {"status": status, "texto": ""},
           "pre_requisitos": {"ano_minimo": ano},
           "opcoes": [{"texto": "a", "efeitos": effects}, {"texto": "b", "efeitos": {}}]}
    if ator is not None:
        out["ator"], out["funcao"] = ator, funcao
    return out


def fillers(count: int, prefix: str = "f", modes: Optional[int] = None, ano: int = 1) -> List[dict]:
    """``count`` plain cards linked to no meter, each of its own mode unless ``modes`` is given."""
    return [card(f"{prefix}{i:02d}", f"{prefix}modo{i % modes if modes else i:02d}", down=(),
                 ano=ano)
            for i in range(count)]


def attack_cards(actors: Iterable[str] = ACTORS, up: Iterable[str] = ()) -> List[dict]:
    """One attack card (funcao ataque, §3.3.2) per actor, each of its own mode."""
    return [card(f"{a}-ataque", f"ataque-{a}", up=up, tipo="ator", ator=a, funcao="ataque")
            for a in actors]


def build(cards: List[dict], initial: Optional[Dict[str, int]] = None,
          actors: Iterable[str] = ACTORS, **params: int) -> Deck:
    """A deck with the 8 GDD meters (GDD 01 order), the standard levels and ``actors`` (declared
    in that order; default ``ACTORS``)."""
    initial = initial or {}
    return Deck.model_validate({
        "parametros": params,
        "medidores": [{"id": m, "nome": m, "inicial": initial.get(m, 50)} for m in METERS],
        "niveis": LEVELS,
        "atores": [{"id": a, "nome": a} for a in actors],
        "cartas": cards,
    })


def engine_at(deck: Deck, year: int = 1, meters: Optional[Dict[str, int]] = None,
              closing: Optional[Dict[str, int]] = None,
              moods: Optional[Dict[str, int]] = None, seed: int = 0) -> Engine:
    """An engine at the start of turn ``year`` (phase turn_start), with the given meter values,
    the values the meters closed the previous turn at (``closing``; default: the same as
    ``meters``) and actors' satisfaction (``moods``)."""
    engine = Engine(deck, seed)
    ix = engine.index
    engine.year = year
    for m, value in (meters or {}).items():
        engine.meters[ix.meter_index[m]] = value
    for a, value in (moods or {}).items():
        engine.satisfaction[ix.actor_index[a]] = value
    if year > 1:
        engine.last_closing = list(engine.meters)
        for m, value in (closing or {}).items():
            engine.last_closing[ix.meter_index[m]] = value
    return engine


def play_turn(engine: Engine, option: int = 1, close: bool = True) -> List:
    """Draw the current turn choosing ``option`` each time (1 = the no-effect option). With
    ``close=False`` stop once the N slots are full, before the draw that closes the turn."""
    draws = []
    while engine.phase == DRAWING and (close or engine.slot < engine.index.n_slots):
        draw = engine.draw()
        if draw is None:
            break
        draws.append(draw)
        engine.choose(option)
    return draws
