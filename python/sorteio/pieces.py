"""Long work done in pieces: between two pieces another thread may take the GIL, and a thread
told to stop stops there (issue 13).

The in-process bridge (``sorteio.bridge.inprocess``) runs a big deck's ``new_match`` and the
freeing of a replaced match in threads of the game's own interpreter. Their loops call
``between_pieces()`` after each piece (250 cards validated, 200 items freed: a few ms each),
and ``stop_point()`` between long steps that are one call each (a window of regex search,
decoding the JSON, validating the deck, building its engine: up to ~0.4 s each for 30,000
cards). In any other thread (the CLI, the socket server's workers, tests) they only yield the
GIL or do nothing; in a thread whose ``sorteio_stop`` event is set (``StoppableThread``, set
when the bridge closes or the interpreter exits) they raise ``Stopped``, so the work ends at its
next piece or step instead of running on into the interpreter's finalization, where CPython
ends a daemon thread with ``pthread_exit`` and the unwinding aborts the process when the thread
is inside pydantic-core's Rust frames (SIGABRT, measured on the Godot 4 Python GDExtension).
"""

import threading
import time
from typing import Any, Callable, Optional


class Stopped(Exception):
    """Raised by ``between_pieces`` in a thread told to stop: the work it was doing is dropped."""


class StoppableThread(threading.Thread):
    """A daemon thread that ``between_pieces`` stops once ``sorteio_stop`` (an Event) is set."""

    def __init__(self, target: Callable[..., Any], args: tuple, name: str,
                 stop: Optional[threading.Event] = None) -> None:
        super().__init__(target=target, args=args, name=name, daemon=True)
        self.sorteio_stop = stop if stop is not None else threading.Event()


def between_pieces() -> None:
    """Let a thread waiting for the GIL run now (``time.sleep(0)``); then raise ``Stopped`` when
    the current thread is a ``StoppableThread`` told to stop. Costs ~1 µs otherwise."""
    time.sleep(0)
    stop = getattr(threading.current_thread(), "sorteio_stop", None)
    if stop is not None and stop.is_set():
        raise Stopped()


def stop_point() -> None:
    """Raise ``Stopped`` when the current thread is a ``StoppableThread`` told to stop (between
    two long steps that are not loops, such as validating the deck and building its engine)."""
    stop = getattr(threading.current_thread(), "sorteio_stop", None)
    if stop is not None and stop.is_set():
        raise Stopped()
