"""The phases of a match and its length: shared by the engine (``engine.py``), which moves
between them, and the save format (``state.py``), which records them, so neither imports the
other for them."""

TURN_START = "turn_start"  # before ``Engine.start_turn`` (events, GDD 08, run here)
DRAWING = "drawing"  # the turn's slots are being shown (§3.4)
AWAITING_CHOICE = "awaiting_choice"  # a card is shown; ``Engine.choose`` is next
ENDED = "ended"  # catastrophe (§5 "Fim imediato") or end of mandate
YEARS = 4  # turns per match: one per year of the mandate
