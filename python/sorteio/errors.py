"""Errors caused by user input. Everything the CLI and the bridges report without a traceback."""


class SorteioError(Exception):
    """Base of every error caused by user input (decks, saved states, requests, wrong calls)."""


class EngineError(SorteioError):
    """A call the engine cannot take in its current phase, or with a bad argument."""


class StateError(SorteioError):
    """A saved match that cannot be loaded (malformed, or saved with another deck)."""
