"""The answer to a request sent ahead (:mod:`lait_core.engine.llm.ahead`), read as an httpx response.

:func:`adopt` hands the engine the held connection's answer when the engine's own first request is
the one that was sent ahead; from there the answer goes through exactly the code every other answer
goes through (status checks, retries, SSE reassembly, size limits, timeouts), because it *is* an
``httpx.Response``: its body streams from the held socket through h11, the HTTP/1.1 parser httpx
itself uses. Failures surface as the httpx errors a normal send raises.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from urllib.parse import urlsplit

import h11

from lait_core.engine.llm import ahead
from lait_core.engine.llm.wire import RequestParts
from lait_core.support.httpx_import import httpx

READ_SIZE = 65536
DISCONNECTED = "Server disconnected without sending a response."
"""What httpx says when a connection closes before the response: the same text either way."""


class _Reader:
    """An h11 client connection over the held socket's asyncio streams."""

    def __init__(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, parts: RequestParts
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.conn = h11.Connection(h11.CLIENT)
        split = urlsplit(parts.url)
        target = (split.path or "/") + (f"?{split.query}" if split.query else "")
        # h11 learns what was written (its bytes are discarded): it then expects the response
        self.conn.send(
            h11.Request(
                method="POST",
                target=target,
                headers=[
                    ("Host", split.netloc),
                    ("Content-Length", str(len(parts.content))),
                    ("Connection", "close"),
                ],
            )
        )
        self.conn.send(h11.Data(data=parts.content))
        self.conn.send(h11.EndOfMessage())

    async def next_event(self, request: httpx.Request) -> object:
        try:
            while True:
                event = self.conn.next_event()
                if event is not h11.NEED_DATA:
                    return event
                data = await self.reader.read(READ_SIZE)
                if not data and self.conn.their_state is h11.SEND_RESPONSE:
                    raise httpx.RemoteProtocolError(DISCONNECTED, request=request)
                self.conn.receive_data(data)  # b"": the server closed its end
        except h11.RemoteProtocolError as exc:
            raise httpx.RemoteProtocolError(str(exc), request=request) from None
        except OSError as exc:
            raise httpx.ReadError(str(exc) or type(exc).__name__, request=request) from None

    async def close(self) -> None:
        self.writer.close()
        with contextlib.suppress(OSError):
            await self.writer.wait_closed()


class _Body(httpx.AsyncByteStream):
    def __init__(self, reader: _Reader, request: httpx.Request) -> None:
        self._reader = reader
        self._request = request

    async def __aiter__(self) -> AsyncIterator[bytes]:
        while True:
            event = await self._reader.next_event(self._request)
            if isinstance(event, h11.Data):
                yield bytes(event.data)
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed) or event is h11.PAUSED:
                return

    async def aclose(self) -> None:
        await self._reader.close()


async def adopt(parts: RequestParts, request: httpx.Request) -> httpx.Response | None:
    """The held answer to ``parts`` as a response whose body is still unread, or None (nothing is
    held, or what was sent ahead is not ``parts``: that connection is closed unread)."""
    held = ahead.take()
    if held is None:
        return None
    if held.parts != parts:
        held.close()
        return None
    try:
        stream_reader, writer = await asyncio.open_connection(sock=held.sock)
    except OSError as exc:
        held.close()
        raise httpx.ReadError(str(exc) or type(exc).__name__, request=request) from None
    try:
        reader = _Reader(stream_reader, writer, parts)
    except (h11.LocalProtocolError, UnicodeError, ValueError):  # never written so (ahead.loopback_target)
        writer.close()
        return None
    try:
        event = await reader.next_event(request)
        while isinstance(event, h11.InformationalResponse):
            event = await reader.next_event(request)
        if not isinstance(event, h11.Response):
            raise httpx.RemoteProtocolError(
                "Server disconnected without sending a response.", request=request
            )
    except BaseException:
        await reader.close()
        raise
    return httpx.Response(
        event.status_code,
        headers=list(event.headers),
        stream=_Body(reader, request),
        request=request,
        extensions={"http_version": b"HTTP/" + event.http_version, "reason_phrase": event.reason},
    )
