"""The stdio transport (docs/mcp.md), our own rather than the SDK's ``stdio_client``: the child gets
the whole inherited environment plus ``env:`` (the SDK passes an allowlist), leads its own
process group, may send frames of at most ``frame_bytes``, and on close has its stdin closed and
its whole group killed and reaped at once. When the server exits while something else of its
group keeps its stdout open, the group is killed so the connection fails at once instead of at
the request timeout. Its stderr is copied, line by line and redacted, to lait's stderr (or the file
given) and its last lines are kept (:mod:`.stderr_tail`): a failure
message ends with them, so it shows the cause the server printed.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import sys
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import TextIO

import anyio
import mcp_types as types
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from mcp.shared.message import SessionMessage

from lait_core.engine.mcp.mcp_errors import McpError
from lait_core.engine.mcp.stderr_tail import StderrTail
from lait_core.engine.processes.spawn import (
    ProcessError,
    SpawnError,
    exit_status_text,
    kill_and_reap,
    kill_group,
    spawn,
)

_READ_SIZE = 64 * 1024
_EXIT_POLL = 0.1
_EXIT_GRACE = 0.5
"""Seconds a server's stdout may stay open after the server exited (something else in its group
still holds the pipe, e.g. a background child) before the group is killed to end the connection."""


@dataclass(slots=True)
class StdioState:
    """What the connection may report about the child after a failure."""

    pid: int | None = None
    returncode: int | None = None
    fault: str | None = None
    """Set when the transport gave up on the child: an oversized frame, or a line that is not
    JSON-RPC and not a plain log line either (not UTF-8, or broken JSON such as 200,000 nested
    brackets). Pending requests then fail at once instead of waiting for their timeout."""
    eof: bool = False
    """The child's stdout is closed (it exited, or the transport gave up): the connection is dead."""
    stderr: StderrTail = field(default_factory=StderrTail)
    """The last lines the child wrote to its stderr."""

    def describe(self) -> str | None:
        """What happened to the child (None: nothing known), ending with its stderr's last lines."""
        what = None
        if self.fault is not None:
            what = self.fault
        elif self.returncode is not None:
            what = f"the server process exited ({exit_status_text(self.returncode)})"
        if what is None:
            return None
        tail = self.stderr.render()
        return f"{what}; {tail}" if tail else what


