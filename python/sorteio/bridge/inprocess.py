"""In-process bridge: what the Godot-side Python entries call, kept free of ``import godot``.

Two entries forward request text here and nothing else: the Godot 3 pythonscript script
(``godot3/addons/sorteio/python/sorteio_python_bridge.py``, which calls ``request``) and the
Godot 4 GDExtension class (``addons/sorteio/python/sorteio_godot4/``, which calls ``submit`` and
``take``). Everything testable lives in this module and in ``handler``. The texts are the same
JSON requests and replies as the socket bridge, without the length prefix and without a token
(nothing else can reach an in-process object).

Slow requests off the game's frame (Godot 4): ``submit(key, text)`` answers a fast request at
once (its reply text) and queues a slow one (``new_match``/``load`` of a big deck: the handler's
``Job.slow``), whose ``work`` then runs in a Python thread while Godot keeps drawing frames.
``work`` touches no handler state, and every ``finish`` (commit + reply) runs in the caller's
thread, in the order the requests came: a request submitted behind a slow one waits for it (a
draw never overtakes the ``new_match`` before it). ``key`` is the caller's own request number.

Waiting without the GIL: the one interpreter's GIL is shared, and the work thread keeps it for
the whole of a long C call (pydantic-core validating a 30,000-card deck, a regex over the
file: up to ~1 s on 2 loaded cores), so a caller that asked ``take(key)`` every frame waited
that long in one frame. Instead the caller registers ``notify(key, callback)`` once and waits
on its own side (Godot: a ``Semaphore`` whose ``post`` is the callback, checked each frame with
``try_wait``, no Python call); the callback is called, from the work thread or from the caller's
own ``take``, once ``take(key)`` has the reply.

The long C calls themselves are split so the work thread lets go of the GIL often (issue 13):
the deck file's regex searches run window by window (``jsonfile.search_windowed``), the cards
are validated in pieces (``load_deck(in_pieces=True)``), a slow job runs with the garbage
collector off and ends with ``gc.freeze()`` (below, ``_without_gc``), and the previous match is
freed in pieces in a thread of its own (``release_in_pieces``) instead of at once in the
caller's thread when the new one replaces it.

At quit (issue 13): the threads are daemon threads, and one still working when the interpreter
finalizes is ended by CPython with ``pthread_exit``, whose unwinding aborts the whole game when
the thread is inside pydantic-core (SIGABRT: 7 quits in 46 at 0-1.2 s into a 30,000-card
``new_match`` on Godot 4.6, all of them at 0.7-1.2 s). So they never outlive the game:
``close()`` (the addon's ``SorteioPythonBridge.close``, called by the node on ``_exit_tree``,
window close and predelete) tells them to stop, without waiting; each stops at its next piece
or step (``sorteio.pieces``: a few ms, up to ~0.4 s for one long step) and calls back no one.
At the interpreter's exit an ``atexit`` hook, which CPython runs before finalizing, stops the
ones still running (a bridge never closed) and waits for them, at most ``EXIT_WAIT`` seconds in
all, then undoes ``gc.freeze()`` so the finalizing collection frees what it froze.
"""

import atexit
import collections
import contextlib
import gc
import threading
import time
import weakref
from typing import Any, Callable, Deque, Dict, Iterable, Iterator, List, Optional, Set, Tuple

from ..pieces import StoppableThread, Stopped, between_pieces
from . import protocol
from .handler import Job, Outcome, RequestHandler, reply_text

EXIT_WAIT = 3.0  # seconds the interpreter's exit waits, at most, for sorteio's threads to stop


