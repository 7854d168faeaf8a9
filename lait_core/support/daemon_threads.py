"""Blocking work awaited from the event loop in a daemon thread of its own: a terminal prompt
(:class:`~lait_cli.support.terminal_dialogs.TerminalInteraction`) and the embedded model's loading and
generation (:mod:`lait_core.engine.embedded.transport`).

Not ``asyncio.to_thread``: its pool threads are joined at interpreter exit, and a thread blocked in
a read of stdin must not hold up the exit. Cancelling the awaiting coroutine returns at once; the
work is told through its ``stop`` event and is expected to end soon; what it returns or raises
after that is dropped.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import TypeVar

_T = TypeVar("_T")


async def in_daemon_thread(
    work: Callable[[threading.Event], _T], *, name: str, stop: threading.Event | None = None
) -> _T:
    """Run ``work(stop)`` in a new daemon thread called ``name`` and return what it returns (or
    raise what it raises). When the awaiting coroutine is cancelled, ``stop`` (a new event when
    None) is set and the cancellation goes on without waiting for the thread."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()
    stopped = stop if stop is not None else threading.Event()

    def settle(value: _T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)  # type: ignore[arg-type]

    def deliver(value: _T | None, error: BaseException | None) -> None:
        if stopped.is_set():
            return
        with contextlib.suppress(RuntimeError):  # the loop is already closed: nobody is waiting
            loop.call_soon_threadsafe(settle, value, error)

    def body() -> None:
        try:
            value = work(stopped)
        except BaseException as exc:  # handed to the awaiting coroutine
            deliver(None, exc)
            return
        deliver(value, None)

    threading.Thread(target=body, name=name, daemon=True).start()
    try:
        return await future
    except asyncio.CancelledError:
        stopped.set()
        raise
