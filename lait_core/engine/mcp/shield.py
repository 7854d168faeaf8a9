"""Awaiting clean-up that a cancellation must not cut short (closing a connection, evicting it from
the pool). Standard library only: the tool source imports it without the MCP SDK."""

from __future__ import annotations

import asyncio
from typing import Any


async def shielded(awaitable: Any) -> Any:
    """Await to the end even if cancelled meanwhile; re-raise the cancellation afterwards."""
    task = asyncio.ensure_future(awaitable)
    cancelled = False
    while not task.done():
        try:
            await asyncio.shield(task)
        except asyncio.CancelledError:
            cancelled = True
    if cancelled:
        raise asyncio.CancelledError
    return task.result()
