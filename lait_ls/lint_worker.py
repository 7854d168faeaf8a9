"""Linting off the request loop: one daemon thread with its own :class:`Linter`.

Hover, completion and shutdown never wait for a document's lint (a 20,000-line workflow takes
seconds): :meth:`LintWorker.lint` hands the text to the thread and awaits the result. When the
awaiting task is cancelled (the next edit reschedules the document), the lint's token is cancelled
and the thread drops the work at its next checkpoint (:mod:`lait_core.support.cancel`), so a stale lint
never delays the fresh one. The thread owns its linter: invalidations from the request loop are
queued and applied before the next job, never while one runs. It is a daemon thread, so a lint in
progress never holds up the server's exit.

The thread also runs other pure work of the request loop that may take long, cancellable the same
way (:meth:`LintWorker.run`: the navigation index warm-up after each publish), one job at a time, so
that the request loop stays free for requests and a lint never competes with it for the GIL.

A lint's garbage collection waits for its diagnostics: the collector stays paused
(:class:`~lait_core.support.gcpause.GcHold`) until the step of the awaiting task that received the result
is over -- the one that converts and publishes the diagnostics.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from lait_core.lint.discovery import FileKind
from lait_core.lint.engine import Linter, LintOptions
from lait_core.support.cancel import Cancelled, CancelToken, Gate, cancellable
from lait_core.support.gcpause import GcHold
from lait_core.syntax import read_log as reads
from lait_core.syntax.bounded_read import Loaded
from lait_core.syntax.diagnostics import Diagnostic

log = logging.getLogger("lait-ls")
T = TypeVar("T")


@dataclass
class _Job:
    work: Callable[[], Any]
    what: str
    """For the log: "lint of <path>", "warm-up of <path>"."""
    hold: GcHold | None = None
    """Taken by the thread before the work; released by the awaiting side (see the module doc)."""
    token: CancelToken = field(default_factory=CancelToken)
    """Given the worker's gate by :meth:`LintWorker._submit`."""
    future: concurrent.futures.Future[Any] = field(default_factory=concurrent.futures.Future)


class LintWorker:
    def __init__(self, options: LintOptions, reader: Callable[[Path], Loaded]) -> None:
        self.linter = Linter(options, reader=reader)
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._invalid: list[Path | None] = []
        self._thread: threading.Thread | None = None
        self.gate = Gate()
        """Closed by the request loop while it computes an answer (:meth:`answering`)."""
        self.started = 0
        """Jobs begun (for tests and logs)."""
        self.cancelled = 0
        """Jobs stopped part-way because they went stale."""
        self.read_by: dict[str, frozenset[str]] = {}
        """Per document path (absolute): the files its last finished lint read or looked for."""

    def invalidate(self, path: Path | None) -> None:
        """Forget what the worker's linter cached about ``path`` (None: everything), before its next job."""
        with self._lock:
            self._invalid.append(path)

    async def lint(
        self, text: str, path: Path, kind: FileKind, then: Callable[[list[Diagnostic]], T]
    ) -> T | None:
        """``then(diagnostics of text)``, both on the thread (None when the lint was cancelled).
        Cancelling the awaiting task cancels the lint. The garbage collector stays paused until the
        awaiting task's current step is over (it publishes the diagnostics)."""

        def work() -> T:
            looked: set[str] = {os.path.abspath(path)}
            with reads.recording(looked):
                diags = self.linter.lint_text(text, path, kind)
            self.read_by[os.path.abspath(path)] = frozenset(looked)
            return then(diags)

        job = _Job(work, f"lint of {path}", GcHold())
        result: T | None = await self._submit(job)
        return result

    async def run(self, work: Callable[[], T], what: str) -> T | None:
        """``work()`` on the thread, after the jobs already queued (None when it was cancelled: by
        cancelling the awaiting task, which stops it at its next :func:`~lait_core.support.cancel.checkpoint`)."""
        result: T | None = await self._submit(_Job(work, what))
        return result

    def answering(self) -> contextlib.AbstractContextManager[None]:
        """Around the request loop's own computation of an answer (no awaits inside): the thread's
        job waits at its next checkpoint meanwhile, so the answer is not slowed by sharing the GIL
        with it. Never around an await of the thread's work."""
        return self.gate.closed()

    async def _submit(self, job: _Job) -> Any:
        loop = asyncio.get_running_loop()
        job.token.gate = self.gate
        self._ensure_thread()
        self._jobs.put(job)
        try:
            return await asyncio.wrap_future(job.future)
        except asyncio.CancelledError:
            job.token.cancel()
            raise
        finally:
            if job.hold is not None:
                loop.call_soon(job.hold.release)  # after this step of the awaiting task

    def _ensure_thread(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._serve, name="lait-lint", daemon=True)
            self._thread.start()

    def _serve(self) -> None:
        while True:
            job = self._jobs.get()
            if job.token.cancelled or not job.future.set_running_or_notify_cancel():
                continue
            with self._lock:
                invalid, self._invalid = self._invalid, []
            for path in invalid:
                self.linter.invalidate(path)
            self.started += 1
            log.info("%s started", job.what)
            if job.hold is not None:
                job.hold.take()
            try:
                with cancellable(job.token):
                    result = job.work()
            except Cancelled:
                self.cancelled += 1
                log.info("%s cancelled: the document changed", job.what)
                job.future.set_result(None)
            except Exception as exc:  # reported by the awaiting side; the thread lives on
                job.future.set_exception(exc)
            else:
                job.future.set_result(result)
                log.info("%s finished", job.what)
