"""Which workflow step is running, for whoever reports events (the editor's run view).

:func:`run_step` enters a :class:`StepRef` for each step; events sent while it runs (its own
``StepStarted``/``StepFinished``, a prompt step's tool calls and usage, an approval it asks for)
can then name the step they belong to, and a step names its parent, so a client can nest the
steps of ``for_each``/``parallel``/``group``/child workflows exactly, also when branches run
concurrently (each asyncio task keeps the context it was created in). The CLI ignores it.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path

_ids = itertools.count(1)


@dataclass(frozen=True, slots=True)
class StepRef:
    id: str
    """Unique within the process (so within a run)."""
    parent: StepRef | None
    path: Path
    """The workflow file the step is written in (a child workflow's own file)."""
    lines: tuple[int, int, int, int]
    """The step's range in that file: 0-based start line, character, end line, character."""


_current: ContextVar[StepRef | None] = ContextVar("lait_current_step", default=None)


def current_step() -> StepRef | None:
    return _current.get()


@contextmanager
def entered(path: Path, lines: tuple[int, int, int, int]) -> Iterator[StepRef]:
    """The step run inside the block (a child of the step running around it)."""
    ref = StepRef(str(next(_ids)), _current.get(), path, lines)
    token = _current.set(ref)
    try:
        yield ref
    finally:
        _current.reset(token)
