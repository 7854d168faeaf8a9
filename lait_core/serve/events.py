"""A bounded in-memory event store for streamable HTTP: SSE streams get a priming event with an id
and a ``retry`` hint, and a client whose stream broke mid-call can reconnect with
``Last-Event-ID`` and get what it missed (while it is among the last :data:`MAX_EVENTS`)."""

from __future__ import annotations

import itertools
from collections import deque
from typing import Any

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

MAX_EVENTS = 4096


class BoundedEventStore(EventStore):
    def __init__(self, max_events: int = MAX_EVENTS) -> None:
        self._events: deque[tuple[str, str, Any]] = deque(maxlen=max_events)
        self._ids = itertools.count(1)

    async def store_event(self, stream_id: str, message: Any) -> str:
        event_id = str(next(self._ids))
        self._events.append((event_id, stream_id, message))
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> str | None:
        stream: str | None = None
        for event_id, stream_id, message in list(self._events):
            if stream is None:
                if event_id == last_event_id:
                    stream = stream_id
                continue
            if stream_id == stream and message is not None:
                await send_callback(EventMessage(message, event_id))
        return stream


__all__ = ["BoundedEventStore"]
