"""Cooperative cancellation of long, pure-Python work (linting one document) on a worker thread.

The language server lints off its request loop; when the next edit makes a lint stale, it sets
the lint's :class:`CancelToken`, and the lint stops at its next :func:`checkpoint` (the YAML parser
every 512 events, the workflow checks every step, jq syntax checks every batch) by raising
:class:`Cancelled`. Code not running under :func:`cancellable` (the CLI) never stops: a
checkpoint is one context-variable read.

A checkpoint is also where such work makes way for the request loop: while a :class:`Gate` of the
work's token is closed (the loop is answering a request), the work waits there, without the GIL,
so the request's computation is not shared with it in switch-interval slices.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from contextvars import ContextVar


class Cancelled(BaseException):
    """The work's token was cancelled; its partial result is worthless. A BaseException (like
    asyncio's CancelledError), so the ``except Exception`` that turns bad input into a diagnostic
    does not swallow it."""


class Gate:
    """Closed while the request loop computes an answer (:meth:`closed`, from the loop thread only):
    work checked with a token holding the gate waits at its checkpoints meanwhile."""

    WAIT_SECONDS = 0.5
    """The longest one checkpoint waits (the gate always reopens; this only bounds a mistake)."""

    def __init__(self) -> None:
        self._open = threading.Event()
        self._open.set()
        self._closers = 0

    @contextlib.contextmanager
    def closed(self) -> Iterator[None]:
        self._closers += 1
        self._open.clear()
        try:
            yield
        finally:
            self._closers -= 1
            if not self._closers:
                self._open.set()

    def wait(self) -> None:
        if not self._open.is_set():
            self._open.wait(self.WAIT_SECONDS)


class CancelToken:
    def __init__(self, gate: Gate | None = None) -> None:
        self._event = threading.Event()
        self.gate = gate

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


_CURRENT: ContextVar[CancelToken | None] = ContextVar("lait_cancel_token", default=None)


def checkpoint() -> None:
    """Raise :class:`Cancelled` when the current work has been cancelled (after waiting while its
    gate is closed)."""
    token = _CURRENT.get()
    if token is None:
        return
    if token.gate is not None:
        token.gate.wait()
    if token.cancelled:
        raise Cancelled


@contextlib.contextmanager
def cancellable(token: CancelToken) -> Iterator[None]:
    """Run the body with ``token`` as the current work's token."""
    reset = _CURRENT.set(token)
    try:
        yield
    finally:
        _CURRENT.reset(reset)
