"""A controllable MCP server for lait's tests, written with the ``mcp`` SDK's ``MCPServer``.

``python -m tests.peers.mcp_peer [--http PORT] [--legacy] [--many N --page-size K]
[--ttl-ms MS --scope public|private] [--marker FILE]``

* stdio by default; ``--http PORT`` serves streamable HTTP on 127.0.0.1 (PORT 0: a free port,
  announced as ``PORT <n>`` on stderr).
* ``--legacy``: no ``server/discover``, so clients fall back to ``initialize`` (2025-11-25).
* ``--many N``: additionally list N tools ``t0``...``t<N-1>`` over pages of ``--page-size``.
* ``--ttl-ms``/``--scope``: the ``tools/list`` cache hints (2026-07-28).
* ``--marker FILE``: append one line per ``tools/list`` and ``tools/call`` (what the server saw).
* ``--odd-output-schema``: list ``echo`` with an ``outputSchema`` its results do not match.
* ``--echo-description TEXT``: list ``echo`` with this description (a tool that changed since it was
  pinned in ``lait.lock``).
* ``--annotate``: list ``whoami`` and ``echo`` as ``readOnlyHint: true`` and ``crash`` as ``destructiveHint: true``.
* ``--getenv``: also offer ``getenv(name)``, the values of the server's environment variables named
  (comma-separated) as a JSON object (``<unset>`` for a missing one): what a contained server sees.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import os
import sys
from typing import Annotated, Any

import mcp_types as types
from mcp.server.elicitation import ElicitationResult
from mcp.server.mcpserver import Context, Elicit, MCPServer, Resolve
from mcp.server.mcpserver.exceptions import ToolError
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, Field

PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n-lait-test-image").decode()


class Name(BaseModel):
    name: str = Field(description="Your name")


class Confirm(BaseModel):
    ok: bool = Field(description="Really do it?")
    note: str = Field(default="", description="Anything to add")


class Weather(BaseModel):
    city: str
    temperature: float


def ask_name(greeting: str) -> Elicit[Name]:
    return Elicit(f"{greeting}: what is your name?", Name)


def confirm_after_name(
    greeting: str, name: Annotated[ElicitationResult[Name], Resolve(ask_name)]
) -> Elicit[Confirm] | Confirm:
    who = name.data.name if name.action == "accept" else f"<{name.action}>"
    return Elicit(f"Greet {who}?", Confirm)


CHAIN = 18
_chain_source = "def q0(topic: str) -> Elicit[Name]:\n    return Elicit('question 0', Name)\n"
for _i in range(1, CHAIN):
    _chain_source += (
        f"def q{_i}(topic: str, prev: Annotated[ElicitationResult[Name], Resolve(q{_i - 1})]) -> Elicit[Name]:\n"
        f"    return Elicit('question {_i}', Name)\n"
    )
exec(_chain_source)  # q0 ... q17: each question asked in its own input_required round


def build(args: argparse.Namespace) -> MCPServer:
    marker = args.marker

    def mark(text: str) -> None:
        if marker:
            with open(marker, "a", encoding="utf-8") as f:
                f.write(text + "\n")

    cache_hints: Any = None
    if args.ttl_ms is not None:
        from mcp.server.caching import CacheHint

        cache_hints = {"tools/list": CacheHint(ttl_ms=args.ttl_ms, scope=args.scope)}
    server = MCPServer("lait-peer", cache_hints=cache_hints) if cache_hints else MCPServer("lait-peer")

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two integers."""
        mark(f"call add {a} {b}")
        return a + b

    @server.tool()
    def echo(text: str = "") -> str:
        """Echo the text back."""
        mark(f"call echo {text}")
        return text

    @server.tool()
    def fail(message: str = "it broke") -> str:
        """Always fails with a tool error (isError: true)."""
        raise ToolError(message)

    @server.tool()
    def picture() -> list[types.TextContent | types.ImageContent]:
        """Text plus an image block."""
        return [
            types.TextContent(type="text", text="here is a picture"),
            types.ImageContent(type="image", data=PNG, mime_type="image/png"),
        ]

    @server.tool()
    def weather(city: str) -> Weather:
        """Structured content (with the serialized text in content)."""
        return Weather(city=city, temperature=21.5)

    @server.tool()
    async def greet(
        greeting: str,
        name: Annotated[ElicitationResult[Name], Resolve(ask_name)],
        confirm: Annotated[ElicitationResult[Confirm], Resolve(confirm_after_name)],
        ctx: Context,
    ) -> str:
        """Resolver elicitation over two rounds (both eras)."""
        who = name.data.name if name.action == "accept" else f"<{name.action}>"
        verdict = (
            f"ok={confirm.data.ok} note={confirm.data.note}" if confirm.action == "accept" else confirm.action
        )
        return f"{greeting}, {who}! ({verdict}; proto {ctx.protocol_version})"

    @server.tool()
    async def ask_legacy(topic: str, ctx: Context) -> str:
        """Direct ctx.elicit (only works on a 2025-11-25 session)."""
        result = await ctx.elicit(f"Tell me about {topic}", Name)
        if result.action == "accept":
            return f"legacy answer: {result.data.name}"
        return f"legacy {result.action}"

    @server.tool()
    async def ask_url(ctx: Context) -> str:
        """URL-mode elicitation (2025-11-25 sessions)."""
        result = await ctx.elicit_url("Sign in", "https://example.invalid/login", "e-1")
        return f"url {result.action}"

    async def ask_forever(topic: str, last: Annotated[ElicitationResult[Name], Resolve(q17)]) -> str:  # type: ignore[name-defined]  # noqa: F821
        """Asks CHAIN questions, one per round."""
        return f"asked {CHAIN} questions about {topic}"

    server.tool()(ask_forever)

    @server.tool()
    async def hang() -> str:
        """Never returns."""
        mark("call hang")
        await asyncio.sleep(3600)
        return "woke"

    @server.tool()
    def crash() -> str:
        """Exits the process mid-call."""
        mark("call crash")
        sys.stderr.write("peer: crashing now\n")
        sys.stderr.flush()
        os._exit(3)

    @server.tool()
    def flood(mib: int = 20) -> str:
        """A result of ``mib`` MiB."""
        return "x" * (mib * 1024 * 1024)

    @server.tool()
    def whoami() -> str:
        """Environment and working directory of the server."""
        return f"cwd={os.getcwd()} env={os.environ.get('LAIT_PEER_VAR', '')} home={os.environ.get('LAIT_INHERITED', '')}"

    @server.tool()
    async def client_caps(ctx: Context) -> str:
        """The client's advertised capabilities and info (2025-11-25 sessions)."""
        params = ctx.session.client_params
        if params is None:
            return "unknown"
        caps = params.capabilities.model_dump(exclude_none=True, by_alias=True)
        return f"{params.client_info.name} {sorted(caps)} {sorted(caps.get('elicitation', {}))}"

    @server.tool()
    async def sample_it(ctx: Context) -> str:
        """Sends sampling/createMessage and roots/list (2025-11-25 sessions)."""
        out = []
        for send in (
            lambda: ctx.session.create_message(
                [types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hi"))],
                max_tokens=5,
            ),
            lambda: ctx.session.list_roots(),
        ):
            try:
                await send()
                out.append("answered")
            except Exception as exc:
                out.append(f"error: {getattr(getattr(exc, 'error', None), 'code', '')} {exc}")
        return " | ".join(out)

    @server.tool()
    async def sample_modern(ctx: Context) -> str | types.InputRequiredResult:
        """Asks for sampling and roots in an ``input_required`` result (2026-07-28 sessions)."""
        responses = ctx.input_responses
        if not responses:
            message = types.SamplingMessage(role="user", content=types.TextContent(type="text", text="hi"))
            return types.InputRequiredResult(
                input_requests={
                    "sample": types.CreateMessageRequest(
                        params=types.CreateMessageRequestParams(messages=[message], max_tokens=5)
                    ),
                    "roots": types.ListRootsRequest(),
                },
                request_state="peer-state",
            )
        return "answered: " + ", ".join(sorted(responses))

    @server.tool()
    def protocol_error() -> str:
        """Answers tools/call with a JSON-RPC error (not an isError result)."""
        mark("call protocol_error")
        raise MCPError(code=types.INVALID_PARAMS, message="the peer refuses this call")

    @server.tool()
    async def header(name: str, ctx: Context) -> str:
        """The value of HTTP request header ``name`` on this call (streamable HTTP only)."""
        request = ctx.request_context.request
        headers = getattr(request, "headers", None)
        if headers is None:
            return "no HTTP request"
        return str(headers.get(name, "<absent>"))

    if args.getenv:

        @server.tool()
        def getenv(name: str) -> str:
            """The values of the server's environment variables ``name`` (comma-separated names), as a
            JSON object; ``<unset>`` for a variable it does not have."""
            import json

            return json.dumps({n: os.environ.get(n, "<unset>") for n in name.split(",")})

    low = server._lowlevel_server
    if args.many or marker or args.odd_output_schema or args.echo_description is not None or args.annotate:
        original = low._request_handlers["tools/list"]

        async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
            cursor = params.cursor if params else None
            mark(f"list {cursor}")
            base = await original.handler(ctx, params)
            if args.odd_output_schema:
                for tool in base.tools:
                    if tool.name == "echo":  # its structuredContent ({"result": ...}) does not match
                        tool.output_schema = {
                            "type": "object",
                            "required": ["n"],
                            "properties": {"n": {"type": "integer"}},
                        }
            for tool in base.tools:
                if tool.name == "echo" and args.echo_description is not None:
                    tool.description = args.echo_description
                if args.annotate and tool.name in ("whoami", "echo"):
                    tool.annotations = types.ToolAnnotations(read_only_hint=True)
                if args.annotate and tool.name == "crash":
                    tool.annotations = types.ToolAnnotations(destructive_hint=True)
            if not args.many:
                return base
            start = int(cursor) if cursor else 0
            end = min(start + args.page_size, args.many)
            extra = [
                types.Tool(name=f"t{i}", description=f"tool {i}", input_schema={"type": "object"})
                for i in range(start, end)
            ]
            tools = (base.tools if start == 0 else []) + extra
            next_cursor = str(end) if end < args.many else None
            if args.repeat_cursor and end < args.many:
                next_cursor = "0" if start else str(end)
            return types.ListToolsResult(tools=tools, next_cursor=next_cursor)

        low.add_request_handler("tools/list", types.PaginatedRequestParams, list_tools)
    return server


async def serve_legacy_stdio(server: MCPServer) -> None:
    """Serve stdio in the handshake era only (what a 2025-era SDK server does): the
    ``server/discover`` probe is refused and clients fall back to ``initialize``."""
    from mcp.server.runner import serve_loop
    from mcp.server.stdio import stdio_server

    low = server._lowlevel_server
    async with stdio_server() as (read_stream, write_stream), low.lifespan(low) as state:
        await serve_loop(
            low,
            read_stream,
            write_stream,
            lifespan_state=state,
            init_options=low.create_initialization_options(),
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--http", type=int, default=None)
    parser.add_argument("--legacy", action="store_true")
    parser.add_argument("--many", type=int, default=0)
    parser.add_argument("--page-size", type=int, default=1000)
    parser.add_argument("--repeat-cursor", action="store_true")
    parser.add_argument("--ttl-ms", type=int, default=None)
    parser.add_argument("--scope", default="private")
    parser.add_argument("--marker", default=None)
    parser.add_argument("--odd-output-schema", action="store_true")
    parser.add_argument("--echo-description", default=None)
    parser.add_argument("--annotate", action="store_true")
    parser.add_argument("--getenv", action="store_true")
    args = parser.parse_args()
    server = build(args)
    if args.http is None and args.legacy:
        import anyio

        anyio.run(serve_legacy_stdio, server)
        return
    if args.http is None:
        server.run()
        return
    import socket

    port = args.http
    if port == 0:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
    sys.stderr.write(f"PORT {port}\n")
    sys.stderr.flush()
    server.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
