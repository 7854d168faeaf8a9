"""The two transports of ``lait serve --mcp``.

* **stdio** (default): JSON-RPC lines on stdin/stdout. While serving, file descriptors 0 and 1
  point at ``/dev/null`` and stderr, so nothing a run spawns can read the client's messages or
  write into the protocol stream. A line longer than :data:`FRAME_LIMIT` is dropped with a note on
  stderr (like any unparsable line, it gets no answer). At stdin's end the requests already read
  are still answered (at most ``--drain-timeout`` seconds, then their runs are cancelled with a
  JSON-RPC error; :mod:`lait_core.serve.drain`), then the server stops.
* **streamable HTTP** (``--http ADDR``): uvicorn on a socket bound here (port 0 picks one), the
  SDK's stateful session manager (several concurrent clients), every request path served as
  ``/mcp``. DNS-rebinding protection: the ``Host`` must be loopback or an ``--allowed-host``,
  and an ``Origin``, when sent, must be one of those hosts too. ``--token-env VAR``: every
  request needs ``Authorization: Bearer <$VAR>`` (compared in constant time). Bodies are limited
  to :data:`FRAME_LIMIT`. SSE streams are resumable (``Last-Event-ID``, :mod:`.event_store`).
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import logging
import os
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any

from lait_core.serve.drain import DRAIN_SECONDS, Drain, Frame, Ledger, frame_of, reader_gone
from lait_core.serve.mcp_server import DISCONNECTED, LaitServer

FRAME_LIMIT = 16 * 1024 * 1024
"""Bytes of one stdio line or one HTTP request body."""

HEADER_LIMIT = 16 * 1024
"""Bytes of one HTTP request's header block (a longer one gets 400 and the connection closes)."""

MAX_CONNECTIONS = 128
"""Open HTTP connections at once; one more is closed as soon as it is accepted."""

HEADER_SECONDS = 10.0
"""How long a connection may take to send a request's complete header block."""

MAX_SESSIONS = 256
"""Open MCP sessions at once (a further ``initialize`` gets 503 until one ends or expires)."""

SESSION_IDLE_SECONDS = 600.0
"""A session with no request in flight and no open stream for this long is ended (its runs too)."""

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "[::1]")


def is_loopback(host: str) -> bool:
    """Whether a bind address only reaches this machine (127.0.0.0/8, ::1, localhost)."""
    import ipaddress

    if host.strip("[]").lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


# -- stdio -------------------------------------------------------------------------------------
class _LineReader:
    """An async iterator of stdin lines, read by a daemon thread (so a blocked read never keeps
    the process alive) and bounded to FRAME_LIMIT bytes each. At stdin's end it hands over to
    the :class:`~lait_core.serve.drain.Drain` (the requests already read get their answers)."""

    def __init__(self, fd: int, ledger: Ledger) -> None:
        self._file = os.fdopen(fd, "rb", buffering=0)
        self._loop = asyncio.get_running_loop()
        self._queue: asyncio.Queue[tuple[str, Frame | None] | None] = asyncio.Queue(maxsize=8)
        self._ledger = ledger
        self.drain: Drain | None = None
        """Set before the first read (it needs the server)."""
        self._ended = False
        threading.Thread(target=self._read, name="lait-serve-stdin", daemon=True).start()

    def _put(self, item: tuple[str, Frame | None] | None) -> None:
        with contextlib.suppress(RuntimeError):  # the loop is closed
            asyncio.run_coroutine_threadsafe(self._queue.put(item), self._loop).result()

    def _read(self) -> None:
        import io

        stream = io.BufferedReader(self._file, buffer_size=65536)
        try:
            while True:
                line = stream.readline(FRAME_LIMIT + 1)
                if not line:
                    break
                if len(line) > FRAME_LIMIT and not line.endswith(b"\n"):
                    while True:  # drop the rest of the oversized frame
                        rest = stream.readline(65536)
                        if not rest or rest.endswith(b"\n"):
                            break
                    sys.stderr.write(f"lait serve: dropped a message larger than {FRAME_LIMIT} bytes\n")
                    self._put(("oversized frame\n", None))  # not JSON: dropped by the SDK
                    continue
                self._put((line.decode("utf-8", errors="replace"), frame_of(line)))
        except (OSError, ValueError):
            pass
        finally:
            self._put(None)

    def __aiter__(self) -> _LineReader:
        return self

    async def __anext__(self) -> str:
        if not self._ended:
            item = await self._queue.get()
            if item is not None:
                text, frame = item
                self._ledger.received(frame)
                return text
            self._ended = True
        line = await self.drain.next_line() if self.drain is not None else None
        if line is None:
            raise StopAsyncIteration
        return line


