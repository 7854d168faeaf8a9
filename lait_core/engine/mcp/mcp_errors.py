"""Errors of the MCP client. All abort the tool loop (docs/workflows.md) except where the tool source
turns them into a tool result."""

from __future__ import annotations

from lait_core.engine.llm.chat_types import ToolLoopError


class McpError(ToolLoopError):
    """A transport or protocol failure, a timeout or a broken limit; names the server."""

    def __init__(self, server: str, message: str) -> None:
        super().__init__(f"MCP server '{server}': {message}")
        self.server = server
        self.detail = message
