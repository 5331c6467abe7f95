"""Hypothesis strategies shared by the property and differential tests."""

from hypothesis import strategies as st

from sorteio.deck import Parameters
from sorteio.synthetic import synthetic_deck


@st.composite
def decks(draw):
    """A random valid deck (synthetic_deck) with random §7 parameters inside their safe ranges."""
    deck = synthetic_deck(
        cards=draw(st.integers(0, 70)),
        modes=draw(st.integers(1, 12)),
        actors=draw(st.integers(0, 5)),
        seed=draw(st.integers(0, 10_000)),
        draft=draw(st.integers(0, 3)),
        impeachment=draw(st.integers(0, 2)),
        late_share=draw(st.floats(0, 1)),
    )
    params = Parameters(
        cartas_por_turno=draw(st.integers(6, 8)),
        teto_obrigatorias=draw(st.integers(2, 4)),
        limite_medidor=draw(st.integers(25, 35)),
        limite_emergencia=draw(st.integers(0, 24)),
        limite_por_modo=draw(st.integers(1, 2)),
    )
    return deck.model_copy(update={"parametros": params})
