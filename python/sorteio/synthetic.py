"""Synthetic decks for tests, property tests and benchmarks (like GDD 06 §7's "baralho sintético").

``synthetic_deck`` builds a valid ``Deck`` from a seed: common cards spread over modes and years,
actor cards for every (actor, level function), and a few draft and impeachment cards so every
exclusion of §3.1 is present. Same arguments, same deck.
"""

import random
from typing import List

from .deck import Deck

METERS = ["caixa", "dignidade", "saude", "educacao", "seguranca", "ambiente", "aprovacao",
          "governabilidade"]
LEVELS = [
    {"id": "furioso", "nome": "Furioso", "minimo": 0, "maximo": 19, "funcao": "ataque"},
    {"id": "insatisfeito", "nome": "Insatisfeito", "minimo": 20, "maximo": 39,
     "funcao": "pressao"},
    {"id": "neutro", "nome": "Neutro", "minimo": 40, "maximo": 60, "funcao": "exigencia"},
    {"id": "satisfeito", "nome": "Satisfeito", "minimo": 61, "maximo": 80, "funcao": "apoio"},
    {"id": "aliado", "nome": "Aliado", "minimo": 81, "maximo": 100, "funcao": "favor"},
]


def synthetic_deck(cards: int = 60, modes: int = 10, actors: int = 6, meters: int = 8,
                   seed: int = 0, draft: int = 3, impeachment: int = 2,
                   late_share: float = 0.25) -> Deck:
    """A valid deck of ``cards`` common cards plus one card per (actor, level function), ``draft``
    draft cards and ``impeachment`` scene cards. ``late_share``: share with ano_minimo 2-4."""
    rng = random.Random(seed)
    meter_ids = METERS[:meters] if meters <= len(METERS) else [f"m{i}" for i in range(meters)]
    actor_ids = [f"a{i:02d}" for i in range(actors)]
    deck: dict = {
        "nome": f"sintetico-{cards}-{modes}-{actors}-{seed}",
        "medidores": [{"id": m, "nome": m, "inicial": rng.randint(35, 65)} for m in meter_ids],
        "niveis": LEVELS,
        "atores": [{"id": a, "nome": a} for a in actor_ids],
        "cartas": [],
    }

    def options() -> List[dict]:
        out = []
        for _ in range(2):
            up, down = rng.sample(meter_ids, 2) if len(meter_ids) > 1 else (meter_ids[0],) * 2
            effects = {up: rng.randint(1, 15), down: -rng.randint(1, 15)} if up != down else {
                up: rng.randint(-10, 10) or 1}
            moods = {a: rng.randint(-25, 15) for a in rng.sample(actor_ids, min(2, actors))}
            out.append({"texto": "opção", "efeitos": effects, "efeitos_atores": moods})
        return out

    def year() -> int:
        return rng.randint(2, 4) if rng.random() < late_share else 1

    for i in range(cards):
        deck["cartas"].append({"id": f"c{i:03d}", "titulo": f"Carta {i}",
                               "modo": f"modo{i % modes:02d}",
                               "pre_requisitos": {"ano_minimo": year()}, "opcoes": options()})
    for a in actor_ids:
        for level in LEVELS:
            deck["cartas"].append({"id": f"{a}-{level['funcao']}", "titulo": f"{a} {level['id']}",
                                   "modo": f"modo{rng.randrange(modes):02d}", "tipo": "ator",
                                   "ator": a, "funcao": level["funcao"], "opcoes": options()})
    for i in range(draft):
        deck["cartas"].append({"id": f"rascunho{i}", "titulo": "Rascunho", "modo": "modo00",
                               "aprendizado": {"status": "rascunho"}, "opcoes": options()})
    for i in range(impeachment):
        deck["cartas"].append({"id": f"imp{i}", "titulo": "Impeachment", "modo": "impeachment",
                               "tipo": "impeachment", "opcoes": options()})
    return Deck.model_validate(deck)
