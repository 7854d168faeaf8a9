"""The jq worker process: evaluates workflow jq expressions away from lait's event loop.

libjq holds the GIL while it evaluates and cannot be interrupted, so an expression such as
``last(range(1e10))`` would freeze the process that runs it. The workflow executor therefore
evaluates through :mod:`lait_core.engine.workflow.jq_eval`, which sends each evaluation to this
process and kills it when the evaluation is cancelled (a step or workflow ``timeout``, Ctrl-C,
SIGTERM, an editor's cancel).

Protocol, over the worker's standard input and output: frames of an 8-byte big-endian length and
a pickle. A request is ``(expr, value, steps, inputs, loop)``; the reply is ``(OK, result)``,
``(JQ_ERROR, message)`` (a :class:`lait_core.syntax.jq.JqError`) or ``(FAILED, text)`` (anything else).
The worker answers one request at a time and exits at end of input. Its stdout is moved away
from file descriptor 1 first (fd 1 then writes to stderr), so nothing libjq prints can corrupt
the replies; on Linux it also dies with its parent.

Only the standard library is imported at module level: the client imports the framing from here.
"""

from __future__ import annotations

import os
import pickle
import signal
import struct
import sys
from typing import Any, Final

HEADER: Final = struct.Struct("!Q")
OK: Final = 0
JQ_ERROR: Final = 1
FAILED: Final = 2
PROTOCOL: Final = pickle.HIGHEST_PROTOCOL
_RECURSION_LIMIT: Final = 10_000
_PR_SET_PDEATHSIG: Final = 1


def frame(payload: bytes) -> bytes:
    return HEADER.pack(len(payload)) + payload


def _read_exact(fd: int, size: int) -> bytes | None:
    """``size`` bytes from ``fd``, or None at end of input."""
    parts: list[bytes] = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        parts.append(chunk)
        size -= len(chunk)
    return b"".join(parts)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _die_with_parent(parent: int | None) -> None:
    """Linux: SIGKILL this process when lait dies, even in the middle of an evaluation."""
    if not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        return
    if parent is not None and os.getppid() != parent:
        os._exit(0)  # the parent is already gone


def _answer(request: Any) -> tuple[int, Any]:
    from lait_core.syntax import jq

    try:
        expr, value, steps, inputs, loop = request
        return OK, jq.evaluate(expr, value, steps=steps, inputs=inputs, loop=loop)
    except jq.JqError as exc:
        return JQ_ERROR, exc.message
    except Exception as exc:  # a bug, reported as text rather than killing the worker
        return FAILED, f"{type(exc).__name__}: {exc}"


def _encode(reply: tuple[int, Any]) -> bytes:
    try:
        return pickle.dumps(reply, protocol=PROTOCOL)
    except (RecursionError, pickle.PicklingError, TypeError, AttributeError) as exc:
        return pickle.dumps((FAILED, f"the jq result cannot be sent back: {exc}"), protocol=PROTOCOL)


def serve(requests: int, replies: int) -> int:
    """Answer requests read from fd ``requests`` on fd ``replies`` until end of input."""
    from lait_core.syntax import jq  # noqa: F401 -- load libjq before the first request

    while True:
        header = _read_exact(requests, HEADER.size)
        if header is None:
            return 0
        (size,) = HEADER.unpack(header)
        payload = _read_exact(requests, size)
        if payload is None:
            return 0
        try:
            request = pickle.loads(payload)
        except Exception as exc:
            reply: tuple[int, Any] = (FAILED, f"unreadable request: {exc}")
        else:
            reply = _answer(request)
        _write_all(replies, frame(_encode(reply)))


def _limit_memory(limit: int) -> None:
    """Cap this process's address space (an evaluation beyond it fails or ends the worker)."""
    if limit <= 0:
        return
    try:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    except (ImportError, ValueError, OSError):
        return


def main(argv: list[str] | None = None) -> int:
    """``[PARENT_PID [MEMORY_LIMIT_BYTES]]``."""
    args = sys.argv[1:] if argv is None else argv
    _die_with_parent(int(args[0]) if args and args[0].isdigit() else None)
    if len(args) > 1 and args[1].isdigit():
        _limit_memory(int(args[1]))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides when this process ends
    sys.setrecursionlimit(max(sys.getrecursionlimit(), _RECURSION_LIMIT))
    requests = os.dup(0)
    replies = os.dup(1)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    try:
        return serve(requests, replies)
    except (BrokenPipeError, KeyboardInterrupt):
        return 0


if __name__ == "__main__":
    sys.exit(main())
