"""What lait-ls keeps per keystroke: nothing once it is handled (docs/performance.md, the resident
memory after typing). The server is built in this process and fed JSON-RPC messages as its
transport feeds them, so what it still holds can be counted."""

from __future__ import annotations

import asyncio
import gc
import json
import weakref
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest

from lait_ls.language_server import LaitServer, build

EDITS = 40


class _Sink:
    def __init__(self) -> None:
        self.sent: list[bytes] = []

    def write(self, data: bytes) -> None:
        self.sent.append(data)

    def close(self) -> None:
        pass


@pytest.fixture
async def server(tmp_path: Path) -> AsyncIterator[LaitServer]:
    ls = build()
    ls.protocol.set_writer(_Sink())
    send(
        ls,
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "capabilities": {}, "rootUri": tmp_path.as_uri()},
        },
    )
    send(ls, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    yield ls
    waiting: list[Any] = [*ls.pending.values(), *ls.linting.values(), *ls.protocol._request_futures.values()]
    for task in waiting:  # the client never answers the server's requests here
        task.cancel()


def send(ls: LaitServer, message: dict[str, Any]) -> None:
    ls.protocol.handle_message(json.loads(json.dumps(message), object_hook=ls.protocol.structure_message))


def open_and_type(ls: LaitServer, uri: str, on_edit: Callable[[], None] | None = None) -> None:
    item = {"uri": uri, "languageId": "plaintext", "version": 1, "text": "typed\n"}
    send(ls, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": item}})
    for version in range(2, EDITS + 2):
        if on_edit is not None:
            on_edit()
        change = {
            "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
            "text": "x",
        }
        send(
            ls,
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didChange",
                "params": {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]},
            },
        )


async def test_handled_notifications_leave_no_futures_in_the_protocol(
    server: LaitServer, tmp_path: Path
) -> None:
    """pygls files each notification's future under a fresh id and never removes it; lait-ls's
    protocol lets it go once it is done (it kept one per keystroke for the whole session)."""
    in_flight = dict(server.protocol._request_futures)  # what pygls keeps
    open_and_type(server, (tmp_path / "notes.txt").as_uri())
    assert server.protocol._request_futures == in_flight


async def test_a_lint_cancelled_by_the_next_edit_is_freed_without_a_collection(
    server: LaitServer, tmp_path: Path
) -> None:
    """Each edit cancels the document's scheduled lint (here in its debounce); the cancelled task is
    freed by reference counting, with no cycle for the collector -- which the lint thread's frozen
    heap puts off -- through the traceback it keeps (it kept the text it was to lint)."""
    uri = (tmp_path / "notes.txt").as_uri()
    server.debounce = 60.0  # every lint is still waiting when the next edit comes
    cancelled: list[weakref.ref[asyncio.Task[None]]] = []

    def remember() -> None:
        task = server.pending.get(uri)
        if task is not None:
            cancelled.append(weakref.ref(task))

    gc.disable()
    try:
        open_and_type(server, uri, remember)
        for _ in range(100):  # let each cancelled task take its cancellation
            if all(ref() is None or ref().done() for ref in cancelled):  # type: ignore[union-attr]
                break
            await asyncio.sleep(0)
        assert len(cancelled) == EDITS
        assert [ref for ref in cancelled if ref() is not None] == []
    finally:
        gc.enable()
