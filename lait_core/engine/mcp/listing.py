"""``tools/list`` with pagination limits (docs/mcp.md) and the tool-list cache.

Limits: at most ``page_tools`` tools per page, ``total_tools`` per server, ``pages`` pages, no
repeated cursor, and ``metadata_bytes`` of serialized descriptions and schemas; each page under
the request timeout. Breaking one is an error naming the server.

Cache: a listing without cache hints (2025-era servers) is kept for the pool's lifetime, also
across reconnects (docs/mcp.md). A 2026-07-28 listing follows its hints: ``ttlMs`` (at most 24 h; 0
means not cached) and ``cacheScope`` -- a ``private`` listing belongs to the connection that
fetched it and is dropped when that connection is replaced, a ``public`` one outlives it.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lait_core.engine.mcp.limits import McpLimits
from lait_core.engine.mcp.mcp_errors import McpError

if TYPE_CHECKING:
    from lait_core.engine.mcp.connection import McpConnection

MAX_TTL_MS = 24 * 60 * 60 * 1000
MODERN_VERSIONS = ("2026-07-28",)


@dataclass(frozen=True, slots=True)
class ListedTool:
    name: str
    description: str | None
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None
    annotations: dict[str, Any] | None = None
    """The server's ``annotations`` (``readOnlyHint``, ``destructiveHint``...) as sent: untrusted
    hints, shown to a person and pinned in ``lait.lock``, never a reason to run a tool alone."""


@dataclass(slots=True)
class ToolListing:
    tools: tuple[ListedTool, ...]
    expires_at: float | None = None
    """``time.monotonic()`` deadline; None: never expires."""
    connection: int | None = None
    """The serial of the connection a ``private`` listing belongs to; None: any."""
    cacheable: bool = True
    built: dict[str, Any] = field(default_factory=dict)
    """Derived data the tool source keeps with the listing (the qualified :class:`Tool` objects)."""

    def fresh(self, connection: int | None) -> bool:
        if not self.cacheable:
            return False
        if self.expires_at is not None and time.monotonic() >= self.expires_at:
            return False
        return self.connection is None or self.connection == connection


def _bytes(value: Any) -> int:
    if value is None:
        return 0
    return len(json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode())


async def list_all(conn: McpConnection, limits: McpLimits) -> ToolListing:
    name = conn.name
    tools: list[ListedTool] = []
    seen: set[str] = set()
    metadata = 0
    cursor: str | None = None
    first: Any = None
    pages = 0
    while True:
        pages += 1
        if pages > limits.pages:
            raise McpError(name, f"tools/list returned more than {limits.pages} pages")
        page = await conn.list_page(cursor)
        if first is None:
            first = page
        if len(page.tools) > limits.page_tools:
            raise McpError(
                name, f"tools/list returned {len(page.tools)} tools in one page (at most {limits.page_tools})"
            )
        for tool in page.tools:
            metadata += _bytes(tool.description) + _bytes(tool.input_schema) + _bytes(tool.output_schema)
            tools.append(
                ListedTool(
                    tool.name,
                    tool.description,
                    dict(tool.input_schema),
                    None if tool.output_schema is None else dict(tool.output_schema),
                    None
                    if tool.annotations is None
                    else tool.annotations.model_dump(by_alias=True, mode="json", exclude_none=True),
                )
            )
        if len(tools) > limits.total_tools:
            raise McpError(name, f"tools/list returned more than {limits.total_tools} tools")
        if metadata > limits.metadata_bytes:
            raise McpError(
                name,
                f"the tool descriptions and schemas are larger than {limits.metadata_bytes} bytes in total",
            )
        cursor = page.next_cursor
        if cursor is None:
            break
        if cursor in seen:
            raise McpError(name, f"tools/list repeated the cursor {cursor!r}")
        seen.add(cursor)
    listing = ToolListing(tuple(tools))
    if conn.protocol_version in MODERN_VERSIONS and "ttl_ms" in first.model_fields_set:
        ttl = min(int(first.ttl_ms or 0), MAX_TTL_MS)
        listing.cacheable = ttl > 0
        listing.expires_at = time.monotonic() + ttl / 1000
        if getattr(first, "cache_scope", "private") != "public":
            listing.connection = conn.serial
    return listing
