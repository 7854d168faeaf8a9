"""What one Chat Completions request is on the wire: its URL, the headers lait sets, and the body's
bytes. :class:`~lait_core.engine.llm.client.ChatClient` sends these through httpx; the send-ahead path
(:mod:`lait_core.engine.llm.ahead`) writes the same parts to a socket before httpx is even imported, and
the client adopts that answer only when its own parts are these, byte for byte.

Standard library only: the send-ahead path imports this module at start-up.
"""

from __future__ import annotations

import ipaddress
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from lait_core import __version__
from lait_core.engine.llm.chat_types import ConfigurationError

DEFAULT_BASE_URL = "http://localhost:1234/v1"
"""LM Studio's local server: the endpoint when nothing configures one."""
PLACEHOLDER_KEY = "lm-studio"
"""Sent as the bearer token when no key resolves (LM Studio accepts anything)."""

USER_AGENT = f"lait/{__version__}"


@dataclass(frozen=True, slots=True)
class RequestParts:
    """The request as lait builds it; the HTTP library adds the transport's own headers (Host,
    Content-Length, Connection, Accept-Encoding)."""

    url: str
    headers: dict[str, str]
    content: bytes


def request_parts(base_url: str, api_key: str | None, body: dict[str, Any]) -> RequestParts:
    """(:class:`ConfigurationError` for a key no header can carry, or text that is not UTF-8.)

    POST ``{base_url}/chat/completions`` with ``body`` as UTF-8 JSON; the bearer token is the key,
    or :data:`PLACEHOLDER_KEY` when none resolved; it accepts
    ``text/event-stream`` for a streamed request, else ``application/json``."""
    if api_key is not None and not (api_key.isascii() and api_key.isprintable()):
        raise ConfigurationError(
            "the API key holds characters an HTTP header cannot carry (only printable ASCII can be sent)"
        )
    headers = {
        "User-Agent": USER_AGENT,
        "Authorization": f"Bearer {api_key or PLACEHOLDER_KEY}",
        "Content-Type": "application/json",
        "Accept": "text/event-stream" if body.get("stream") else "application/json",
    }
    try:
        content = json.dumps(body, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigurationError(
            "the request holds text that is not valid UTF-8 (a command-line argument in another encoding?)"
        ) from None
    return RequestParts(f"{base_url}/chat/completions", headers, content)


def is_loopback(url: str) -> bool:
    """Whether ``url`` names this machine (``localhost`` or a loopback address)."""
    host = (urlsplit(url).hostname or "").lower()
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False
