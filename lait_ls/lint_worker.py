"""Linting off the request loop: one daemon thread with its own :class:`Linter`.

Hover, completion and shutdown never wait for a document's lint (a 20,000-line workflow takes
seconds): :meth:`LintWorker.lint` hands the text to the thread and awaits the result. When the
awaiting task is cancelled (the next edit reschedules the document), the lint's token is cancelled
and the thread drops the work at its next checkpoint (:mod:`lait_core.cancel`), so a stale lint
never delays the fresh one. The thread owns its linter: invalidations from the request loop are
queued and applied before the next job, never while one runs. It is a daemon thread, so a lint in
progress never holds up the server's exit.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import logging
import queue
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from lait_core.cancel import Cancelled, CancelToken, cancellable
from lait_core.diagnostics import Diagnostic
from lait_core.lint.discovery import FileKind
from lait_core.lint.engine import Linter, LintOptions
from lait_core.source.files import Loaded

log = logging.getLogger("lait-ls")


@dataclass
class _Job:
    text: str
    path: Path
    kind: FileKind
    token: CancelToken = field(default_factory=CancelToken)
    future: concurrent.futures.Future[list[Diagnostic] | None] = field(
        default_factory=concurrent.futures.Future
    )


class LintWorker:
    def __init__(self, options: LintOptions, reader: Callable[[Path], Loaded]) -> None:
        self.linter = Linter(options, reader=reader)
        self._jobs: queue.SimpleQueue[_Job] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._invalid: list[Path | None] = []
        self._thread: threading.Thread | None = None
        self.started = 0
        """Lints begun (for tests and logs)."""
        self.cancelled = 0
        """Lints stopped part-way because they went stale."""

    def invalidate(self, path: Path | None) -> None:
        """Forget what the worker's linter cached about ``path`` (None: everything), before its next job."""
        with self._lock:
            self._invalid.append(path)

    async def lint(self, text: str, path: Path, kind: FileKind) -> list[Diagnostic] | None:
        """The diagnostics of ``text`` (None when the lint was cancelled). Cancelling the awaiting
        task cancels the lint."""
        job = _Job(text, path, kind)
        self._ensure_thread()
        self._jobs.put(job)
        try:
            return await asyncio.wrap_future(job.future)
        except asyncio.CancelledError:
            job.token.cancel()
            raise

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
            log.info("lint of %s started", job.path)
            try:
                with cancellable(job.token):
                    result = self.linter.lint_text(job.text, job.path, job.kind)
            except Cancelled:
                self.cancelled += 1
                log.info("lint of %s cancelled: the document changed", job.path)
                job.future.set_result(None)
            except Exception as exc:  # reported by the awaiting side; the thread lives on
                job.future.set_exception(exc)
            else:
                job.future.set_result(result)
