"""Socket bridge: an asyncio server on the loopback interface that answers framed JSON requests.

``serve()`` is what ``sorteio serve`` runs; ``python -m sorteio.bridge.server`` runs it too.
Security: it binds 127.0.0.1 only, and every request must carry the per-launch token. The token
is given with ``--token`` or, better, generated here and written with the port to ``--port-file``
(mode 0600), so it never shows on a command line that other local users can read.

Robustness: a malformed frame or request gets an error reply and the connection goes on; a wrong
token gets an error reply and the connection is closed; an oversized frame closes the connection
(its body cannot be skipped safely); a client that disconnects mid-frame is dropped. The server
serves on in every case. With ``--parent-pid`` it exits when that process is gone (checked every
``PARENT_POLL`` s; a zombie counts as gone; on Windows by opening the process, never with signal
0, which is Ctrl-C there), so a game that crashed does not leave it running.
SIGTERM and SIGINT stop it cleanly (the port file, which holds the token, is removed on the way
out).

With ``--game-files PREFIX`` (any number of them; needs ``--parent-pid``) it also removes, once the
game is gone, the game's files whose path starts with ``PREFIX`` (its ``user://`` deck copies,
port and error files: a game killed with SIGKILL removes none of its own), then exits; a game
already gone when it starts makes it remove them and exit 2, writing no error file (no one is
left to read it).

Other local users cannot lock the game out: a connection must send a request with the token
within ``AUTH_TIMEOUT`` s of connecting or it is closed, and at most ``MAX_PENDING`` connections
may wait for that at once (a new one closes the oldest waiting one, so the game's fresh connection
gets in). Slow work (reading a deck, compiling a big one: ``Job.slow``) runs in a thread, at most
``WORK_THREADS`` at once and ``WORK_TIMEOUT`` s each, so every other client is still answered.
Errors asyncio reports (e.g. ``Too many open files``) are one line each, at most one per
``LOG_INTERVAL`` s per kind.

User errors (port in use or out of range, port file not writable, bad parent PID) raise
``BridgeError``, a ``SorteioError``: ``sorteio serve`` and ``main()`` print one line, exit 2.
"""

import argparse
import asyncio
import contextlib
import gettext
import os
import secrets
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List, NoReturn, Optional, Sequence

from ..errors import SorteioError
from ..i18n import _, install_for_click
from . import protocol
from .handler import Job, Outcome, RequestHandler
from .portfile import (
    create_new,
    make_private_dirs,
    remove_game_files,
    remove_port_file,
    write_error_file,
    write_port_file,
)

LOOPBACK = ("127.0.0.1", "localhost", "::1")
BODY_TIMEOUT = 10.0  # seconds a started frame may take to arrive in full
AUTH_TIMEOUT = 10.0  # seconds from connecting to a first request that carries the token
MAX_PENDING = 32  # connections waiting for that first request, at most (fewer at a low nofile)
WORK_TIMEOUT = 30.0  # seconds a slow request (new_match, load) may take, waiting included
WORK_THREAD = "sorteio-bridge-work"  # the name of a slow request's thread
WORK_THREADS = 2  # slow requests running at once (the rest wait their turn)
LOG_INTERVAL = 10.0  # seconds between two lines about the same kind of asyncio error
CLOSE_TIMEOUT = 5.0  # seconds a closing socket may take to flush before it is aborted
PARENT_POLL = 0.25  # seconds between checks that the parent process is alive
PID_LIMIT = 2**31  # a PID is a positive C int
STOP_SIGNALS = ("SIGTERM", "SIGINT")


class BridgeError(SorteioError):
    """The server cannot start as asked (a user error: one line, exit code 2, no traceback)."""


class GameGone(BridgeError):
    """``--game-files`` was given and the game (``--parent-pid``) is already gone: its files
    were removed; the server exits 2 and writes no error file."""


