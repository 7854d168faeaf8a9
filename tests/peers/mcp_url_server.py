"""A real MCP server (the ``mcp`` SDK's MCPServer, stdio, 2025-11-25 handshake era) that needs the
person to visit a URL, changes its tool list, and asks with choice forms.

It also serves a tiny "browser page" over HTTP on 127.0.0.1 (a free port): visiting
``/done/<elicitation id>`` (what the person does in the browser) marks that elicitation completed,
and the server then sends ``notifications/elicitation/complete`` for it.

Tools:

* ``private_note()``: fails with ``-32042`` (``UrlElicitationRequiredError``: "Sign in to read your
  notes" and the page URL) until the page of that elicitation was visited; then answers
  ``note: buy milk``.
* ``open_page()``: a URL-mode ``elicitation/create`` during the call; after the person accepts it
  waits (at most 60 s) for the page visit and answers ``page visited`` (or ``page <action>``).
* ``grow()``: adds a tool ``extra`` and sends ``notifications/tools/list_changed``.
* ``choose()``: a form with a titled single choice, a titled multi-select and defaults (SEP-1330,
  SEP-1034); answers the JSON content it received, or the action.

With ``LAIT_TEST_PID_FILE`` set, the server appends its pid to that file on start.

    python -m tests.peers.mcp_url_server
"""

from __future__ import annotations

import asyncio
import json
import os
from typing import Any

import anyio
import mcp_types as types
from mcp.server.mcpserver import Context, MCPServer
from mcp.shared.exceptions import UrlElicitationRequiredError

server = MCPServer("lait-test-url")
_state: dict[str, Any] = {"port": 0, "visited": set(), "events": {}, "session": None, "count": 0}

CHOICES = {
    "type": "object",
    "properties": {
        "size": {
            "type": "string",
            "title": "Size",
            "oneOf": [
                {"const": "s", "title": "Small"},
                {"const": "m", "title": "Medium"},
                {"const": "l", "title": "Large"},
            ],
            "default": "m",
        },
        "toppings": {
            "type": "array",
            "title": "Toppings",
            "items": {"anyOf": [{"const": "ham", "title": "Ham"}, {"const": "olive", "title": "Olives"}]},
            "default": ["olive"],
        },
        "note": {"type": "string", "description": "Anything else", "default": "none"},
    },
    "required": ["size"],
}


def _url(elicitation_id: str) -> str:
    return f"http://127.0.0.1:{_state['port']}/done/{elicitation_id}"


def _event(elicitation_id: str) -> asyncio.Event:
    events: dict[str, asyncio.Event] = _state["events"]
    return events.setdefault(elicitation_id, asyncio.Event())


@server.tool()
async def private_note(ctx: Context) -> str:
    """Read your private note (needs sign-in in the browser first)."""
    _state["session"] = ctx.session
    if "sign-in" not in _state["visited"]:
        raise UrlElicitationRequiredError(
            [
                types.ElicitRequestURLParams(
                    mode="url",
                    message="Sign in to read your notes",
                    url=_url("sign-in"),
                    elicitation_id="sign-in",
                )
            ]
        )
    return "note: buy milk"


@server.tool()
async def open_page(ctx: Context) -> str:
    """Asks the person to open a page (URL-mode elicitation) and waits until they did."""
    _state["session"] = ctx.session
    _state["count"] += 1
    elicitation_id = f"page-{_state['count']}"
    result = await ctx.elicit_url(
        "Confirm the order on the shop's page", _url(elicitation_id), elicitation_id
    )
    if result.action != "accept":
        return f"page {result.action}"
    with anyio.fail_after(60):
        await _event(elicitation_id).wait()
    return "page visited"


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool 'extra' and tells the client the list changed."""

    def extra() -> str:
        """A tool that appears later."""
        return "extra here"

    server.add_tool(extra)
    await ctx.session.send_tool_list_changed()
    return "grown"


@server.tool()
async def choose(ctx: Context) -> str:
    """Asks for a pizza (titled choices, a multi-select, defaults)."""
    result = await ctx.session.elicit_form("Your pizza?", CHOICES, related_request_id=ctx.request_id)
    if result.action == "accept":
        return json.dumps(result.content, sort_keys=True)
    return result.action


async def _page(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        request = await reader.readline()
        while (await reader.readline()) not in (b"\r\n", b"\n", b""):
            pass
        parts = request.decode(errors="replace").split()
        path = parts[1] if len(parts) > 1 else "/"
        if path.startswith("/done/"):
            elicitation_id = path.removeprefix("/done/")
            _state["visited"].add(elicitation_id)
            _event(elicitation_id).set()
            session = _state["session"]
            if session is not None:
                await session.send_elicit_complete(elicitation_id)
            body = b"done; you can close this page"
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s" % (len(body), body)
            )
        else:
            writer.write(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
        await writer.drain()
    finally:
        writer.close()


async def main() -> None:
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    pid_file = os.environ.get("LAIT_TEST_PID_FILE")
    if pid_file:
        with open(pid_file, "a", encoding="utf-8") as f:
            f.write(f"{os.getpid()}\n")
    page = await asyncio.start_server(_page, "127.0.0.1", 0)
    _state["port"] = page.sockets[0].getsockname()[1]
    low = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream), low.lifespan(low) as state:
        await serve_loop(
            low,
            read_stream,
            write_stream,
            lifespan_state=state,
            init_options=low.create_initialization_options(),
        )
    page.close()


if __name__ == "__main__":
    anyio.run(main)
