"""sorteio: the GDD 06 "Sorteio" card-draw engine for a Reigns-like political game.

Public API: ``load_deck`` (deck files), ``Engine`` (the draw, §3-§5; ``Engine.to_state`` /
``Engine.from_state`` for JSON save games), ``play_match`` (the reference match loop).
"""

from .engine import Engine
from .errors import EngineError, SorteioError, StateError
from .loader import DeckError, load_deck

__version__ = "0.1.0"
__all__ = ["DeckError", "Engine", "EngineError", "SorteioError", "StateError", "load_deck"]