def check_options(
    host: str,
    port: int,
    port_file: Optional[str],
    parent_pid: Optional[int],
    game_files: Sequence[str] = (),
) -> None:
    """Refuse, before binding anything, what would otherwise end in a traceback. A game already
    gone with ``game_files``: its files are removed and ``GameGone`` is raised."""
    # The game first: once it is gone, no other mistake is worth an error file no one reads.
    if parent_pid is not None and parent_pid != 0 and not 0 < parent_pid < PID_LIMIT:
        raise BridgeError(_("--parent-pid must be a process id, not {pid}").format(
            pid=parent_pid))
    check_game_files(game_files, parent_pid)
    if parent_pid and not _process_alive(parent_pid):
        if game_files:
            remove_game_files(game_files)
            raise GameGone(_("--parent-pid {pid}: the game is gone, its files removed").format(
                pid=parent_pid))
        raise BridgeError(_("--parent-pid {pid}: no such process").format(pid=parent_pid))
    if host not in LOOPBACK:
        raise BridgeError(_("the bridge serves on the loopback interface only, not {host!r}"
                           ).format(host=host))
    if isinstance(port, bool) or not isinstance(port, int) or not 0 <= port <= 65535:
        raise BridgeError(_("--port must be from 0 to 65535 (0 picks a free one), not {port}"
                           ).format(port=port))
    if port_file:
        check_port_file(port_file)


def check_port_file(path: str) -> None:
    """Make sure the port file can be written (its missing folders are created, mode 0700)."""
    target = Path(path)
    try:
        if target.is_dir():
            raise IsADirectoryError(21, "Is a directory")
        make_private_dirs(target.parent)
        probe, fd = create_new(target)
        os.close(fd)
        os.remove(str(probe))
    except OSError as exc:
        raise BridgeError(_("cannot write the port file {path}: {reason}").format(
            path=path, reason=exc.strerror or exc)) from None


def check_game_files(game_files: Sequence[str], parent_pid: Optional[int]) -> None:
    """Each ``--game-files`` prefix is an absolute path ending in the start of a file name (a
    folder alone would mean every file in it), and they need the game's ``--parent-pid``."""
    if game_files and not parent_pid:
        raise BridgeError(_("--game-files needs --parent-pid (the game whose files they are)"))
    for prefix in game_files:
        if not os.path.isabs(prefix) or not os.path.basename(prefix):
            raise BridgeError(_(
                "--game-files takes an absolute path ending in the start of a file name "
                "(e.g. /home/me/game/sorteio_deck_42_), not {prefix!r}"
            ).format(prefix=prefix))


def _process_alive(pid: int) -> bool:
    """False once ``pid`` is gone; a zombie (dead, not yet reaped by its parent: Linux's
    /proc/PID/stat says Z or X) is gone too. Other POSIX systems: whether signal 0 reaches it.
    Windows: ``_windows_process_alive``."""
    if sys.platform == "win32":
        return _windows_process_alive(pid)
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            # "pid (name) S ...": the name may hold spaces and parentheses; the state follows
            # the last ")".
            state = stat.read().rpartition(")")[2].split()[:1]
    except FileNotFoundError:
        return not os.path.isdir("/proc/self")  # no /proc here: signal 0 said it is there
    except OSError:
        return True
    return state not in (["Z"], ["X"])


# Windows API values (winnt.h, winerror.h, winbase.h) for _windows_process_alive.
_SYNCHRONIZE = 0x00100000
_PROCESS_QUERY_LIMITED_INFORMATION = 0x1000
_ERROR_ACCESS_DENIED = 5
_WAIT_OBJECT_0 = 0
# PID -> a handle to that running process, kept open: Windows does not give a PID to a new
# process while a handle to the old one is open, so later checks see this very process.
_windows_handles: Dict[int, int] = {}


def _windows_process_alive(pid: int) -> bool:
    """Whether process ``pid`` is still running, on Windows. ``os.kill(pid, 0)`` cannot probe
    there: signal 0 is CTRL_C_EVENT, sent to the game's console group (it would interrupt the
    game), and any other number ends the process. So the process is opened once (the handle is
    kept, see ``_windows_handles``) and waited on for 0 ms: signaled means it exited; a wait that
    fails says alive, as an unreadable /proc does on Linux. A PID that cannot be opened for lack
    of rights belongs to a running process (another user's); any other refusal (no such PID)
    means gone."""
    import ctypes

    kernel32 = ctypes.WinDLL("kernel32", use_last_error=True)  # type: ignore[attr-defined]
    kernel32.OpenProcess.restype = ctypes.c_void_p
    kernel32.OpenProcess.argtypes = (ctypes.c_uint32, ctypes.c_int, ctypes.c_uint32)
    kernel32.WaitForSingleObject.restype = ctypes.c_uint32
    kernel32.WaitForSingleObject.argtypes = (ctypes.c_void_p, ctypes.c_uint32)
    kernel32.CloseHandle.argtypes = (ctypes.c_void_p,)
    handle = _windows_handles.get(pid)
    if handle is None:
        access = _SYNCHRONIZE | _PROCESS_QUERY_LIMITED_INFORMATION
        handle = kernel32.OpenProcess(access, 0, pid)
        if not handle:
            return ctypes.get_last_error() == _ERROR_ACCESS_DENIED  # type: ignore[attr-defined]
    if kernel32.WaitForSingleObject(handle, 0) != _WAIT_OBJECT_0:
        _windows_handles[pid] = handle
        return True
    _windows_handles.pop(pid, None)
    kernel32.CloseHandle(handle)
    return False


