"""Cooperative cancellation of long, pure-Python work (linting one document) on a worker thread.

The language server lints off its request loop; when the next edit makes a lint stale, it sets
the lint's :class:`CancelToken`, and the lint stops at its next :func:`checkpoint` (the YAML parser
every 512 events, the workflow checks every step, jq syntax checks every batch) by raising
:class:`Cancelled`. Code not running under :func:`cancellable` (the CLI) never stops: a
checkpoint is one context-variable read.
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


class CancelToken:
    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()


_CURRENT: ContextVar[CancelToken | None] = ContextVar("lait_cancel_token", default=None)


def checkpoint() -> None:
    """Raise :class:`Cancelled` when the current work has been cancelled."""
    token = _CURRENT.get()
    if token is not None and token.cancelled:
        raise Cancelled


@contextlib.contextmanager
def cancellable(token: CancelToken) -> Iterator[None]:
    """Run the body with ``token`` as the current work's token."""
    reset = _CURRENT.set(token)
    try:
        yield
    finally:
        _CURRENT.reset(reset)