class _LineWriter:
    """Writes the SDK's lines to the client and tells the ledger which ids they answer. Once
    the client has stopped reading, lines are dropped (the client is gone)."""

    def __init__(self, fd: int, ledger: Ledger) -> None:
        self._file = os.fdopen(fd, "wb", buffering=0)
        self._ledger = ledger
        self.gone = False

    def _write(self, data: bytes) -> Frame | None:
        view = memoryview(data)
        while view:
            written = self._file.write(view)
            view = view[written or 0 :]
        return frame_of(data)

    async def write(self, text: str) -> None:
        if self.gone:
            return
        try:
            frame = await asyncio.to_thread(self._write, text.encode("utf-8"))
        except OSError:  # EPIPE: nobody reads stdout any more
            self.gone = True
            self._ledger.changed.set()
            return
        self._ledger.sent(frame)

    async def flush(self) -> None:
        return None

    def client_gone(self) -> bool:
        return self.gone or reader_gone(self._file.fileno())


@contextlib.contextmanager
def _claimed_stdio() -> Any:
    """Private copies of fds 0 and 1; meanwhile 0 reads /dev/null and 1 writes to stderr."""
    sys.stdout.flush()
    private_in = os.dup(0)
    private_out = os.dup(1)
    os.set_inheritable(private_in, False)
    os.set_inheritable(private_out, False)
    null = os.open(os.devnull, os.O_RDONLY)
    saved_in, saved_out = os.dup(0), os.dup(1)
    os.dup2(null, 0)
    os.dup2(2, 1)
    os.close(null)
    try:
        yield private_in, private_out
    finally:
        with contextlib.suppress(OSError):
            os.dup2(saved_in, 0)
            os.dup2(saved_out, 1)
        for fd in (saved_in, saved_out):
            with contextlib.suppress(OSError):
                os.close(fd)


async def serve_stdio(
    lait: LaitServer, ready: Callable[[], None], drain_seconds: float = DRAIN_SECONDS
) -> None:
    from mcp.server.stdio import stdio_server

    server = lait.build()
    with _claimed_stdio() as (fd_in, fd_out):
        ledger = Ledger()
        reader = _LineReader(fd_in, ledger)
        writer = _LineWriter(fd_out, ledger)
        reader.drain = Drain(
            ledger, seconds=drain_seconds, client_gone=writer.client_gone, expire=lait.calls.cancel_all
        )
        async with stdio_server(stdin=reader, stdout=writer) as (read_stream, write_stream):  # type: ignore[arg-type]
            ready()
            await server.run(read_stream, write_stream, server.create_initialization_options())


# -- HTTP --------------------------------------------------------------------------------------
def parse_addr(addr: str) -> tuple[str, int]:
    """``HOST:PORT``, ``[V6]:PORT`` or ``:PORT`` (loopback); raises ValueError."""
    host, sep, port_text = addr.rpartition(":")
    if not sep:
        raise ValueError(f"--http '{addr}' must be HOST:PORT (for example 127.0.0.1:8765; port 0 picks one)")
    host = host.strip("[]") or "127.0.0.1"
    try:
        port = int(port_text)
    except ValueError:
        raise ValueError(f"--http '{addr}': '{port_text}' is not a port number") from None
    if not 0 <= port <= 65535:
        raise ValueError(f"--http '{addr}': the port must be between 0 and 65535")
    return host, port


def host_patterns(extra: Sequence[str]) -> tuple[list[str], list[str]]:
    """(allowed Host values, allowed Origin values): loopback with any port, plus each
    ``--allowed-host`` (host = any port, host:port = exactly that)."""
    hosts: list[str] = []
    for name in (*LOOPBACK_HOSTS, *extra):
        if name.startswith("[") or name.count(":") != 1:
            bare = name if name.startswith("[") or ":" not in name else f"[{name}]"
            hosts.extend([bare, f"{bare}:*"])
        else:
            hosts.append(name)
    origins = [f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")]
    return hosts, origins


class _Guard:
    """Every path is ``/mcp``; with a token, every request must carry it (checked before the
    body is read). Each request's scope gets a :data:`DISCONNECTED` event."""

    def __init__(self, app: Any, token: str | None) -> None:
        self.app = app
        self.expected = f"Bearer {token}".encode() if token else None

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if self.expected is not None:
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self.expected):
                await _unauthorized(send)
                return
        gone = asyncio.Event()
        ended = False

        async def receiving() -> Any:
            message = await receive()
            if message.get("type") == "http.disconnect" and not ended:
                gone.set()
            return message

        async def sending(message: Any) -> None:
            nonlocal ended
            if message.get("type") == "http.response.body" and not message.get("more_body", False):
                ended = True
            await send(message)

        scope = dict(scope, path="/mcp", raw_path=b"/mcp")
        scope[DISCONNECTED] = gone
        await self.app(scope, receiving, sending)


