"""Errors caused by user input. Everything the CLI and the bridges report without a traceback."""


class SorteioError(Exception):
    """Base of every error caused by user input (decks, saved states, requests, wrong calls)."""


class EngineError(SorteioError):
    """A call the engine cannot take in its current phase, or with a bad argument."""


class StateError(SorteioError):
    """A saved match that cannot be loaded (malformed, or saved with another deck)."""


class NotASavedMatch(StateError):
    """Data that is no saved match at all: most of its required fields are missing (a garbage
    object, or another file). ``missing``: the missing field names, in the format's order;
    ``total``: how many fields a saved match requires."""

    def __init__(self, message: str, missing: list, total: int) -> None:
        super().__init__(message)
        self.missing = missing
        self.total = total
