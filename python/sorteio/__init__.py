"""sorteio: the GDD 06 "Sorteio" card-draw engine for a Reigns-like political game.

Public API: ``load_deck`` (deck files), ``Engine`` (the draw, §3-§5; ``Engine.to_state`` /
``Engine.from_state`` for JSON save games), ``play_match`` (the reference match loop).

The names are imported on first use (PEP 562), so ``import sorteio`` is cheap: the ``sorteio``
command can take Ctrl-C quietly from its first instant (see ``launch.py``).
"""

from importlib import import_module

from .errors import EngineError, SorteioError, StateError

__version__ = "0.2.0"  # as pyproject.toml and both plugin.cfg (tests/test_dist.py)
__all__ = ["DeckError", "Engine", "EngineError", "SorteioError", "StateError", "load_deck"]

_LAZY = {"Engine": ".engine", "DeckError": ".loader", "load_deck": ".loader"}


def __getattr__(name: str) -> object:
    if name not in _LAZY:
        raise AttributeError(f"module 'sorteio' has no attribute {name!r}")
    value = getattr(import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list:
    return sorted(set(globals()) | set(__all__))
