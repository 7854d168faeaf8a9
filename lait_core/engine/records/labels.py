"""The usage label of the code that is running: the step id (or ``step-<n> (<kind>)``) inside a
workflow step, ``subagent '<name>'`` inside a subagent call, else ``chat``. Trace events and replay
errors name it. A context variable, so concurrent branches and items each keep their own."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar

_LABEL: ContextVar[str] = ContextVar("lait_usage_label", default="chat")


def current_label() -> str:
    return _LABEL.get()


@contextlib.contextmanager
def labelled(label: str) -> Iterator[None]:
    token = _LABEL.set(label)
    try:
        yield
    finally:
        _LABEL.reset(token)
