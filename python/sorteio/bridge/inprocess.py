"""In-process bridge: what the Godot-side Python entries call, kept free of ``import godot``.

Two entries forward request text here and nothing else: the Godot 3 pythonscript script
(``godot3/addons/sorteio/python/sorteio_python_bridge.py``, which calls ``request``) and the
Godot 4 GDExtension class (``addons/sorteio/python/sorteio_godot4/``, which calls ``submit`` and
``take``). Everything testable lives in this module and in ``handler``. The texts are the same
JSON requests and replies as the socket bridge, without the length prefix and without a token
(nothing else can reach an in-process object).

Slow requests off the game's frame (Godot 4): ``submit(key, text)`` answers a fast request at
once (its reply text) and queues a slow one (``new_match``/``load`` of a big deck: the handler's
``Job.slow``), whose ``work`` then runs in a Python thread while Godot keeps drawing frames; the
caller asks ``take(key)`` once a frame until the reply comes. ``work`` touches no handler state,
and every ``finish`` (commit + reply) runs in the caller's thread, in the order the requests
came: a request submitted behind a slow one waits for it (a draw never overtakes the
``new_match`` before it). ``key`` is the caller's own request number.
The one interpreter's GIL is shared: the thread holds it while it computes and Python hands it
over every ``sys.getswitchinterval()`` (5 ms), so a frame's ``take`` waits at most that long.
"""

import collections
import threading
from typing import Any, Deque, Dict, Optional, Tuple

from . import protocol
from .handler import Job, Outcome, RequestHandler, reply_text


class InProcessBridge:
    """JSON request text in, JSON reply text out, through one ``RequestHandler``.

    ``threaded``: run slow requests' work in a thread (the Godot 4 entry); when False they run
    in place inside ``submit``/``take`` (same replies, for tests).
    """

    def __init__(self, engine_cls: Any = None, threaded: bool = True) -> None:
        self.handler = RequestHandler(token=None, engine_cls=engine_cls)
        self.threaded = threaded
        self._waiting: Deque[Tuple[int, Job]] = collections.deque()
        self._running: Optional[Tuple[int, Job, threading.Thread, list]] = None
        self._replies: Dict[int, str] = {}

    def request(self, text: Optional[str]) -> str:
        """Answer one request whole, in the calling thread (the Godot 3 entry). Never raises."""
        return self.handler.handle_json("" if text is None else str(text))

    def submit(self, key: int, text: Optional[str]) -> str:
        """Queue the request ``text`` under the caller's ``key`` (an int not already waiting).
        Returns its reply text when it is answered at once, "" when it is still pending (then
        call ``take(key)``). Never raises."""
        try:
            job = self.handler.job_from_text("" if text is None else str(text))
            self._waiting.append((key, job))
            self._pump()
            return self._replies.pop(key, "")
        except Exception as exc:  # a bug here must come back as a reply, never as an exception
            return _internal_error(exc)

    def take(self, key: int) -> str:
        """The reply text of the request submitted as ``key``, or "" while it is pending.
        Never raises."""
        try:
            self._pump()
            return self._replies.pop(key, "")
        except Exception as exc:
            return _internal_error(exc)

    @property
    def pending(self) -> int:
        """How many submitted requests have no reply taken yet (running, waiting or answered)."""
        return len(self._waiting) + (self._running is not None) + len(self._replies)

    def _pump(self) -> None:
        # Finish the running job when its thread is done, then answer what waits behind it,
        # up to the next slow job (which starts its thread and ends the pump).
        if self._running is not None:
            key, job, thread, box = self._running
            if thread.is_alive():
                return
            self._running = None
            self._replies[key] = reply_text(job.finish(box[0]))
        while self._waiting:
            key, job = self._waiting.popleft()
            if job.slow and self.threaded:
                box: list = [Outcome()]
                thread = threading.Thread(
                    target=_run_into, args=(job, box), name=f"sorteio-request-{key}", daemon=True
                )
                self._running = (key, job, thread, box)
                thread.start()
                return
            self._replies[key] = reply_text(job.finish(job.run()))


def _run_into(job: Job, box: list) -> None:
    box[0] = job.run()  # Job.run never raises: its exception comes back in the Outcome


def _internal_error(exc: BaseException) -> str:
    return reply_text(
        protocol.error_reply(None, protocol.INTERNAL_ERROR, f"{type(exc).__name__}: {exc}")
    )