async def _unauthorized(send: Any) -> None:
    body = b'{"error":"unauthorized: this lait serve needs its bearer token"}'
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [
                (b"content-type", b"application/json"),
                (b"www-authenticate", b'Bearer realm="lait serve"'),
                (b"content-length", str(len(body)).encode()),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _protocol_class() -> type[asyncio.Protocol]:
    """uvicorn's h11 protocol with a cap on open connections and a deadline for each request's
    header block (so idle or trickling connections cannot hold the server's memory or slots)."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Bounded(H11Protocol):
        _header_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            if len(self.connections) >= MAX_CONNECTIONS:
                transport.abort()
                return
            super().connection_made(transport)
            self._arm_header_timer()

        def _arm_header_timer(self) -> None:
            if self._header_timer is None:
                self._header_timer = self.loop.call_later(HEADER_SECONDS, self._header_deadline)

        def _header_deadline(self) -> None:
            self._header_timer = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

        def data_received(self, data: bytes) -> None:
            if self.conn.their_state is h11.IDLE:
                self._arm_header_timer()
            super().data_received(data)

        def connection_lost(self, exc: Exception | None) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None
            if self.transport is not None:  # None: refused in connection_made
                super().connection_lost(exc)

    return Bounded


def _uvicorn_class() -> Any:
    import uvicorn

    class Quiet(uvicorn.Server):
        """Signals are the command's business (it stops the server and then cleans up)."""

        @contextlib.contextmanager
        def capture_signals(self) -> Any:
            yield

    return Quiet


def _make_uvicorn(config: Any) -> Any:
    return _uvicorn_class()(config)


def bind_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError:
        sock.close()
        raise
    sock.listen(128)
    sock.set_inheritable(False)
    return sock


def url_of(sock: socket.socket) -> str:
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/mcp"


async def serve_http(
    lait: LaitServer,
    sock: socket.socket,
    *,
    allowed_hosts: Sequence[str] = (),
    token: str | None = None,
    ready: Callable[[str], None],
    stop: asyncio.Event,
) -> None:
    """Serve until ``stop`` is set, then shut down gracefully (open streams get a few seconds)."""
    import uvicorn
    from mcp.server.transport_security import TransportSecuritySettings

    server = lait.build()
    hosts, origins = host_patterns(allowed_hosts)
    settings = TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=hosts, allowed_origins=origins
    )
    from lait_core.serve.event_store import SessionEventStore, per_session_stores

    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        transport_security=settings,
        max_request_body_size=FRAME_LIMIT,
        event_store=SessionEventStore(),  # replaced by each session's own (per_session_stores)
        retry_interval=1000,
        max_sessions=MAX_SESSIONS,
        session_idle_timeout=SESSION_IDLE_SECONDS,
    )
    lait.stores = per_session_stores(server.session_manager)
    config = uvicorn.Config(
        _Guard(app, token),
        http=_protocol_class(),
        log_level="warning",
        access_log=False,
        lifespan="on",
        timeout_graceful_shutdown=2,
        h11_max_incomplete_event_size=HEADER_LIMIT,
    )
    userver = _make_uvicorn(config)
    task = asyncio.ensure_future(userver.serve(sockets=[sock]))

    async def stopping() -> None:
        await stop.wait()
        # runs first (their requests then end at once), then the server; streams still open after
        # the grace period are cut, which uvicorn would report as errors of the application
        logging.getLogger("uvicorn.error").setLevel(logging.CRITICAL)
        await lait.calls.aclose()
        userver.should_exit = True

    stopper = asyncio.ensure_future(stopping())
    try:
        while not userver.started and not task.done():
            await asyncio.sleep(0.02)
        if userver.started:
            ready(url_of(sock))
        await task
    finally:
        stopper.cancel()
        if not task.done():
            userver.should_exit = True
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(task, 5.0)


__all__ = [
    "DISCONNECTED",
    "FRAME_LIMIT",
    "HEADER_LIMIT",
    "is_loopback",
    "parse_addr",
    "serve_http",
    "serve_stdio",
]