@asynccontextmanager
async def stdio_transport(
    server: str,
    argv: tuple[str, ...],
    env: dict[str, str],
    cwd: str | None,
    *,
    stderr: TextIO | None,
    frame_bytes: int,
    state: StdioState,
    on_spawn: Callable[[int], None] | None = None,
) -> AsyncIterator[
    tuple[MemoryObjectReceiveStream[SessionMessage | Exception], MemoryObjectSendStream[SessionMessage]]
]:
    posix = sys.platform != "win32"
    copy_to = stderr
    try:
        proc = await spawn(
            argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
            env=env,
            cwd=cwd,
            on_spawn=on_spawn,
        )
    except SpawnError as exc:
        raise McpError(server, f"failed to spawn '{argv[0]}': {exc.error.strerror or exc.error}") from None
    except ProcessError as exc:
        raise McpError(server, str(exc)) from None
    state.pid = proc.pid
    assert proc.stdin is not None and proc.stdout is not None
    stdin, stdout = proc.stdin, proc.stdout
    in_writer, in_reader = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    out_writer, out_reader = anyio.create_memory_object_stream[SessionMessage](0)

    ignored = [0]  # stdout lines that were not JSON-RPC (a log printed to stdout by mistake)

    async def deliver(line: bytes) -> bool:
        """Hand one line to the session; False when the line is a fault that ends the connection."""
        line = line.rstrip(b"\r")
        if not line.strip():
            return True
        try:
            message = types.jsonrpc_message_adapter.validate_json(line, by_name=False)
        except (ValueError, RecursionError):
            fault = _garbage(line)
            if fault is not None:
                state.fault = (
                    f"the server sent a line that is not JSON-RPC ({fault}); the connection was closed"
                )
                return False
            ignored[0] += 1
            if ignored[0] <= NOTED_LINES:
                _note(
                    copy_to,
                    f"mcp_servers.{server}: ignored a stdout line that is not JSON-RPC: {line[:200]!r}",
                )
            elif ignored[0] == NOTED_LINES + 1:
                _note(
                    copy_to,
                    f"mcp_servers.{server}: ignoring further stdout lines that are not JSON-RPC "
                    "(their count follows when the server stops)",
                )
            return True
        await in_writer.send(SessionMessage(message))
        return True

    async def read_stdout() -> None:
        buf = bytearray()
        try:
            while True:
                chunk = await stdout.read(_READ_SIZE)
                if not chunk:
                    return
                scan = len(buf)
                buf += chunk
                while (end := buf.find(b"\n", scan)) >= 0:
                    if end > frame_bytes:
                        break
                    line = bytes(buf[:end])
                    del buf[: end + 1]
                    scan = 0
                    if not await deliver(line):
                        return
                if len(buf) > frame_bytes:
                    state.fault = f"the server sent a message larger than {_size(frame_bytes)}; the connection was closed"
                    return
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError, OSError):
            return
        finally:
            state.eof = True
            await in_writer.aclose()

    async def write_stdin() -> None:
        try:
            async with out_reader:
                async for session_message in out_reader:
                    data = session_message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    stdin.write(data.encode() + b"\n")
                    await stdin.drain()
        except (anyio.ClosedResourceError, anyio.BrokenResourceError, ConnectionError, OSError):
            await in_writer.aclose()

    async def copy_stderr() -> None:
        """The child's stderr, line by line and redacted, to ``stderr`` (else lait's own); its last
        lines kept in ``state.stderr``."""
        assert proc.stderr is not None
        decoder = codecs.getincrementaldecoder("utf-8")("replace")
        pending = ""
        try:
            while chunk := await proc.stderr.read(_READ_SIZE):
                state.stderr.feed(chunk)
                pending += decoder.decode(chunk)
                cut = pending.rfind("\n") + 1 or (len(pending) if len(pending) > _READ_SIZE else 0)
                if cut:
                    _copy(copy_to, pending[:cut])
                    pending = pending[cut:]
        except (OSError, ValueError):
            pass
        finally:
            if pending:
                _copy(copy_to, pending + "\n")

    async def watch_exit() -> None:
        # ``proc.wait()`` also waits for the pipes, which a surviving group member may hold open;
        # the return code is known as soon as the server itself exits.
        while proc.returncode is None:
            await asyncio.sleep(_EXIT_POLL)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + _EXIT_GRACE
        while not tasks[0].done() and loop.time() < deadline:
            await asyncio.sleep(0.02)
        if not tasks[0].done():
            kill_group(proc.pid, posix)  # the pipe closes with them: pending requests fail now

    tasks = [asyncio.ensure_future(read_stdout()), asyncio.ensure_future(write_stdin())]
    stderr_task = asyncio.ensure_future(copy_stderr())
    tasks.append(stderr_task)
    tasks.append(asyncio.ensure_future(watch_exit()))
    try:
        yield in_reader, out_writer
    finally:
        with contextlib.suppress(OSError, RuntimeError):
            stdin.close()
        cancelled = False
        if tasks[0].done() and state.fault is None:
            try:
                await _exit_status(proc)  # stdout closed on its own: the server is going away
            except asyncio.CancelledError:
                cancelled = True
        state.returncode = proc.returncode
        try:
            await kill_and_reap(proc, group=posix)
            if not cancelled:  # the group is gone: the pipe ends now; read the last words
                await asyncio.wait([stderr_task], timeout=_EXIT_GRACE)
            if cancelled:
                raise asyncio.CancelledError
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks)
            for task in tasks:
                if not task.cancelled():
                    task.exception()
            for stream in (in_reader, out_writer, in_writer, out_reader):
                stream.close()
            if ignored[0] > NOTED_LINES:
                _note(
                    copy_to,
                    f"mcp_servers.{server}: ignored {ignored[0]} stdout lines that are not JSON-RPC in all",
                )


def _garbage(line: bytes) -> str | None:
    """Why a line that is not JSON-RPC is a protocol fault, or None for a plain log line.

    A server that prints a banner or a JSON log record to stdout by mistake keeps working (the
    line is ignored with a note). Bytes that are not UTF-8, or a line that starts like JSON but does
    not parse (nesting past any limit, a truncated object), mean the stream itself is broken: no
    answer is coming, so the pending calls fail now rather than at the 300 s timeout.
    """
    import json

    try:
        text = line.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"byte 0x{line[exc.start]:02x} at offset {exc.start} is not UTF-8"
    if not text.lstrip().startswith(("{", "[")):
        return None
    try:
        json.loads(text)
    except RecursionError:
        return "JSON nested too deeply"
    except ValueError as exc:
        return (
            f"broken JSON: {exc.msg} at offset {exc.pos}"
            if isinstance(exc, json.JSONDecodeError)
            else "broken JSON"
        )
    return None


async def _exit_status(proc: asyncio.subprocess.Process, limit: float = 0.5) -> None:
    """Give a child whose stdout closed a moment to exit, so its own exit status is known."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + limit
    while proc.returncode is None and loop.time() < deadline:
        await asyncio.sleep(0.01)


NOTED_LINES = 3
"""Stdout lines that are not JSON-RPC noted one by one; after them one note, and a count at the end
(a server logging to stdout by mistake must not get one stderr note per log line)."""


def _copy(copy_to: TextIO | None, text: str) -> None:
    """A server's stderr text, redacted (secrets lait knows never reach a terminal or a log)."""
    from lait_core.support.redact import redact

    out = copy_to if copy_to is not None else sys.stderr
    with contextlib.suppress(OSError, ValueError):
        out.write(redact(text))
        out.flush()


def _note(copy_to: TextIO | None, text: str) -> None:
    out = copy_to if copy_to is not None else sys.stderr
    with contextlib.suppress(OSError, ValueError):
        out.write(text + "\n")
        out.flush()


def _size(limit: int) -> str:
    mib = 1024 * 1024
    return f"{limit // mib} MiB" if limit % mib == 0 else f"{limit} bytes"
