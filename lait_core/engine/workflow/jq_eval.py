"""Cancellable jq evaluation for the workflow executor: :func:`lait_core.syntax.jq.evaluate` run in worker
processes (:mod:`lait_core.syntax.jq_worker`).

libjq holds the GIL and cannot be interrupted, so evaluating in lait's own process would block
the event loop: step and workflow timeouts, Ctrl-C, SIGTERM and an editor's cancel would all wait
for the expression to finish. A :class:`JqEvaluator` belongs to one workflow run. It starts a
worker on the first evaluation and reuses it; concurrent evaluations (parallel branches, a
concurrent ``for_each``) start up to ``max_workers`` workers. A cancelled evaluation kills its
worker's process group (the next evaluation starts a fresh one); :meth:`JqEvaluator.aclose`
kills the rest. Every worker's pid goes to ``on_spawn`` (the CLI kills those groups on SIGTERM
and on a second Ctrl-C). Results and :class:`~lait_core.syntax.jq.JqError` messages are those of
in-process evaluation: values travel as pickles, so they round-trip exactly.
"""

from __future__ import annotations

import asyncio
import os
import pickle
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Final

from lait_core.syntax import jq
from lait_core.syntax.jq_worker import FAILED, HEADER, JQ_ERROR, OK, PROTOCOL, frame

DEFAULT_WORKERS: Final = 2
_ROOT: Final = str(Path(__file__).resolve().parents[3])
# sys.path[0] (the working directory under -c) becomes lait's own root: a jq.py in the folder a
# workflow runs from cannot shadow anything.
_BOOT: Final = "import sys; sys.path[0] = sys.argv[1]; from lait_core.syntax.jq_worker import main; sys.exit(main(sys.argv[2:]))"
_RECURSION_MARGIN: Final = jq.MAX_DEPTH + 200


class WorkerDied(jq.JqError):
    """The worker process ended without answering (killed from outside, out of memory)."""


class _Worker:
    def __init__(self, proc: asyncio.subprocess.Process) -> None:
        self.proc = proc

    async def call(self, request: bytes) -> tuple[int, Any]:
        stdin, stdout = self.proc.stdin, self.proc.stdout
        assert stdin is not None and stdout is not None
        try:
            stdin.write(frame(request))
            await stdin.drain()
            (size,) = HEADER.unpack(await stdout.readexactly(HEADER.size))
            reply = pickle.loads(await stdout.readexactly(size))
        except (asyncio.IncompleteReadError, BrokenPipeError, ConnectionResetError):
            returncode = await self.proc.wait()
            raise WorkerDied(f"the jq worker process ended unexpectedly ({_status(returncode)})") from None
        kind, data = reply
        return int(kind), data

    async def kill(self) -> None:
        from lait_core.engine.processes.spawn import kill_and_reap

        await kill_and_reap(self.proc, group=sys.platform != "win32")


def _status(returncode: int) -> str:
    return f"signal {-returncode}" if returncode < 0 else f"exit status {returncode}"


def _ensure_recursion_headroom() -> None:
    """Let pickle handle values nested up to jq's depth limit (it recurses, like json)."""
    depth = 0
    f = sys._getframe()
    while f is not None:
        depth += 1
        f = f.f_back  # type: ignore[assignment]
    needed = depth + _RECURSION_MARGIN
    if sys.getrecursionlimit() < needed:
        sys.setrecursionlimit(needed)


class JqEvaluator:
    """jq evaluation in killable worker processes, for one run; close it with :meth:`aclose`."""

    def __init__(
        self,
        *,
        on_spawn: Callable[[int], None] | None = None,
        max_workers: int = DEFAULT_WORKERS,
        memory_limit: int | None = None,
    ) -> None:
        self.on_spawn = on_spawn
        self.memory_limit = memory_limit
        """Bytes of address space each worker may use (None: no limit of its own)."""
        self.spawned = 0
        """Workers started so far."""
        self._slots = asyncio.Semaphore(max(1, max_workers))
        self._idle: list[_Worker] = []
        self._live: set[_Worker] = set()
        self._closed = False

    async def evaluate(
        self,
        expr: str,
        value: Any,
        *,
        steps: Mapping[str, Any] | None = None,
        inputs: Mapping[str, Any] | None = None,
        loop: Any = None,
    ) -> Any:
        """:func:`lait_core.syntax.jq.evaluate` in a worker; cancelling this kills that worker."""
        _ensure_recursion_headroom()
        try:
            request = pickle.dumps(
                (expr, value, dict(steps or {}), dict(inputs or {}), loop), protocol=PROTOCOL
            )
        except (RecursionError, pickle.PicklingError, TypeError, AttributeError):
            # Not plain data, or nested far beyond jq's limit: in-process evaluation rejects it
            # before libjq runs (the same error text), so it cannot block.
            return jq.evaluate(expr, value, steps=steps, inputs=inputs, loop=loop)
        async with self._slots:
            if self._closed:
                raise jq.JqError("the workflow run is over; jq cannot be evaluated any more")
            worker = self._idle.pop() if self._idle else await self._start()
            answered = False
            try:
                kind, data = await worker.call(request)
                answered = True
            except WorkerDied:
                if self.memory_limit is not None:
                    raise WorkerDied(
                        f"the evaluation ran out of its memory limit ({self.memory_limit >> 20} MiB) "
                        "or the jq worker was killed"
                    ) from None
                raise
            finally:
                if answered and not self._closed:
                    self._idle.append(worker)
                else:
                    self._live.discard(worker)
                    await worker.kill()
        if kind == OK:
            return data
        if kind == JQ_ERROR:
            raise jq.JqError(str(data))
        assert kind == FAILED
        raise jq.JqError(f"jq evaluation failed: {data}")

    async def _start(self) -> _Worker:
        from lait_core.engine.processes.spawn import ProcessError, spawn

        try:
            # spawn() survives a cancellation mid-spawn: it kills and reaps the worker, then re-raises
            proc = await spawn(
                (sys.executable, "-c", _BOOT, _ROOT, str(os.getpid()), str(self.memory_limit or 0)),
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                on_spawn=self.on_spawn,
            )
        except ProcessError as exc:
            raise jq.JqError(f"cannot start the jq worker process: {exc}") from None
        worker = _Worker(proc)
        self._live.add(worker)
        self.spawned += 1
        return worker

    async def aclose(self) -> None:
        """Kill every worker and reap it; idempotent, also safe while evaluations are running."""
        self._closed = True
        workers = list(self._live)
        self._idle.clear()
        self._live.clear()
        cancelled = False
        for worker in workers:
            try:
                await worker.kill()
            except asyncio.CancelledError:
                cancelled = True
        if cancelled:
            raise asyncio.CancelledError
