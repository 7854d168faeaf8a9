"""The end of stdin for ``lait serve --mcp`` over stdio: answer what was asked, then stop.

A client may write its requests and close stdin at once (``printf ... | lait serve --mcp``), or
close it to say goodbye while a call is still running. The SDK's loop would stop at the end of its
read stream and cancel every request in flight, so requests read just before the end got
"Connection closed" (or, when the server was slow to start, nothing at all). Instead the stdio
transport holds the end back (:class:`Ledger` keeps the JSON-RPC ids each side still owes):

* requests already read are answered as usual, their runs finishing;
* a request lait sent the client (an ``elicitation/create`` of a run that asks) can no longer get
  an answer: it gets a JSON-RPC error at once (:data:`NO_ANSWER`), so that run fails quickly;
* after :data:`DRAIN_SECONDS` (``--drain-timeout``) the runs still going are cancelled and their
  requests end with a JSON-RPC error saying why (``lait serve: stdin closed and ...``); a run
  reaps its processes before its request is answered;
* a client that is gone altogether (nobody reads stdout any more) stops the drain at once.

Only then does the SDK see the end of its stream (everything still open is cancelled, as before).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import json
import select
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

DRAIN_SECONDS = 30.0
"""Default: how long requests read before stdin's end may take to be answered."""

REAP_SECONDS = 10.0
"""After the drain's runs were cancelled: how long their (error) answers may take."""

_POLL_SECONDS = 0.2
"""How often the drain checks whether the client stopped reading stdout."""

NO_ANSWER = "lait serve: stdin is closed, so the client can no longer answer this request"


@dataclass(frozen=True, slots=True)
class Frame:
    """What the drain needs of one JSON-RPC message: its kind and id."""

    kind: str
    """``request``, ``response`` or ``cancelled`` (a ``notifications/cancelled``)."""
    id: Any


def frame_of(text: str | bytes) -> Frame | None:
    """The kind and id of a JSON-RPC line, or None (a notification, or not JSON-RPC: the SDK
    answers no line it cannot validate, so such a line is owed nothing)."""
    try:
        message = json.loads(text)
    except ValueError:
        return None
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        return None
    method = message.get("method")
    ident = message.get("id")
    valid_id = isinstance(ident, str) or (isinstance(ident, int) and not isinstance(ident, bool))
    if isinstance(method, str):
        if valid_id and isinstance(message.get("params", {}), dict):
            return Frame("request", ident)
        if method == "notifications/cancelled":
            params = message.get("params")
            if isinstance(params, dict) and "requestId" in params:
                return Frame("cancelled", params["requestId"])
        return None
    if valid_id and ("result" in message or "error" in message):
        return Frame("response", ident)
    return None


class Ledger:
    """The requests each side still owes an answer to, and the answers lait makes up for the
    client once stdin has ended. Used on the event loop only."""

    def __init__(self) -> None:
        self.owed: collections.Counter[Any] = collections.Counter()
        """Ids of the client's requests lait has not answered yet."""
        self.asked: set[Any] = set()
        """Ids of lait's requests the client has not answered yet."""
        self.closed = False
        self.injected: collections.deque[str] = collections.deque()
        """Error answers to lait's own requests, to be read as if the client had sent them."""
        self.changed = asyncio.Event()

    def received(self, frame: Frame | None) -> None:
        if frame is None:
            return
        if frame.kind == "request":
            self.owed[frame.id] += 1
        elif frame.kind == "response":
            self.asked.discard(frame.id)
        elif frame.kind == "cancelled":  # the SDK answers no request its client cancelled
            self._settle(frame.id)

    def sent(self, frame: Frame | None) -> None:
        if frame is None:
            return
        if frame.kind == "response":
            self._settle(frame.id)
        elif frame.kind == "request":
            self.asked.add(frame.id)
            if self.closed:
                self._no_answer(frame.id)

    def stdin_closed(self) -> None:
        self.closed = True
        for ident in sorted(self.asked, key=repr):
            self._no_answer(ident)

    def _settle(self, ident: Any) -> None:
        count = self.owed.get(ident, 0)
        if count > 1:
            self.owed[ident] = count - 1
        else:
            self.owed.pop(ident, None)
        self.changed.set()

    def _no_answer(self, ident: Any) -> None:
        self.asked.discard(ident)
        error = {"code": -32000, "message": NO_ANSWER}
        self.injected.append(json.dumps({"jsonrpc": "2.0", "id": ident, "error": error}) + "\n")
        self.changed.set()


def reader_gone(fd: int) -> bool:
    """Whether nobody reads ``fd`` any more (a pipe whose reader closed, a closed socket)."""
    poller = select.poll()
    poller.register(fd, 0)  # no events asked: only POLLERR/POLLHUP/POLLNVAL come back
    try:
        return bool(poller.poll(0))
    except OSError:
        return True


class Drain:
    """Decides, after stdin's end, what the SDK reads next: a made-up answer, or the end."""

    def __init__(
        self,
        ledger: Ledger,
        *,
        seconds: float,
        client_gone: Callable[[], bool],
        expire: Callable[[str], Awaitable[None]],
    ) -> None:
        self.ledger = ledger
        self.seconds = seconds
        self.client_gone = client_gone
        self.expire = expire
        self._deadline: float | None = None
        self._expired = False

    async def next_line(self) -> str | None:
        """The next line for the SDK, or None: the stream ends now."""
        ledger = self.ledger
        loop = asyncio.get_running_loop()
        if self._deadline is None:
            ledger.stdin_closed()
            self._deadline = loop.time() + self.seconds
        while True:
            if ledger.injected:
                return ledger.injected.popleft()
            if not ledger.owed or self.client_gone():
                return None
            now = loop.time()
            if now >= self._deadline:
                if self._expired:
                    return None
                self._expired = True
                self._deadline = now + REAP_SECONDS
                await self.expire(
                    f"stdin closed and the call was still running {self.seconds:g} s later; "
                    "it was cancelled (see lait serve --drain-timeout)"
                )
                continue
            ledger.changed.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(ledger.changed.wait(), min(_POLL_SECONDS, self._deadline - now))


__all__ = ["DRAIN_SECONDS", "NO_ANSWER", "Drain", "Frame", "Ledger", "frame_of", "reader_gone"]
