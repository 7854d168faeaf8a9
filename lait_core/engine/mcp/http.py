"""The streamable-HTTP transport (docs/mcp.md): the SDK's ``streamable_http_client`` over an
``httpx2`` client of our own that sends the configured headers on every request, never follows
a redirect (the SDK would follow same-origin ones: we refuse every 3xx), times out after
``timeout`` seconds and refuses response bodies (by ``Content-Length`` or as they stream) larger
than ``frame_bytes``; SSE events are capped at the same size by the SDK.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import httpx2
from mcp.client.streamable_http import streamable_http_client

from lait_core.engine.mcp.limits import MIB


class BodyTooLarge(httpx2.ReadError):
    pass


class HttpState:
    """What the connection may report after a failure: the SDK turns a refused body into a plain
    "Connection closed", so the refusal is recorded here."""

    def __init__(self) -> None:
        self.fault: str | None = None


class RedirectRefused(httpx2.TransportError):
    pass


def _size(limit: int) -> str:
    return f"{limit // MIB} MiB" if limit % MIB == 0 else f"{limit} bytes"


class _CappedStream(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, limit: int, request: httpx2.Request, state: HttpState) -> None:
        self._inner = inner
        self._limit = limit
        self._request = request
        self._state = state

    async def __aiter__(self) -> AsyncIterator[bytes]:
        total = 0
        async for chunk in self._inner:
            total += len(chunk)
            if total > self._limit:
                self._state.fault = f"the response body is larger than {_size(self._limit)}"
                raise BodyTooLarge(self._state.fault, request=self._request)
            yield chunk

    async def aclose(self) -> None:
        await self._inner.aclose()


class _LimitedTransport(httpx2.AsyncBaseTransport):
    """Refuses redirects and oversized non-SSE bodies."""

    def __init__(self, inner: httpx2.AsyncBaseTransport, limit: int, state: HttpState) -> None:
        self._inner = inner
        self._limit = limit
        self._state = state

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        response = await self._inner.handle_async_request(request)
        if 300 <= response.status_code < 400:
            await response.aclose()
            location = response.headers.get("location", "")
            raise RedirectRefused(
                f"the server answered with a redirect (HTTP {response.status_code} to {location or '?'}); "
                "lait does not follow redirects: configure the final URL",
                request=request,
            )
        if "text/event-stream" in response.headers.get("content-type", ""):
            return response
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > self._limit:
            await response.aclose()
            self._state.fault = f"the response body ({length} bytes) is larger than {_size(self._limit)}"
            raise BodyTooLarge(self._state.fault, request=request)
        response.stream = _CappedStream(response.stream, self._limit, request, self._state)
        return response

    async def aclose(self) -> None:
        await self._inner.aclose()


@asynccontextmanager
async def http_transport(
    url: str,
    headers: dict[str, str],
    *,
    timeout: float,
    frame_bytes: int,
    state: HttpState | None = None,
    auth: httpx2.Auth | None = None,
) -> AsyncIterator[Any]:
    """``auth``: the connection's OAuth (:mod:`lait_core.engine.mcp.oauth.provider`), if any."""
    transport = _LimitedTransport(httpx2.AsyncHTTPTransport(), frame_bytes, state or HttpState())
    client = httpx2.AsyncClient(
        auth=auth,
        headers=headers,
        timeout=httpx2.Timeout(timeout),
        follow_redirects=False,
        transport=transport,
    )
    async with (
        client,
        streamable_http_client(url, http_client=client, max_sse_event_size=frame_bytes) as streams,
    ):
        yield streams
