"""Send a chat's first request ahead, before the rest of lait is imported (docs/performance.md: a
chat's first request leaves lait within 250 ms of process start).

A single-shot chat spends most of its start-up importing what it needs to *read* an answer (typer,
pydantic, asyncio, httpx). When :mod:`lait_cli.support.send_ahead` can tell from argv, the environment and the
config what the first request will be, it calls :func:`send_ahead`, which writes that request to a plain
socket, so the model server starts on it while lait finishes starting. The connection is then held
here, unread. When the engine is about to send its first request, it asks
:func:`lait_core.engine.llm.ahead_response.adopt` for the held answer: that is used only when the
engine's own request has the same URL, headers and body, byte for byte; otherwise the held
connection is closed and the engine sends its request as usual.

Sent ahead only over plain ``http://`` to this machine (a local model server): a request the
engine then does not adopt costs a local server some work, never tokens on a paid API, and no
proxy or TLS setting can apply. ``LAIT_SEND_AHEAD=0`` turns it off.

Standard library only.
"""

from __future__ import annotations

import contextlib
import os
import socket
import string
from collections.abc import Mapping
from dataclasses import dataclass
from urllib.parse import urlsplit

from lait_core.engine.llm.wire import RequestParts, is_loopback

CONNECT_TIMEOUT = 0.5
"""Seconds to connect to a loopback address (refused at once when nothing listens)."""
SWITCH = "LAIT_SEND_AHEAD"
PROXY_VARIABLES = ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy")
URL_CHARACTERS = frozenset(string.ascii_letters + string.digits + "-._~:/?#[]@!$&'()*+,;=%")
"""What a URL may hold as it is (RFC 3986): anything else httpx percent-encodes first."""


@dataclass(slots=True)
class Held:
    """A request written to ``sock`` whose answer nobody has read yet."""

    parts: RequestParts
    sock: socket.socket

    def close(self) -> None:
        with contextlib.suppress(OSError):
            self.sock.close()


_held: Held | None = None
_first: RequestParts | None = None
"""The URL and body of the first request the HTTP client made in this process (sent ahead or not);
its headers are not kept."""
_adopted = False


def enabled(environ: Mapping[str, str] | None = None) -> bool:
    env = os.environ if environ is None else environ
    return env.get(SWITCH, "").strip().lower() not in ("0", "false", "no", "off")


def loopback_target(url: str) -> tuple[str, int, str] | None:
    """``(host, port, request target)`` for a plain ``http://`` URL naming this machine, without
    credentials, query or fragment, in characters httpx sends unchanged; None for anything else."""
    try:
        split = urlsplit(url)
        port = split.port or 80
    except ValueError:
        return None
    host = split.hostname or ""
    if split.scheme != "http" or "@" in split.netloc or split.query or split.fragment:
        return None  # a query may hold a credential (a template would keep it); none on local servers
    if not set(url) <= URL_CHARACTERS:
        return None  # httpx would percent-encode it: the bytes written here would not be httpx's
    if not is_loopback(url):
        return None
    return host, port, split.path or "/"


def _header_block(parts: RequestParts, netloc: str, target: str) -> bytes | None:
    lines = [f"POST {target} HTTP/1.1", f"Host: {netloc}"]
    for name, value in parts.headers.items():
        if "\r" in value or "\n" in value:
            return None  # never a header an HTTP library would refuse to send
        lines.append(f"{name}: {value}")
    lines += [f"Content-Length: {len(parts.content)}", "Connection: close", "", ""]
    try:
        return "\r\n".join(lines).encode("ascii")
    except UnicodeEncodeError:
        return None  # a key that is not ASCII: the engine reports it


def send_ahead(parts: RequestParts) -> bool:
    """Write ``parts`` to a new connection and hold it for :func:`take`; False (nothing held) when
    the URL is not a plain loopback one, a proxy is configured, or the connection or write fails --
    the engine then sends the request itself and reports any error as usual."""
    global _held
    if _held is not None or not enabled() or any(os.environ.get(name) for name in PROXY_VARIABLES):
        return False
    target = loopback_target(parts.url)
    if target is None:
        return False
    host, port, path = target
    head = _header_block(parts, urlsplit(parts.url).netloc, path)
    if head is None:
        return False
    try:
        sock = socket.create_connection((host, port), timeout=CONNECT_TIMEOUT)
    except OSError:
        return False
    try:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.sendall(head + parts.content)
    except OSError:
        sock.close()
        return False
    _held = Held(parts, sock)
    return True


def held() -> bool:
    return _held is not None


def take() -> Held | None:
    """The held request (once: later calls get None)."""
    global _held
    found, _held = _held, None
    return found


def note_sent(parts: RequestParts, *, adopted: bool = False) -> None:
    """The HTTP client made a request (``adopted``: answered from the held connection); the first one
    is kept for :func:`first_sent`."""
    global _first, _adopted
    if _first is None:
        _first, _adopted = RequestParts(parts.url, {}, parts.content), adopted  # no key kept


def first_sent() -> tuple[RequestParts, bool] | None:
    """The process's first request and whether it was answered from the connection sent ahead."""
    return None if _first is None else (_first, _adopted)


def discard() -> None:
    """Close a held connection nobody will read (tests; a run that ended before its first request)."""
    found = take()
    if found is not None:
        found.close()
