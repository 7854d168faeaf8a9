"""Serving over stdio with the client's messages read on the request loop itself.

pygls reads stdin on a worker thread, one blocking call per header line and per body, each handed
back to the event loop: a message costs about six hand-overs of the GIL between threads. While the
lint thread runs pure-Python work (a lint, the warm-up after a publish) each hand-over waits for the
interpreter's switch interval, so a hover sent right after an edit took 20-30 ms to be *read*
(measured at 1,000 lines; bench/lsp_latency.py "after an edit"). Here a pipe or socket on stdin is
read by the loop (``connect_read_pipe``): one wake-up per message, whatever the other threads do.
Anything else on stdin (a regular file, a terminal, whose file description the shell shares and
which must stay blocking, a socket that is stdout too) keeps pygls's reader.

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

if TYPE_CHECKING:
    from pygls.lsp.server import LanguageServer

log = logging.getLogger("lait-ls")

SWITCH_INTERVAL = 0.001
"""Seconds (CPython's default: 0.005); see the module doc."""

READ_LIMIT = 1 << 26
"""The longest header line the reader accepts (bodies are read by length, whatever their size)."""


class _Reader:
    """What pygls's message loop reads from: a stream on the event loop that lets the loop's other
    tasks take a step before each message is read. (A stream returns buffered data without
    suspending: messages that arrived together would otherwise all be handled before the tasks the
    first ones started, e.g. an ``exit`` before the answer to the request sent just before it.)"""

    def __init__(self, stream: asyncio.StreamReader) -> None:
        self.stream = stream

    async def readline(self) -> bytes:
        """A header line; b"" at the end of the input (which ends the server, as pygls's reader)."""
        await asyncio.sleep(0)
        try:
            return await self.stream.readline()
        except ValueError:  # a "line" longer than READ_LIMIT: not a client speaking LSP
            log.error("a header line longer than %d bytes: closing the connection", READ_LIMIT)
            return b""

    async def readexactly(self, n: int) -> bytes:
        """A message body; b"" when the input ended before it."""
        try:
            return await self.stream.readexactly(n)
        except asyncio.IncompleteReadError:
            return b""


async def _serve(server: LanguageServer, stdin: BinaryIO, stop: threading.Event, early: bytes) -> None:
    from pygls.io_ import run_async

    loop = asyncio.get_running_loop()
    stream = asyncio.StreamReader(limit=READ_LIMIT, loop=loop)
    if early:
        stream.feed_data(early)  # read before the server existed (lait_ls.early_initialize)
    transport, _protocol = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(stream, loop=loop), stdin
    )
    try:
        await run_async(
            stop_event=stop,
            reader=_Reader(stream),
            protocol=server.protocol,
            logger=log,
            error_handler=server.report_server_error,
        )
    finally:
        transport.close()


def serve_stdio(
    server: LanguageServer, stdin: BinaryIO, stdout: BinaryIO, early: EarlyStart | None = None
) -> None:
    """Like ``server.start_io(stdin, stdout)``, reading a pipe or socket on the event loop.

    ``early``: what :func:`lait_ls.early_initialize.answer_early` read (handled first)."""
    sys.setswitchinterval(SWITCH_INTERVAL)
    if early is None and not reads_on_the_loop(stdin, stdout):
        server.start_io(stdin, stdout)
        return
    from pygls.io_ import StdoutWriter

    stop = threading.Event()
    server._stop_event = stop  # what pygls's shutdown sets, as its own start_io does
    writer = StdoutWriter(stdout)
    server.protocol.set_writer(EarlyWriter(writer, early) if early is not None else writer)
    fd = stdin.fileno()
    given_blocking = os.get_blocking(fd)
    try:
        asyncio.run(_serve(server, stdin, stop, early.raw if early is not None else b""))
    except BrokenPipeError:
        log.error("the connection to the client is lost: shutting down")
    except (KeyboardInterrupt, SystemExit):
        pass
    finally:
        with contextlib.suppress(OSError, ValueError):
            os.set_blocking(fd, given_blocking)  # as it was given (the loop made it non-blocking)
        server.shutdown()  # type: ignore[no-untyped-call]
