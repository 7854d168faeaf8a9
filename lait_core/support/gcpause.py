"""Pausing Python's cyclic garbage collector around one document's parse and lint.

Reading a workflow allocates tens of thousands of objects (the located tree, steps, models,
diagnostics) and no reference cycles that matter. With the collector on, those allocations trigger
collections that scan the whole heap -- in the language server that heap holds the recent
documents' trees, so a 10,000-line workflow's lint spent more time in the collector than in lait.
With :func:`paused_gc` the collector runs once the work is done (its next allocation-triggered
collection), and garbage with cycles made meanwhile is collected then.

That first collection after a pause is not free: the young generation then holds every object the
lint made (at 10,000 lines 30-45 ms, and every tenth time a middle-generation collection of 350 ms).
The language server does not want it between the lint and the publish of its diagnostics, nor
before its next edit, so its lint thread takes a :class:`GcHold` around the lint that the request
loop releases once the diagnostics have been sent (:mod:`lait_ls.lint_worker`), and the end of such
a hold freezes the heap (:func:`gc.freeze`): the objects the lint made (mostly the parse that the
caches keep) are never scanned, so that collection costs nothing. Frozen objects are still freed by
reference counting; only garbage with reference cycles (measured: about 16 objects per lint) waits
until every :data:`UNFREEZE_EVERY`-th hold, which unfreezes the heap instead, for the collector.

Pauses are counted process-wide: the collector is turned back on when the last pause ends, and
only if it was on when the first began, so nested and concurrent pauses (the language server's
request loop and lint thread) never turn it on under another pause, nor leave it off.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

_LOCK = threading.Lock()
_pauses = 0
_was_enabled = False
UNFREEZE_EVERY = 64
"""Every this many holds, the end of a hold unfreezes the heap instead of freezing it."""
_holds = 0


def _pause() -> None:
    global _pauses, _was_enabled
    with _LOCK:
        if _pauses == 0:
            _was_enabled = gc.isenabled()
            if _was_enabled:
                gc.disable()
        _pauses += 1


def _resume(*, freeze: bool = False) -> None:
    global _pauses, _holds
    with _LOCK:
        _pauses -= 1
        if _pauses == 0 and _was_enabled:
            if freeze:
                _holds += 1
                if _holds % UNFREEZE_EVERY:
                    gc.freeze()
                else:
                    gc.unfreeze()
            gc.enable()


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector is off inside the block (unless something else turned it off)."""
    _pause()
    try:
        yield
    finally:
        _resume()


class GcHold:
    """A pause that outlives a block: :meth:`take` pauses the collector, :meth:`release` ends the
    pause (and freezes the heap when it turns the collector back on, see the module doc). Release is idempotent and may come first (from another thread): a hold released before it
    was taken is never taken, so no path can leave the collector off."""

    __slots__ = ("_lock", "_released", "_taken")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._taken = False
        self._released = False

    def take(self) -> None:
        with self._lock:
            if self._taken or self._released:
                return
            self._taken = True
            _pause()

    def release(self) -> None:
        with self._lock:
            if self._released:
                return
            self._released = True
            if self._taken:
                _resume(freeze=True)


def freeze_survivors() -> None:
    """After one file of a one-shot lint of many files (`lait lint`): what its lint left (its
    report, the caches' new entries) is frozen, so that no later collection scans it again; with the
    collector left alone, the young collections after each file and the full ones as the caches grow
    were 4-7% of the lint's CPU. A file's lint makes no reference cycles (the parse's callbacks hold
    no composer, an alias is copied by a module function, a libyaml error keeps no traceback; checked
    on the test corpus by ``tests/unit/test_gcpause.py``), so nothing is kept that the collector
    would have freed. Nothing happens under a pause (the language server's lint thread has its own policy) or
    with the collector off."""
    if _pauses == 0 and gc.isenabled():
        gc.freeze()


def pauses() -> int:
    """Pauses in effect (for tests)."""
    return _pauses
