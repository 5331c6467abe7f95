"""Socket bridge: an asyncio server on the loopback interface that answers framed JSON requests.

``serve()`` is what ``sorteio serve`` runs; ``python -m sorteio.bridge.server`` runs it too.
Security: it binds 127.0.0.1 only, and every request must carry the per-launch token. The token
is given with ``--token`` or, better, generated here and written with the port to ``--port-file``
(mode 0600), so it never shows on a command line that other local users can read.

Robustness: a malformed frame or request gets an error reply and the connection goes on; a wrong
token gets an error reply and the connection is closed; an oversized frame closes the connection
(its body cannot be skipped safely); a client that disconnects mid-frame is dropped. The server
serves on in every case. With ``--parent-pid`` it exits when that process is gone, so a game that
crashed does not leave it running.
"""

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import sys
from pathlib import Path
from typing import List, Optional

from . import protocol
from .handler import RequestHandler

LOOPBACK = ("127.0.0.1", "localhost", "::1")
BODY_TIMEOUT = 10.0  # seconds a started frame may take to arrive in full
PARENT_POLL = 0.5  # seconds between checks that the parent process is alive


def write_port_file(path: str, port: int, token: str) -> None:
    """Write ``{"port", "token", "pid"}`` atomically, readable by the owner only."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_name(target.name + ".tmp")
    fd = os.open(str(tmp), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump({"port": port, "token": token, "pid": os.getpid()}, handle)
    os.replace(str(tmp), str(target))


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


class BridgeServer:
    """One handler (one match) shared by the connections of one launch, served one at a time."""

    def __init__(self, handler: RequestHandler, log: bool = False) -> None:
        self.handler = handler
        self.log = log
        self.requests = 0

    def _say(self, message: str) -> None:
        if self.log:
            print(f"sorteio-bridge: {message}", file=sys.stderr, flush=True)

    async def on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        peer = writer.get_extra_info("peername")
        self._say(f"client {peer} connected")
        try:
            await self._serve_client(reader, writer)
        except (ConnectionError, asyncio.IncompleteReadError):
            self._say(f"client {peer} dropped mid-frame")
        except asyncio.TimeoutError:
            self._say(f"client {peer} too slow to send a frame")
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await writer.wait_closed()
            self._say(f"client {peer} closed")

    async def _serve_client(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        while True:
            try:
                header = await reader.readexactly(protocol.HEADER_SIZE)
            except asyncio.IncompleteReadError as exc:
                if exc.partial:
                    raise
                return  # clean close between frames
            try:
                length = protocol.frame_length(header)
            except protocol.FrameError as exc:
                await self._send(writer, protocol.error_reply(None, exc.code, str(exc)))
                if exc.fatal:
                    return  # cannot skip an oversized body safely: close
                continue
            body = await asyncio.wait_for(reader.readexactly(length), BODY_TIMEOUT)
            self.requests += 1
            try:
                request = protocol.decode_body(body)
            except protocol.FrameError as exc:
                await self._send(writer, protocol.error_reply(None, exc.code, str(exc)))
                continue
            reply = self.handler.handle(request)
            await self._send(writer, reply)
            if not reply["ok"] and reply["error"]["code"] == protocol.UNAUTHORIZED:
                return  # a client without the token gets one answer, then the door

    async def _send(self, writer: asyncio.StreamWriter, reply: dict) -> None:
        try:
            frame = protocol.encode_frame(reply)
        except protocol.FrameError as exc:
            code = protocol.INTERNAL_ERROR
            frame = protocol.encode_frame(protocol.error_reply(reply.get("id"), code, str(exc)))
        writer.write(frame)
        await writer.drain()


async def _watch_parent(pid: int, stop: asyncio.Event) -> None:
    # When the parent is our own parent, also notice being re-parented (it died, maybe a zombie).
    own_parent = os.getppid() == pid
    while _process_alive(pid) and (not own_parent or os.getppid() == pid):
        await asyncio.sleep(PARENT_POLL)
    stop.set()


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
) -> None:
    """Serve until ``stop`` is set or the parent process is gone (runs forever otherwise)."""
    if host not in LOOPBACK:
        raise ValueError(f"the bridge serves on the loopback interface only, not {host!r}")
    token = token or secrets.token_hex(16)
    bridge = BridgeServer(RequestHandler(token=token, engine_cls=engine_cls), log=log)
    server = await asyncio.start_server(bridge.on_client, host, port)
    bound = server.sockets[0].getsockname()[1]
    if port_file:
        write_port_file(port_file, bound, token)
    bridge._say(f"listening on {host}:{bound}")
    stop = stop or asyncio.Event()
    watchers = []
    if parent_pid:
        watchers.append(asyncio.ensure_future(_watch_parent(parent_pid, stop)))
    if ready is not None:
        ready.set()
    try:
        async with server:
            await stop.wait()
    finally:
        for task in watchers:
            task.cancel()
        if port_file:
            with contextlib.suppress(OSError):
                os.remove(port_file)
        bridge._say("stopped")


def serve(
    host: str = "127.0.0.1",
    port: int = 0,
    token: Optional[str] = None,
    port_file: Optional[str] = None,
    parent_pid: Optional[int] = None,
    log: bool = False,
) -> None:
    """Blocking entry point for ``sorteio serve``: serve until killed or the parent is gone."""
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve_async(host, port, token, port_file, parent_pid, log))


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sorteio.bridge.server",
        description="Serve the sorteio draw to Godot over a loopback socket (framed JSON).",
    )
    parser.add_argument("--host", default="127.0.0.1", help="loopback address (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="TCP port; 0 picks a free one")
    parser.add_argument("--token", default=None, help="request token (default: a random one)")
    parser.add_argument(
        "--port-file", default=None, help="write {port, token, pid} here (JSON, mode 0600)"
    )
    parser.add_argument("--parent-pid", type=int, default=None, help="exit when this PID is gone")
    parser.add_argument("--log", action="store_true", help="log connections to stderr")
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    args = build_parser().parse_args(argv)
    if args.host not in LOOPBACK:
        print(
            f"error: the bridge serves on the loopback interface only, not {args.host!r}",
            file=sys.stderr,
        )
        return 2
    serve(args.host, args.port, args.token, args.port_file, args.parent_pid, args.log)
    return 0


if __name__ == "__main__":
    sys.exit(main())
