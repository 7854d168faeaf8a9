"""Resource limits of the MCP client (docs/mcp.md); tests pass smaller ones."""

from __future__ import annotations

from dataclasses import dataclass

MIB = 1024 * 1024


@dataclass(frozen=True, slots=True)
class McpLimits:
    timeout: float = 300.0
    """Seconds for each ``tools/list`` page and each ``tools/call`` request."""
    handshake_timeout: float = 300.0
    """Seconds from spawning (or the first HTTP request) to a completed handshake."""
    frame_bytes: int = 16 * MIB
    """Largest incoming stdio frame (one JSON-RPC line), HTTP body or SSE event."""
    page_tools: int = 1024
    total_tools: int = 8192
    pages: int = 128
    metadata_bytes: int = 16 * MIB
    """Serialized description + input schema + output schema bytes of one server, cumulative."""
    input_rounds: int = 16
    """``input_required`` rounds of one ``tools/call`` (2026-07-28) before it fails."""
    url_wait: float = 600.0
    """Seconds to wait for ``notifications/elicitation/complete`` after the person accepted a URL
    elicitation that a call needs (``-32042``) before the call is retried."""


DEFAULT_LIMITS = McpLimits()
