"""The loopback listener that catches the authorization server's redirect (RFC 8252 7.3).

:class:`Callback` listens on ``127.0.0.1`` on a port the system picks, at the path
``/callback``; :attr:`Callback.redirect_uri` is what the client registers and sends. The first
request to that path whose ``state`` is the one of the sign-in under way (:meth:`Callback.expect`)
settles :meth:`Callback.wait` with the code (or the server's ``error``); the browser gets a short
page saying whether to close the tab. A request with another ``state`` (a forged or stale link)
gets 400 and changes nothing: the real redirect can still come. Any other
request gets 404. Request heads are read with a size cap and a deadline, so a stray local client
cannot hold the listener. Standard library only.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import html
from dataclasses import dataclass
from urllib.parse import parse_qs, urlsplit

PATH = "/callback"
HEAD_LIMIT = 16 * 1024
HEAD_SECONDS = 10.0


@dataclass(frozen=True, slots=True)
class Redirect:
    """What the authorization server sent back through the browser."""

    code: str | None
    state: str | None
    iss: str | None = None
    error: str | None = None
    error_description: str | None = None


class SignInCancelled(Exception):
    """The person (or the editor) cancelled the sign-in."""


def _page(title: str, text: str) -> bytes:
    body = (
        "<!doctype html><html><head><meta charset='utf-8'><title>lait</title></head>"
        f"<body><h1>{html.escape(title)}</h1><p>{html.escape(text)}</p></body></html>"
    ).encode()
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
    ).encode()
    return head + body


_WRONG_STATE = (
    b"HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: 71\r\n"
    b"Connection: close\r\n\r\nThis is not the sign-in lait is waiting for; use the link lait showed.\n"
)
_NOT_FOUND = b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"


class Callback:
    """Open with :meth:`start`, close with :meth:`close` (idempotent)."""

    def __init__(self, server: str) -> None:
        self.server_name = server
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[Redirect] | None = None
        self._state: str | None = None
        self.port = 0

    def expect(self, state: str | None) -> None:
        """The ``state`` of the authorization URL just shown: only a redirect carrying it counts."""
        self._state = state

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{PATH}"

    async def start(self) -> None:
        if self._server is not None:
            return
        loop = asyncio.get_running_loop()
        self._result = loop.create_future()
        self._server = await asyncio.start_server(self._handle, host="127.0.0.1", port=0)
        self.port = self._server.sockets[0].getsockname()[1]

    def renew(self) -> None:
        """Wait for a new redirect (a second sign-in on the same listener)."""
        if self._result is None or self._result.done():
            self._result = asyncio.get_running_loop().create_future()

    def cancel(self) -> None:
        if self._result is not None and not self._result.done():
            self._result.set_exception(SignInCancelled("sign-in was cancelled"))

    async def wait(self) -> Redirect:
        assert self._result is not None, "start() first"
        return await asyncio.shield(self._result)

    async def close(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
            with contextlib.suppress(Exception):
                await server.wait_closed()
        if self._result is not None and not self._result.done():
            self._result.cancel()
        if self._result is not None and self._result.done() and not self._result.cancelled():
            self._result.exception()

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(HEAD_SECONDS):
                head = await reader.readuntil(b"\r\n\r\n")
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            writer.close()
            return
        try:
            reply = self._answer(head[:HEAD_LIMIT])
            writer.write(reply)
            with contextlib.suppress(ConnectionError):
                await writer.drain()
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    def _answer(self, head: bytes) -> bytes:
        line = head.split(b"\r\n", 1)[0].decode("latin-1")
        parts = line.split(" ")
        if len(parts) != 3 or parts[0] != "GET":
            return _NOT_FOUND
        target = urlsplit(parts[1])
        if target.path != PATH:
            return _NOT_FOUND
        query = {k: v[0] for k, v in parse_qs(target.query, keep_blank_values=True).items()}
        if "state" not in query and "error" not in query:
            return _NOT_FOUND
        redirect = Redirect(
            code=query.get("code"),
            state=query.get("state"),
            iss=query.get("iss"),
            error=query.get("error"),
            error_description=query.get("error_description"),
        )
        result = self._result
        if self._state is not None and not hmac.compare_digest(
            (redirect.state or "").encode(), self._state.encode()
        ):
            return _WRONG_STATE
        if result is None or result.done():
            return _page("Nothing to do", "lait is not waiting for a sign-in; close this tab.")
        result.set_result(redirect)
        if redirect.error:
            return _page(
                "Sign-in failed",
                f"The authorization server answered '{redirect.error}'. Return to lait; close this tab.",
            )
        return _page(
            f"Signed in to {self.server_name}",
            "lait received the authorization. You can close this tab.",
        )
