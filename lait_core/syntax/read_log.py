"""Which files a piece of work looked at: a lint of one file reads its child workflows, agents,
skills and schema files, and checks whether others exist. An editor that keeps each file's findings
between workspace-wide lints records those paths (:func:`recording`) and lints a file again only
when one of them changed (lait_ls.features.pull_diagnostics).

Readers call :func:`note` with each path they open or test; outside :func:`recording` it does nothing.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path

_CURRENT: ContextVar[set[str] | None] = ContextVar("lait_reads", default=None)


def note(path: str | Path) -> None:
    """``path`` was read (or looked for) by the work being recorded."""
    into = _CURRENT.get()
    if into is not None:
        into.add(os.path.abspath(path))


def note_all(paths: Iterable[str]) -> None:
    """Paths already recorded elsewhere (what a cached document was read from) count here too."""
    into = _CURRENT.get()
    if into is not None:
        into.update(paths)


def active() -> bool:
    return _CURRENT.get() is not None


@contextmanager
def recording(into: set[str]) -> Iterator[set[str]]:
    """Collect the paths noted inside the block into ``into`` (instead of any outer recording)."""
    token = _CURRENT.set(into)
    try:
        yield into
    finally:
        _CURRENT.reset(token)
