"""Running coroutines concurrently with results in submission order and fail-fast: the first
failure cancels the others, which are awaited (their process trees reaped) before it is raised."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from typing import TypeVar

_T = TypeVar("_T")


async def run_all(jobs: Sequence[Callable[[], Awaitable[_T]]], limit: int | None = None) -> list[_T]:
    """Run ``jobs`` (at most ``limit`` at once) and return their results in order."""
    if not jobs:
        return []
    gate = asyncio.Semaphore(limit) if limit is not None else None

    async def one(job: Callable[[], Awaitable[_T]]) -> _T:
        if gate is None:
            return await job()
        async with gate:
            return await job()

    tasks = [asyncio.create_task(one(job)) for job in jobs]
    try:
        pending: set[asyncio.Task[_T]] = set(tasks)
        while pending:
            done, pending = await asyncio.wait(pending, return_when=asyncio.FIRST_EXCEPTION)
            failed = [t for t in tasks if t in done and not t.cancelled() and t.exception() is not None]
            if failed:
                error = failed[0].exception()
                assert error is not None
                raise error
        return [t.result() for t in tasks]
    finally:
        await _cancel_and_wait(tasks)


async def _cancel_and_wait(tasks: list[asyncio.Task[_T]]) -> None:
    """Cancel the unfinished tasks and wait until all are done, even if we are cancelled meanwhile
    (a cancellation that arrives is re-raised afterwards)."""
    for task in tasks:
        if not task.done():
            task.cancel()
    cancelled = False
    while not all(t.done() for t in tasks):
        try:
            await asyncio.wait([t for t in tasks if not t.done()])
        except asyncio.CancelledError:
            cancelled = True
    for task in tasks:
        if not task.cancelled():
            task.exception()  # retrieved, so asyncio does not log it
    if cancelled:
        raise asyncio.CancelledError
