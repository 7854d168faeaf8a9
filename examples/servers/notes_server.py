"""A tiny MCP server for the example project: keeps notes in memory (stdio transport)."""

from mcp.server.mcpserver import MCPServer

server = MCPServer("notes")
NOTES: list[str] = []


@server.tool()
def add_note(text: str) -> str:
    """Remember a note for the rest of the run."""
    NOTES.append(text)
    return f"noted ({len(NOTES)} notes)"


@server.tool()
def list_notes() -> list[str]:
    """All notes taken so far."""
    return list(NOTES)


if __name__ == "__main__":
    server.run()
