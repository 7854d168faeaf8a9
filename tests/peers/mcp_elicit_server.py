"""A real MCP server (the ``mcp`` SDK's MCPServer, stdio) whose tool elicits, for editor-run tests.

Tools:

* ``save_note(text)`` asks the user (elicitation, resolver style: works on 2025-11-25 sessions and as
  a 2026-07-28 ``input_required`` round) for ``{title: string, priority: integer}`` and answers
  ``saved '<title>' (priority <n>): <text>``, or ``not saved: decline`` / ``not saved: cancel``.
* ``slow(seconds)`` sleeps (for cancellation tests).

With ``LAIT_TEST_PID_FILE`` set, the server appends its pid to that file on start.

    python -m tests.peers.mcp_elicit_server
"""

from __future__ import annotations

import asyncio
import os
from typing import Annotated

from mcp.server.mcpserver import Elicit, ElicitationResult, MCPServer, Resolve
from pydantic import BaseModel, Field

server = MCPServer("lait-test-notes")


class NoteDetails(BaseModel):
    title: str = Field(description="Title of the note")
    priority: int = Field(description="Priority from 1 to 5", ge=1, le=5)


def ask_details(text: str) -> Elicit[NoteDetails]:
    return Elicit(f"Save the note {text!r}?", NoteDetails)


@server.tool()
async def save_note(
    text: str, details: Annotated[ElicitationResult[NoteDetails], Resolve(ask_details)]
) -> str:
    """Save a note; asks the user for a title and a priority."""
    if details.action == "accept" and details.data is not None:
        return f"saved '{details.data.title}' (priority {details.data.priority}): {text}"
    return f"not saved: {details.action}"


@server.tool()
async def slow(seconds: float) -> str:
    """Sleep for a while."""
    await asyncio.sleep(seconds)
    return f"slept {seconds}"


def main() -> None:
    pid_file = os.environ.get("LAIT_TEST_PID_FILE")
    if pid_file:
        with open(pid_file, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")
    server.run()


if __name__ == "__main__":
    main()