class InProcessBridge:
    """JSON request text in, JSON reply text out, through one ``RequestHandler``.

    ``threaded``: run slow requests' work in a thread (the Godot 4 entry); when False they run
    in place inside ``submit``/``take`` (same replies, for tests).
    """

    def __init__(self, engine_cls: Any = None, threaded: bool = True) -> None:
        self.handler = RequestHandler(token=None, engine_cls=engine_cls)
        self.handler.load_in_pieces = threaded
        self.threaded = threaded
        self._waiting: Deque[Tuple[int, Job]] = collections.deque()
        # (key, job, box): box = [Outcome, done]; the work thread fills it under _lock.
        self._running: Optional[Tuple[int, Job, list]] = None
        self._replies: Dict[int, str] = {}
        self._callbacks: Dict[int, Callable[[], Any]] = {}
        self._lock = threading.Lock()  # _callbacks and the running box: two threads touch them
        self._stop = threading.Event()  # set by close(): this bridge's threads stop

    def request(self, text: Optional[str]) -> str:
        """Answer one request whole, in the calling thread (the Godot 3 entry). Never raises."""
        return self.handler.handle_json("" if text is None else str(text))

    def submit(self, key: int, text: Optional[str], deck_text: Optional[str] = None) -> str:
        """Queue the request ``text`` under the caller's ``key`` (an int not already waiting).
        Returns its reply text when it is answered at once, "" when it is still pending (then
        call ``take(key)``). ``deck_text``: the request's params' ``deck_text``, handed beside
        its JSON (see ``RequestHandler.job_from_text``). Never raises."""
        try:
            if self._stop.is_set():
                return _closed_reply()
            job = self.handler.job_from_text("" if text is None else str(text), deck_text)
            self._waiting.append((key, job))
            self._pump()
            return self._replies.pop(key, "")
        except Exception as exc:  # a bug here must come back as a reply, never as an exception
            return _internal_error(exc)

    def take(self, key: int) -> str:
        """The reply text of the request submitted as ``key``, or "" while it is pending.
        Never raises."""
        try:
            if self._stop.is_set():
                return _closed_reply()
            self._pump()
            return self._replies.pop(key, "")
        except Exception as exc:
            return _internal_error(exc)

    def close(self) -> None:
        """Stop this bridge's threads, without waiting: the slow request running stops at its
        next piece (a few ms; a single C call in it, such as decoding the deck's JSON, ends
        first: up to ~0.5 s for 30,000 cards), unanswered, and the previous match being freed
        is left to the interpreter. No callback registered with ``notify`` is called after
        this returns. Later requests answer an ``internal_error`` reply (the bridge is closed).
        Never raises."""
        with self._lock:
            self._stop.set()
            self._callbacks.clear()
        self._waiting.clear()
        self._replies.clear()

    def notify(self, key: int, callback: Callable[[], Any]) -> None:
        """Call ``callback()`` once ``take(key)`` has the reply of the pending request ``key``:
        at once when it already has, else later from the work thread (when the slow work is
        done) or from inside a ``take`` (when a request queued behind a slow one is answered).
        Called at most once per registration; an exception it raises is ignored (the waiter
        may be gone). Lets a caller wait without calling into Python each frame. Never raises.
        """
        with self._lock:
            running = self._running
            ready = key in self._replies or (
                running is not None and running[0] == key and running[2][1])
            if not ready:
                self._callbacks[key] = callback
        if ready:
            _call_quietly(callback)

    @property
    def pending(self) -> int:
        """How many submitted requests have no reply taken yet (running, waiting or answered)."""
        return len(self._waiting) + (self._running is not None) + len(self._replies)

    def _pump(self) -> None:
        # Finish the running job when its thread is done, then answer what waits behind it,
        # up to the next slow job (which starts its thread and ends the pump).
        if self._running is not None:
            key, job, box = self._running
            with self._lock:
                if not box[1]:
                    return
            self._running = None
            previous = self._match()
            reply = job.finish(box[0])
            if self._match()[1] is not previous[1]:  # a new match replaced it: free it aside
                self._release(previous)
            del previous
            self._answer(key, reply)
        while self._waiting:
            key, job = self._waiting.popleft()
            if job.slow and self.threaded:
                box: list = [Outcome(), False]
                self._running = (key, job, box)
                _start(StoppableThread(self._run_into, (key, job, box),
                                       f"sorteio-request-{key}", self._stop))
                return
            self._answer(key, job.finish(job.run()))

    def _answer(self, key: int, reply: Dict[str, Any]) -> None:
        with self._lock:
            self._replies[key] = reply_text(reply)
            callback = self._callbacks.pop(key, None)
        if callback is not None:
            _call_quietly(callback)

    def _match(self) -> Tuple[Any, Any, Any]:
        return self.handler.deck, self.handler.engine, self.handler.names

    def _release(self, previous: Tuple[Any, Any, Any]) -> None:
        # Freeing a 30,000-card match at once is ~0.5 s of deallocation in one C call chain:
        # taken apart in a thread instead, in pieces, so the game's frame gets the GIL between.
        box = list(previous)
        keep = _big_containers(self._match())
        _start(StoppableThread(release_in_pieces, (box, keep), "sorteio-release", self._stop))

    def _run_into(self, key: int, job: Job, box: list) -> None:
        with _without_gc():
            outcome = job.run()  # never raises: its exception (Stopped too) is in the Outcome
        with self._lock:
            box[0], box[1] = outcome, True
            callback = self._callbacks.pop(key, None)
            if callback is not None and not self._stop.is_set():
                # Under the lock: once close() has returned, no callback runs (the waiter, a
                # Godot Semaphore, may be going away with the engine).
                _call_quietly(callback)  # take(key) now finishes it and answers


_gc_lock = threading.Lock()  # two bridges' work threads must not interleave their gc toggles


@contextlib.contextmanager
def _without_gc() -> Iterator[None]:
    """Run a slow job with the cyclic garbage collector off, then ``gc.freeze()``.

    A 30,000-card match is over a million tracked objects; a full collection walks them all in
    one C call that keeps the GIL (hundreds of ms: a frame waits for it), and re-enabled after
    the build the collector soon runs one. Freezing moves every object alive now (the new match
    included) to the permanent generation, which later collections skip. It is process-wide:
    the game's other Python objects alive then are frozen too. A frozen object that ends in a
    reference cycle is never freed, which is acceptable here: a match has no cycles (it is freed
    by reference counting, ``gc.collect()`` finds nothing after dropping one), and the objects
    frozen at once are those of the one process-long interpreter. The collector is re-enabled
    only if it was on (a game that turned it off keeps it off)."""
    with _gc_lock:
        enabled = gc.isenabled()
        gc.disable()
    try:
        yield
    finally:
        with _gc_lock:
            gc.freeze()
            if enabled:
                gc.enable()


