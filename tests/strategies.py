"""Hypothesis strategies shared by the property and differential tests."""

import random

from hypothesis import strategies as st

from sorteio.deck import Deck, Parameters
from sorteio.synthetic import synthetic_deck


def overlapping(deck: Deck, seed: int, share: float) -> Deck:
    """``deck`` where cards serve several obligations at once (GDD 06 §5 "Mesma carta atende duas
    obrigações"): every attack card and a ``share`` of the other cards get a first option that
    raises one to three more meters, so an emergency's or a low meter's card is often also linked to
    another low meter or is a Furious actor's attack card; some meters start below 30 and some
    actors start Furious, so every kind of obligation shows up from the first turns."""
    rng = random.Random(seed)
    data = deck.model_dump(mode="json")
    meters = [m["id"] for m in data["medidores"]]
    for c in data["cartas"]:
        if rng.random() < share or c.get("funcao") == "ataque":
            effects = c["opcoes"][0]["efeitos"]
            for m in rng.sample(meters, min(len(meters), rng.randint(1, 3))):
                effects[m] = rng.randint(1, 15)
    for m in data["medidores"]:
        if rng.random() < 0.4:
            m["inicial"] = rng.randint(12, 29)
    for a in data["atores"]:
        if rng.random() < 0.5:
            a["satisfacao_inicial"] = rng.randint(0, 25)
    return Deck.model_validate(data)


@st.composite
def decks(draw):
    """A random valid deck (synthetic_deck) with random §7 parameters inside their safe ranges;
    about half of them ``overlapping``: cards that serve two obligations of any kinds (§5)."""
    deck = synthetic_deck(
        cards=draw(st.integers(0, 70)),
        modes=draw(st.integers(1, 12)),
        actors=draw(st.integers(0, 5)),
        seed=draw(st.integers(0, 10_000)),
        draft=draw(st.integers(0, 3)),
        impeachment=draw(st.integers(0, 2)),
        late_share=draw(st.floats(0, 1)),
    )
    if draw(st.booleans()):
        deck = overlapping(deck, draw(st.integers(0, 10_000)), draw(st.floats(0.2, 1)))
    params = Parameters(
        cartas_por_turno=draw(st.integers(6, 8)),
        teto_obrigatorias=draw(st.integers(2, 4)),
        limite_medidor=draw(st.integers(25, 35)),
        limite_emergencia=draw(st.integers(0, 24)),
        limite_por_modo=draw(st.integers(1, 2)),
    )
    return deck.model_copy(update={"parametros": params})
