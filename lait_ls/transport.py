"""Serving over stdio with the client's messages read on the request loop itself.

pygls reads stdin on a worker thread, one blocking call per header line and per body, each handed
back to the event loop: a message costs about six hand-overs of the GIL between threads. While the
lint thread runs pure-Python work (a lint, the warm-up after a publish) each hand-over waits for the
interpreter's switch interval, so a hover sent right after an edit took 20-30 ms to be *read*
(measured at 1,000 lines; bench/lsp_latency.py "after an edit"). Here a pipe or socket on stdin is
read by the loop (``connect_read_pipe``): one wake-up per message, whatever the other threads do.
Anything else on stdin (a regular file, a terminal, whose file description the shell shares and
which must stay blocking, a socket that is stdout too) keeps pygls's reader. Either way the writer
never raises and a client that goes away ends the server cleanly (:mod:`lait_ls.lost_client`).

The interpreter's switch interval is also shortened for the server (:data:`SWITCH_INTERVAL`): when
the loop thread wants the GIL while the lint thread computes, it gets it within that time instead of
5 ms. It costs nothing while only one thread runs (the usual case: the loop waits for input).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from typing import TYPE_CHECKING, BinaryIO

from lait_ls.early_initialize import EarlyStart, EarlyWriter, reads_on_the_loop
from lait_ls.lost_client import ClientWriter, Connection

if TYPE_CHECKING:
    from pygls.io_ import AsyncReader
    from pygls.lsp.server import LanguageServer

    from lait_ls.language_server import LaitServer

log = logging.getLogger("lait-ls")

SWITCH_INTERVAL = 0.001
"""Seconds (CPython's default: 0.005); see the module doc."""

READ_LIMIT = 1 << 26
"""The longest header line the reader accepts (bodies are read by length, whatever their size)."""


class _Reader:
    """What pygls's message loop reads from: a stream on the event loop that lets the loop's other
    tasks take a step before each message is read. (A stream returns buffered data without
    suspending: messages that arrived together would otherwise all be handled before the tasks the
    first ones started, e.g. an ``exit`` before the answer to the request sent just before it.)
    A read error (a socket reset by the client) is the end of the input; so is the loss of the
    connection on a write (nothing more is handled)."""

    def __init__(self, stream: asyncio.StreamReader, connection: Connection) -> None:
        self.stream = stream
        self.connection = connection

    async def readline(self) -> bytes:
        """A header line; b"" at the end of the input (which ends the server, as pygls's reader)."""
        await asyncio.sleep(0)
        if self.connection.lost:
            return b""
        try:
            return await self.stream.readline()
        except ValueError:  # a "line" longer than READ_LIMIT: not a client speaking LSP
            log.error("a header line longer than %d bytes: closing the connection", READ_LIMIT)
            return b""
        except OSError as exc:
            self.connection.failed(exc)
            return b""

    async def readexactly(self, n: int) -> bytes:
        """A message body; b"" when the input ended before it."""
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""
        except OSError as exc:
            self.connection.failed(exc)
            return b""


class _ThreadReader:
    """pygls's reader (a blocking read on a worker thread) with a read error as the end of the input."""

    def __init__(self, inner: AsyncReader, connection: Connection) -> None:
        self.inner = inner
        self.connection = connection

    async def readline(self) -> bytes:
        if self.connection.lost:
            return b""
        try:
            return await self.inner.readline()
        except (OSError, ValueError) as exc:
            self.connection.failed(exc)
            return b""

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self.inner.readexactly(n)
        except (OSError, ValueError) as exc:
            self.connection.failed(exc)
            return b""


async def _serve(
    server: LanguageServer, stdin: BinaryIO, connection: Connection, early: bytes, on_loop: bool
) -> None:
    """Read and handle messages until the end of the input, then end (:meth:`Connection.ended`)."""
    from pygls.io_ import StdinAsyncReader, run_async

    loop = asyncio.get_running_loop()
    connection.attach(loop)
    transport: asyncio.BaseTransport | None = None
    reader: _Reader | _ThreadReader
    if on_loop:
        stream = asyncio.StreamReader(limit=READ_LIMIT, loop=loop)
        if early:
            stream.feed_data(early)  # read before the server existed (lait_ls.early_initialize)
        transport, _protocol = await loop.connect_read_pipe(
            lambda: asyncio.StreamReaderProtocol(stream, loop=loop), stdin
        )
        reader = _Reader(stream, connection)
    else:
        reader = _ThreadReader(StdinAsyncReader(stdin, server.thread_pool), connection)
    try:
        await run_async(
            stop_event=connection.stop,
            reader=reader,
            protocol=server.protocol,
            logger=log,
            error_handler=server.report_server_error,
        )
    finally:
        if transport is not None:
            transport.close()
    await connection.ended()


def serve_stdio(
    server: LaitServer, stdin: BinaryIO, stdout: BinaryIO, early: EarlyStart | None = None
) -> None:
    """Like ``server.start_io(stdin, stdout)``: a pipe or socket on stdin is read on the event loop
    (anything else by pygls's reader), the writer is a :class:`~lait_ls.lost_client.ClientWriter`,
    and the end of the input or a failed write ends the server (:mod:`lait_ls.lost_client`).

    ``early``: what :func:`lait_ls.early_initialize.answer_early` read (handled first)."""
    from pygls.io_ import StdoutWriter

    sys.setswitchinterval(SWITCH_INTERVAL)
    on_loop = early is not None or reads_on_the_loop(stdin, stdout)
    stop = threading.Event()
    server._stop_event = stop  # what pygls's shutdown sets, as its own start_io does
    connection = Connection(server, stop)
    writer = ClientWriter(StdoutWriter(stdout), connection)
    server.protocol.set_writer(EarlyWriter(writer, early) if early is not None else writer)
    given_blocking: bool | None = None
    if on_loop:
        with contextlib.suppress(OSError, ValueError):
            given_blocking = os.get_blocking(stdin.fileno())
    try:
        asyncio.run(_serve(server, stdin, connection, early.raw if early is not None else b"", on_loop))
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        if given_blocking is not None:
            with contextlib.suppress(OSError, ValueError):
                os.set_blocking(stdin.fileno(), given_blocking)  # as given (the loop made it non-blocking)
        server.shutdown()  # type: ignore[no-untyped-call]