PIECE = 200  # items freed between two chances for another thread to take the GIL (~2-7 ms)
BIG = 1000  # containers with fewer items are freed whole, at the end


def _big_containers(roots: Iterable[Any]) -> Set[int]:
    """The ids of the big lists and dicts reachable from ``roots`` (see ``_walk``)."""
    return {id(found) for found in _walk(list(roots))}


def _walk(roots: List[Any]) -> Iterator[Any]:
    """Lists and dicts of more than ``BIG`` items reachable from ``roots`` through sorteio's own
    objects' attributes and through containers (not into the items of big ones: freeing those
    frees their items)."""
    seen: Set[int] = set()
    stack = [(root, 0) for root in roots]
    while stack:
        node, depth = stack.pop()
        if id(node) in seen or depth > 4:
            continue
        seen.add(id(node))
        if isinstance(node, (list, dict)):
            if len(node) > BIG:
                yield node
                continue
            values: Iterable[Any] = node.values() if isinstance(node, dict) else node
        elif isinstance(node, tuple):
            values = node
        elif type(node).__module__.startswith("sorteio") and hasattr(node, "__dict__"):
            values = vars(node).values()
        else:
            continue
        stack.extend((value, depth + 1) for value in values)


def release_in_pieces(box: list, keep: Optional[Set[int]] = None) -> None:
    """Free the objects in ``box`` (emptied) by emptying their big lists and dicts ``PIECE``
    items at a time, letting other threads take the GIL between pieces. Containers whose id is
    in ``keep`` (the new match's, should it share one) are left alone. Told to stop
    (``sorteio.pieces``), it leaves what is left to the interpreter (``_ABANDONED``) rather than
    free it at once. Never raises."""
    try:
        for container in list(_walk(box)):
            if id(container) in (keep or ()):
                continue  # the new match's too: not ours to empty
            while container:
                if isinstance(container, list):
                    del container[-PIECE:]
                else:
                    for _ in range(min(PIECE, len(container))):
                        container.popitem()
                between_pieces()  # the game's frame may take the GIL now; may raise Stopped
    except Stopped:  # the bridge closed or the game quits: freeing the rest is not our job now
        _ABANDONED.append(list(box))
    except Exception:  # not expected; the rest is freed whole below
        pass
    finally:
        box.clear()


# What a stopped release left: freed by the interpreter (at its exit), not in a thread.
_ABANDONED: List[Any] = []
_THREADS: "weakref.WeakSet[threading.Thread]" = weakref.WeakSet()  # sorteio's threads


def _start(thread: StoppableThread) -> None:
    _THREADS.add(thread)
    thread.start()


def stop_threads(wait: float = EXIT_WAIT) -> List[str]:
    """Tell every thread of every in-process bridge to stop, and wait up to ``wait`` seconds in
    all for them to end. Returns the names of those still alive (none expected: a piece is a
    few ms). Registered with ``atexit``: CPython runs it before finalizing the interpreter,
    where a daemon thread still inside pydantic-core would abort the process (issue 13).
    Never raises."""
    deadline = time.monotonic() + wait
    alive: List[str] = []
    try:
        threads = list(_THREADS)
        for thread in threads:
            thread.sorteio_stop.set()
        for thread in threads:
            thread.join(max(0.0, deadline - time.monotonic()))
            if thread.is_alive():
                alive.append(thread.name)
    except Exception:  # at exit: nothing to report to, and nothing must fail
        pass
    return alive


def _at_exit() -> None:
    """The interpreter's exit: stop sorteio's threads (``stop_threads``), then hand what
    ``gc.freeze()`` froze back to the collector, so the collection CPython runs while it
    finalizes frees the frozen objects in reference cycles. Frozen, they were never freed: on
    Godot 4 the Python GDExtension's own ``PythonScriptLoader`` and ``PythonScriptSaver`` (in
    cycles of upstream's Python objects) then stayed alive past Godot's check at exit after any
    threaded request ("ObjectDB instances leaked at exit"). Never raises."""
    stop_threads()
    with contextlib.suppress(Exception):
        gc.unfreeze()


atexit.register(_at_exit)


def _call_quietly(callback: Callable[[], Any]) -> None:
    with contextlib.suppress(Exception):  # a waiter that is gone: nothing to tell
        callback()


def _closed_reply() -> str:
    return _internal_error(RuntimeError("the in-process bridge is closed"))


def _internal_error(exc: BaseException) -> str:
    return reply_text(
        protocol.error_reply(None, protocol.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
    )
