"""Work in progress per document, that a request can wait for instead of doing it a second time.

The warm-up after each publish (:func:`lait_ls.features.diagnostics.warm`) prepares, off the
request loop, what the next requests need (the navigation index, completion's prepared document).
A request that arrives while the piece it needs is being prepared for the same text waits for that
piece (:func:`ready`, for a bounded time) and then finds it cached; a piece not being prepared, or
prepared for another text, is not waited for: on the request loop, computing it again would block
every other request and compete with the preparation for the GIL. Every registered piece is resolved when its preparation ends, whatever
way (finished, cancelled by an edit, failed), so a request never waits longer than the piece.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lait_ls.server import LaitServer

_ATTRIBUTE = "_lait_inflight"


def _table(ls: LaitServer) -> dict[tuple[str, str], tuple[str, asyncio.Future[None]]]:
    table = getattr(ls, _ATTRIBUTE, None)
    if not isinstance(table, dict):
        table = {}
        setattr(ls, _ATTRIBUTE, table)
    return table


@contextlib.contextmanager
def preparing(ls: LaitServer, what: str, uri: str, text: str) -> Iterator[None]:
    """``what`` (e.g. "index") of the document ``uri`` with ``text`` is being prepared in the block."""
    table = _table(ls)
    key = (what, uri)
    done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
    table[key] = (text, done)
    try:
        yield
    finally:
        if table.get(key, ("", None))[1] is done:
            del table[key]
        if not done.done():
            done.set_result(None)


WAIT_SECONDS = 0.25
"""The longest a request waits for a piece in preparation before it does the work itself."""


async def ready(ls: LaitServer, what: str, uri: str) -> None:
    """Wait until ``what`` of the document's current text is no longer being prepared (at most
    :data:`WAIT_SECONDS`: a preparation that takes longer, e.g. queued behind a huge lint, is not
    waited for)."""
    entry = _table(ls).get((what, uri))
    if entry is None or uri not in ls.open_uris or entry[0] != ls.text_of(uri):
        return
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(asyncio.shield(entry[1]), WAIT_SECONDS)
