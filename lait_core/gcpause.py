"""Pausing Python's cyclic garbage collector around one document's parse and lint.

Reading a workflow allocates tens of thousands of objects (the located tree, steps, models,
diagnostics) and no reference cycles that matter. With the collector on, those allocations trigger
collections that scan the whole heap -- in the language server that heap holds the recent
documents' trees, so a 10,000-line workflow's lint spent more time in the collector than in lait.
With :func:`paused_gc` the collector runs once the work is done (its next allocation-triggered
collection), and garbage with cycles made meanwhile is collected then.

The switch is process-wide: the outermost pause (the one that found the collector on) turns it
back on, so nested and concurrent pauses (the language server's request loop and lint thread)
never leave it off.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector is off inside the block (unless something else turned it off)."""
    collecting = gc.isenabled()
    if collecting:
        gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
