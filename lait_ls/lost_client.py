"""The editor gone: its end of stdout closed (a write fails with EPIPE, or ECONNRESET on a socket),
or the end of stdin (EOF, or a read error), before ``exit``.

pygls logs a failed write with its traceback and raises the error again into whatever sent the
message -- a request's done callback, which then tries to send an error answer (another traceback),
or the loop's exception handler -- and the server went on reading a stdin that was still open, with
its runs going on. Here the writer (:class:`ClientWriter`) never raises: the first failed write
reports the loss to :class:`Connection` and later writes are dropped. Either way the loss (a write,
or the end of the input) logs one line, ``the editor closed the connection (...); exiting``, stops
the reader, cancels the lints and the runs in flight (each run kills and reaps its tool process
groups and closes its MCP servers, at most :data:`WIND_DOWN` seconds), SIGKILLs every process group
still tracked, and exits: status 0 when the client had sent ``shutdown``, else 1 (LSP's rule for
``exit``). A watchdog thread exits the same way after :data:`DEADLINE` seconds should the event
loop be stuck. See docs/editors.md ("The language server").
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import sys
import threading
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lait_ls.early_initialize import Writer
    from lait_ls.language_server import LaitServer

log = logging.getLogger("lait-ls")

WIND_DOWN = 5.0
"""Seconds the runs in flight get to wind down after the loss (then their groups are killed)."""
DEADLINE = 15.0
"""Seconds after the loss at which the watchdog thread exits whatever the event loop is doing."""


def _reason(exc: BaseException) -> str:
    if isinstance(exc, BrokenPipeError):
        return "broken pipe"
    if isinstance(exc, ConnectionResetError):
        return "connection reset"
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror.lower()
    return "stream closed"


class Connection:
    """The server's link to its client: notices the loss once, from any thread, and ends the server."""

    def __init__(self, server: LaitServer, stop: threading.Event) -> None:
        self.server = server
        self.stop = stop
        """pygls's stop event (its message loop ends when it is set)."""
        self.loop: asyncio.AbstractEventLoop | None = None
        self.lost = False
        self._lock = threading.Lock()
        self._ending: asyncio.Task[None] | None = None

    def attach(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop

    def lose(self, why: str) -> None:
        """The client is gone (``why``: "broken pipe", "end of input" ...): the first call logs and
        starts the end (on the event loop); later calls do nothing. Thread-safe."""
        with self._lock:
            if self.lost:
                return
            self.lost = True
        self.stop.set()
        log.warning("the editor closed the connection (%s); exiting", why)
        threading.Thread(target=self._watchdog, name="lait-lost-client", daemon=True).start()
        loop = self.loop
        if loop is None or loop.is_closed():
            self._exit()
            return
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            self._start()
        else:
            with contextlib.suppress(RuntimeError):  # closed meanwhile: the watchdog exits
                loop.call_soon_threadsafe(self._start)

    def failed(self, exc: BaseException) -> None:
        """A read or a write to the client failed with ``exc``: :meth:`lose`, saying why."""
        self.lose(_reason(exc))

    async def ended(self) -> None:
        """After the end of the input: lose the connection and wait for the exit (never returns)."""
        self.lose("end of input")
        await asyncio.get_running_loop().create_future()  # the end exits the process

    def _start(self) -> None:
        if self._ending is None:
            self._ending = asyncio.ensure_future(self._end())

    async def _end(self) -> None:
        from lait_ls import run

        try:
            server = self.server
            for tasks in (server.pending, server.linting, server.kept_lints):
                for task in list(tasks.values()):
                    task.cancel()
            await run.cancel_all(server, timeout=WIND_DOWN)
        except BaseException as exc:  # whatever happens, the process ends below
            log.debug("winding down after the lost connection: %r", exc)
        finally:
            self._exit()

    def _watchdog(self) -> None:
        threading.Event().wait(DEADLINE)
        log.warning("the runs did not wind down within %g s; exiting", DEADLINE)
        self._exit()

    def _exit(self) -> None:
        """SIGKILL every process group still tracked, flush the log, leave (no interpreter clean-up:
        its thread pools would wait for work nobody wants any more)."""
        from lait_ls import run

        state = run.state_of(self.server)
        with contextlib.suppress(Exception):
            run.kill_children(state)
        for handler in logging.getLogger().handlers:
            with contextlib.suppress(Exception):
                handler.flush()
        with contextlib.suppress(Exception):
            sys.stderr.flush()
        os._exit(0 if state.shut_down else 1)


class ClientWriter:
    """pygls's writer to the client that never raises: the first failed write (the editor closed
    its end) tells the :class:`Connection`; that write and every later one are dropped."""

    def __init__(self, inner: Writer, connection: Connection) -> None:
        self.inner = inner
        self.connection = connection

    def write(self, data: bytes) -> None:
        if self.connection.lost:
            return
        try:
            self.inner.write(data)
        except (OSError, ValueError) as exc:  # ValueError: the stream was closed
            self.connection.failed(exc)

    def close(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.inner.close()
