"""Resumable SSE streams for streamable HTTP, one bounded in-memory event store per session.

Each SSE stream gets a priming event with an id and a ``retry`` hint; a client whose stream broke
mid-call can reconnect (``GET`` with ``Last-Event-ID``) and get what it missed, while it is among
the last :data:`MAX_EVENTS` of its session. Event ids are random (unguessable) and a session's
store only knows that session's events, so one session can never replay another's stream.
A replay also marks the stream as resumed (:meth:`SessionEventStore.resumed`): a served call whose
POST stream dropped is cancelled unless its stream is resumed in time (:mod:`.calls`).
"""

from __future__ import annotations

import asyncio
import secrets
from collections import deque
from typing import Any

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

MAX_EVENTS = 1024
"""Events kept per session (the oldest are forgotten first)."""


class SessionEventStore(EventStore):
    def __init__(self, max_events: int = MAX_EVENTS) -> None:
        self._events: deque[tuple[str, str, Any]] = deque(maxlen=max_events)
        self._resumed: dict[str, asyncio.Event] = {}

    async def store_event(self, stream_id: str, message: Any) -> str:
        event_id = secrets.token_urlsafe(18)
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
        if stream is not None:
            self.resumed(stream).set()
        return stream

    def resumed(self, stream_id: str) -> asyncio.Event:
        """Set once a client has resumed ``stream_id`` (a request id); cleared by :meth:`forget`."""
        return self._resumed.setdefault(stream_id, asyncio.Event())

    def forget(self, stream_id: str) -> None:
        self._resumed.pop(stream_id, None)


def per_session_stores(manager: Any) -> dict[str, SessionEventStore]:
    """Give each session the SDK's session manager admits an event store of its own; returns
    the live map of session id to store (a session's entry goes when the session ends)."""
    stores: dict[str, SessionEventStore] = {}
    admit = manager._admit_session
    discard = manager._discard_session

    def admitted(requestor: Any) -> Any:
        transport = admit(requestor)
        if transport is not None and transport.mcp_session_id is not None:
            store = SessionEventStore()
            transport._event_store = store
            stores[transport.mcp_session_id] = store
        return transport

    async def discarded(session_id: str, transport: Any) -> None:
        stores.pop(session_id, None)
        await discard(session_id, transport)

    manager._admit_session = admitted
    manager._discard_session = discarded
    return stores


__all__ = ["MAX_EVENTS", "SessionEventStore", "per_session_stores"]