def pending_limit() -> int:
    """``MAX_PENDING``, or fewer when the open-file limit is low: waiting connections may use at
    most a quarter of it, so the game's connection, deck files and threads always find one."""
    try:
        import resource

        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    except (ImportError, OSError, ValueError):  # no resource module (Windows)
        return MAX_PENDING
    if soft == resource.RLIM_INFINITY:
        return MAX_PENDING
    return max(2, min(MAX_PENDING, soft // 4))


class _NotInTime(Exception):
    """A connection did not send a request with the token within ``AUTH_TIMEOUT``."""


class _RateLimitedLog:
    """asyncio's exception handler: one line per kind of error, at most one per LOG_INTERVAL s
    (a server out of file descriptors must not flood the game's console)."""

    def __init__(self) -> None:
        self._last: Dict[str, float] = {}
        self._muted: Dict[str, int] = {}

    def __call__(self, loop: asyncio.AbstractEventLoop, context: Dict[str, Any]) -> None:
        message = str(context.get("message") or "asyncio error")
        exc = context.get("exception")
        now = time.monotonic()
        last = self._last.get(message)
        if last is not None and now - last < LOG_INTERVAL:
            self._muted[message] = self._muted.get(message, 0) + 1
            return
        self._last[message] = now
        muted = self._muted.pop(message, 0)
        line = f"sorteio-bridge: {message}"
        if exc is not None:
            line += f": {exc}"
        if muted:
            line += f" ({muted} more like it since the last line)"
        print(line, file=sys.stderr, flush=True)


class BridgeServer:
    """One handler (one match) shared by the connections of one launch. Requests of a connection
    are answered in order; slow ones run in a thread (see the module docstring)."""

    def __init__(self, handler: RequestHandler, log: bool = False) -> None:
        self.handler = handler
        self.log = log
        self.requests = 0
        self.max_pending = pending_limit()
        # Connections that have not yet sent a request with the token, oldest first.
        self._pending: Dict[asyncio.StreamWriter, float] = {}
        self._workers: Optional[asyncio.Semaphore] = None  # made in the loop (Python 3.8)

    def say(self, message: str) -> None:
        if self.log:
            print(f"sorteio-bridge: {message}", file=sys.stderr, flush=True)

    async def on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        self.say(f"client {peer} connected")
        self._admit(writer)
        try:
            await self._serve_client(reader, writer)
        except _NotInTime:
            self._pending.pop(writer, None)
            self._shut(writer, f"closed: no request with the token within {AUTH_TIMEOUT:g} s")
        except (ConnectionError, asyncio.IncompleteReadError):
            self.say(f"client {peer} dropped mid-frame")
        except asyncio.TimeoutError:
            self.say(f"client {peer} too slow to send a frame")
        finally:
            self._pending.pop(writer, None)
            writer.close()
            try:  # a peer that reads nothing must not keep its socket open here forever
                await asyncio.wait_for(writer.wait_closed(), CLOSE_TIMEOUT)
            except asyncio.TimeoutError:
                writer.transport.abort()
            except (ConnectionError, OSError):
                pass
            self.say(f"client {peer} closed")

    def _admit(self, writer: asyncio.StreamWriter) -> None:
        while len(self._pending) >= self.max_pending:
            oldest = next(iter(self._pending))
            self._pending.pop(oldest)
            message = (
                f"closed: {self.max_pending} connections were waiting to send a request with "
                "the token (the oldest waiting one is closed first)"
            )
            self._shut(oldest, message)
        self._pending[writer] = time.monotonic()

    def _shut(self, writer: asyncio.StreamWriter, message: str) -> None:
        # Never waits: one error reply (sent at once when the socket has room), then the socket
        # is aborted, so a peer that reads nothing cannot keep it open.
        with contextlib.suppress(Exception):
            reply = protocol.error_reply(None, protocol.UNAUTHORIZED, message)
            writer.write(protocol.encode_frame(reply))
        writer.transport.abort()

    async def _within(
        self, writer: asyncio.StreamWriter, deadline: float, step: Any, limit: Optional[float]
    ) -> Any:
        """Await ``step`` for at most ``limit`` s (None: no limit) and, while the connection has
        not sent the token, not past ``deadline`` (then ``_NotInTime``)."""
        if writer in self._pending:
            left = max(0.0, deadline - time.monotonic())
            if limit is None or left < limit:
                try:
                    return await asyncio.wait_for(step, left)
                except asyncio.TimeoutError:
                    raise _NotInTime() from None
        if limit is None:
            return await step
        return await asyncio.wait_for(step, limit)

    async def _serve_client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        deadline = time.monotonic() + AUTH_TIMEOUT
        while True:
            step = reader.readexactly(protocol.HEADER_SIZE)
            try:
                header = await self._within(writer, deadline, step, None)
            except asyncio.IncompleteReadError as exc:
                if exc.partial:
                    raise
                return  # clean close between frames
            try:
                length = protocol.frame_length(header)
            except protocol.FrameError as exc:
                reply = protocol.error_reply(None, exc.code, str(exc))
                await self._send(writer, deadline, reply)
                if exc.fatal:
                    return  # cannot skip an oversized body safely: close
                continue
            body = await self._within(writer, deadline, reader.readexactly(length), BODY_TIMEOUT)
            self.requests += 1
            try:
                request = protocol.decode_body(body)
            except protocol.FrameError as exc:
                await self._send(writer, deadline, protocol.error_reply(None, exc.code, str(exc)))
                continue
            if writer in self._pending and self.handler.authorized(request):
                self._pending.pop(writer, None)  # it has the token: no deadline from now on
            reply = await self._answer(self.handler.job(request))
            await self._send(writer, deadline, reply)
            if not reply["ok"] and reply["error"]["code"] == protocol.UNAUTHORIZED:
                return  # a client without the token gets one answer, then the door

    async def _answer(self, job: Job) -> Dict[str, Any]:
        if not job.slow:
            return job.finish(job.run())
        try:
            outcome = await asyncio.wait_for(self._run_in_thread(job), WORK_TIMEOUT)
        except asyncio.TimeoutError:
            message = (
                f"the request took more than {WORK_TIMEOUT:g} s and was abandoned; the match "
                "is unchanged"
            )
            return protocol.error_reply(job.request_id, protocol.TIMEOUT, message)
        # The commit runs here, in the loop's thread, like every other request.
        return job.finish(outcome)

    async def _run_in_thread(self, job: Job) -> Outcome:
        """``job.run()`` in a daemon thread (a thread stuck in a read does not keep the server
        from exiting); a slot of ``WORK_THREADS`` is held until the thread really ends."""
        if self._workers is None:
            self._workers = asyncio.Semaphore(WORK_THREADS)
        await self._workers.acquire()
        loop = asyncio.get_running_loop()
        done: asyncio.Future = loop.create_future()

        def deliver(outcome: Outcome) -> None:
            self._workers.release()
            if not done.done():  # abandoned at the time bound: the outcome is dropped
                done.set_result(outcome)

        def work() -> None:
            outcome = job.run()
            with contextlib.suppress(RuntimeError):  # the loop closed: the server stopped
                loop.call_soon_threadsafe(deliver, outcome)

        try:
            threading.Thread(target=work, name=WORK_THREAD, daemon=True).start()
        except BaseException:
            self._workers.release()
            raise
        return await asyncio.shield(done)

    async def _send(self, writer: asyncio.StreamWriter, deadline: float, reply: dict) -> None:
        try:
            frame = protocol.encode_frame(reply)
        except protocol.FrameError as exc:
            code = protocol.INTERNAL_ERROR
            frame = protocol.encode_frame(protocol.error_reply(None, code, str(exc)))
        writer.write(frame)
        # Before the token, a peer that sends garbage and reads no reply is not waited for.
        await self._within(writer, deadline, writer.drain(), None)


async def _watch_parent(pid: int, stop: asyncio.Event) -> None:
    # When the parent is our own parent, also notice being re-parented (it died, maybe a zombie).
    own_parent = os.getppid() == pid
    while not _game_gone(pid, own_parent):
        await asyncio.sleep(PARENT_POLL)
    stop.set()


def _game_gone(pid: int, own_parent: bool) -> bool:
    return not _process_alive(pid) or (own_parent and os.getppid() != pid)


async def serve_async(
    host: str = "127.0.0.1",
    port: int = 0,
    token: Optional[str] = None,
    port_file: Optional[str] = None,
    parent_pid: Optional[int] = None,
    log: bool = False,
    ready: Optional[asyncio.Event] = None,
    stop: Optional[asyncio.Event] = None,
    engine_cls: object = None,
    handle_signals: bool = False,
    announce: bool = False,
    game_files: Sequence[str] = (),
) -> None:
    """Serve until ``stop`` is set or the parent process is gone (runs forever otherwise).

    ``handle_signals`` (main thread only): SIGTERM and SIGINT set ``stop``, so the server closes
    and removes its port file. ``announce``: print one line to stderr saying where it listens
    and where the token is (the token itself when there is no port file), for a person who
    started it by hand. ``game_files``: prefixes of the files of the game (``parent_pid``)
    removed once it is gone, whatever stopped the server (see the module docstring).
    ``BridgeError`` when it cannot start as asked."""
    check_options(host, port, port_file, parent_pid, game_files)
    own_parent = bool(parent_pid) and os.getppid() == parent_pid
    token = token or secrets.token_hex(16)
    bridge = BridgeServer(RequestHandler(token=token, engine_cls=engine_cls), log=log)
    try:
        server = await asyncio.start_server(bridge.on_client, host, port)
    except OSError as exc:  # asyncio's strerror repeats the address: keep the OS's words
        reason = os.strerror(exc.errno) if exc.errno else str(exc)
        raise BridgeError(_("cannot listen on {host} port {port}: {reason}").format(
            host=host, port=port, reason=reason)) from None
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.set_exception_handler(_RateLimitedLog())
    caught = []
    watchers = []
    written = None
    try:
        async with server:
            if handle_signals:
                caught = _catch_stop_signals(loop, stop)
            bound = server.sockets[0].getsockname()[1]
            if port_file:
                try:
                    written = write_port_file(port_file, bound, token)
                except OSError as exc:
                    reason = exc.strerror or str(exc)
                    raise BridgeError(_("cannot write the port file {path}: {reason}").format(
                        path=port_file, reason=reason)) from None
            bridge.say(f"listening on {host}:{bound}")
            if announce:
                print(listening_line(host, bound, token, port_file), file=sys.stderr, flush=True)
            if parent_pid:
                watchers.append(asyncio.ensure_future(_watch_parent(parent_pid, stop)))
            if ready is not None:
                ready.set()
            await stop.wait()
    finally:
        for task in watchers:
            task.cancel()
        if written is not None:
            remove_port_file(port_file, written)
        # Stopped because the game is gone (the watch, or a frozen server's parent-death SIGTERM):
        # nothing of the game will remove its files now. A game that stopped us keeps them.
        if game_files and _game_gone(parent_pid, own_parent):
            remove_game_files(game_files)
        # Only now: the parent-death signal comes once per thread of the dying game that we are
        # handed to on the way (Linux re-parents a child to a live thread of the same process
        # first), so a second SIGTERM often follows the first by ~0.1 s; with the default
        # action back it would kill us before the game's files are removed (issue 14's race).
        for signum in caught:
            loop.remove_signal_handler(signum)
        bridge.say("stopped")


def listening_line(host: str, port: int, token: str, port_file: Optional[str]) -> str:
    """The line ``sorteio serve`` prints once it listens: what a client needs to connect."""
    where = (_("token in {path}").format(path=port_file) if port_file
             else _("token {token}").format(token=token))
    return _("sorteio serve: listening on {host}:{port}, {where} (Ctrl-C to stop)").format(
        host=host, port=port, where=where)


def _catch_stop_signals(loop: asyncio.AbstractEventLoop, stop: asyncio.Event) -> List[int]:
    """SIGTERM / SIGINT set ``stop`` (a clean shutdown). Returns the signals now handled."""
    caught = []
    for name in STOP_SIGNALS:
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        try:
            loop.add_signal_handler(signum, stop.set)
        except (NotImplementedError, RuntimeError, ValueError):  # Windows, or not main thread
            continue
        caught.append(signum)
    return caught


def serve(
    host: str = "127.0.0.1",
    port: int = 0,
    token: Optional[str] = None,
    port_file: Optional[str] = None,
    parent_pid: Optional[int] = None,
    log: bool = False,
    announce: bool = True,
    game_files: Sequence[str] = (),
) -> None:
    """Blocking entry point for ``sorteio serve``: serve until SIGTERM / SIGINT or the parent is
    gone. ``announce``: print the one ``listening on`` line to stderr. ``game_files``: see
    ``serve_async``. ``BridgeError`` (before serving) when it cannot start as asked."""
    check_options(host, port, port_file, parent_pid, game_files)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(
            serve_async(
                host,
                port,
                token,
                port_file,
                parent_pid,
                log,
                handle_signals=True,
                announce=announce,
                game_files=game_files,
            )
        )
    _leave_if_work_runs_on()


def _leave_if_work_runs_on() -> None:
    """Exit at once, without the interpreter's finalization, when a request's worker thread is
    still running (a stop signal during a slow ``new_match`` or ``load``): CPython finalizing
    beside it segfaulted 7 times in 8 (CPython 3.11, SIGTERM 0.5 s into a 20,000-card
    ``new_match``; the frozen server too), which a player's desktop reports as a crash. By now
    the server has closed its sockets and removed its port file and the game's files, and owns
    nothing else to finish."""
    if any(t.name == WORK_THREAD and t.is_alive() for t in threading.enumerate()):
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
        os._exit(0)


class _ArgumentParser(argparse.ArgumentParser):
    """argparse before Python 3.11 formats ``argument X: ...`` of a usage error without gettext
    (``ArgumentError.__str__``): that prefix is put through the same catalog here, so the whole
    error is in the run's language on CPython 3.8 (Godot 3's pythonscript) too."""

    def error(self, message: str) -> NoReturn:
        name, sep, rest = message.partition(": ")
        if sep and name.startswith("argument "):
            message = gettext.gettext("argument %(argument_name)s: %(message)s") % {
                "argument_name": name[len("argument "):],
                "message": rest,
            }
        super().error(message)


def build_parser() -> argparse.ArgumentParser:
    """``python -m sorteio.bridge.server`` and the frozen ``sorteio-serve``: their options, help
    in the language of the run (argparse's own words through the global gettext: ``main``)."""
    parser = _ArgumentParser(
        prog="python -m sorteio.bridge.server",
        description=_("Serve the sorteio draw to Godot over a loopback socket (framed JSON)."),
    )
    # argparse formats help with %: a literal % would be doubled (none here).
    parser.add_argument("--host", default="127.0.0.1",
                        help=_("loopback address (default 127.0.0.1)"))
    parser.add_argument("--port", type=int, default=0, help=_("TCP port; 0 picks a free one"))
    parser.add_argument("--token", default=None,
                        help=_("request token (default: a random one)"))
    parser.add_argument("--port-file", default=None,
                        help=_("write {{port, token, pid}} here (JSON, mode 0600)").format())
    parser.add_argument("--parent-pid", type=int, default=None,
                        help=_("exit when this PID is gone"))
    parser.add_argument(
        "--game-files",
        action="append",
        default=[],
        metavar="PREFIX",
        help=_("once the --parent-pid game is gone, remove its files whose path starts with "
               "PREFIX (an absolute path; repeatable)"),
    )
    parser.add_argument("--log", action="store_true", help=_("log connections to stderr"))
    return parser


# What the Godot node runs with ``python -c``: any error before serving (``sorteio`` not
# importable in that Python, a bad option) is also written to the file named by the first
# argument, so the node can show the real cause instead of "exited before it was ready".
# One line, so it survives any platform's command-line quoting.
LAUNCHER = (
    "import sys,os;e=sys.argv.pop(1);h=sys.excepthook;"
    "f=os.O_WRONLY|os.O_CREAT|os.O_TRUNC|getattr(os,'O_NOFOLLOW',0);"
    "sys.excepthook=lambda t,v,b:(h(t,v,b),"
    "os.write(os.open(e,f,0o600),('%s: %s'%(t.__name__,v)).encode()));"
    "from sorteio.bridge.server import main;sys.exit(main(sys.argv[1:],error_file=e))"
)


def main(argv: Optional[List[str]] = None, error_file: Optional[str] = None) -> int:
    """``error_file``: also write a start-up error there (the Godot node reads it)."""
    install_for_click()  # argparse's usage errors and headings in the run's language too
    args = build_parser().parse_args(argv)
    try:
        # Launched by the Godot node (a port file and a parent): quiet. By hand: say where.
        announce = not (args.port_file and args.parent_pid)
        serve(
            args.host,
            args.port,
            args.token,
            args.port_file,
            args.parent_pid,
            args.log,
            announce,
            game_files=args.game_files,
        )
    except BridgeError as exc:
        line = _("error: {message}").format(message=exc)
        print(line, file=sys.stderr)
        if error_file and not isinstance(exc, GameGone):
            write_error_file(error_file, line)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
