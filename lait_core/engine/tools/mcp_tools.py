"""MCP servers as tool sources (docs/mcp.md).

:class:`McpPool` is the run's registry of ``mcp_servers``: it hands out one
:class:`McpToolSource` per server name (creating one never connects), connects a server on first
use -- once, however many loops ask at the same time -- keeps its tool list (see
:mod:`lait_core.engine.mcp.listing` for the cache rules), and closes every connection in
:meth:`McpPool.aclose`, killing and reaping each stdio server's process group.

A call checks ``allowed_tools`` first, before connecting (a violation is a hard error); then it
parses the arguments (blank or ``null``: no arguments) and calls the tool under the request
timeout. ``isError`` results go back to the model. A *bad reply* -- a result larger than the
frame cap (16 MiB), a result that does not match the MCP schema (``content`` not a list), a stdout
line that is not JSON-RPC and not a plain log line -- evicts the connection and is an error result
the model sees (the loop continues). Any other failure -- transport, a crash, a JSON-RPC error,
timeout, cancellation -- evicts the connection (the next use reconnects) and aborts as
:class:`~lait_core.engine.mcp.mcp_errors.McpError`. A 2026-07-28 call that keeps asking for input past
``input_rounds`` rounds ends as an error result too.

The ``mcp`` SDK is imported only when a server is first connected.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.llm.chat_types import JsonObject
from lait_core.engine.mcp.limits import DEFAULT_LIMITS, McpLimits
from lait_core.engine.mcp.mcp_errors import McpError
from lait_core.engine.mcp.result_text import render_result
from lait_core.engine.mcp.shield import shielded
from lait_core.engine.mcp.spec import unknown_server
from lait_core.engine.tools.base import CallContext, Tool, ToolKind, ToolResult, ToolSource, parse_arguments
from lait_core.engine.tools.naming import qualify
from lait_core.engine.tools.tool_policy import allowed_tools_refusal

if TYPE_CHECKING:
    from lait_core.engine.mcp.connection import McpConnection
    from lait_core.engine.mcp.listing import ToolListing
    from lait_core.engine.mcp.lock import McpLock
    from lait_core.engine.mcp.oauth.signin_options import OAuthOptions

__all__ = ["McpError", "McpPool", "McpToolSource"]


class _Server:
    """One configured server: its connection (if any) and its cached tool list."""

    def __init__(self, name: str, config: McpServerConfig) -> None:
        self.name = name
        self.config = config
        self.connection: McpConnection | None = None
        self.connect_lock = asyncio.Lock()
        self.list_lock = asyncio.Lock()
        self.listing: ToolListing | None = None
        self.source: McpToolSource | None = None


class McpPool:
    """The MCP servers of one run (a CLI invocation, an editor run)."""

    def __init__(
        self,
        servers: Mapping[str, McpServerConfig],
        *,
        base_dir: Path,
        environ: Mapping[str, str] | None = None,
        stderr: TextIO | None = None,
        limits: McpLimits | None = None,
        on_spawn: Callable[[int], None] | None = None,
        oauth: OAuthOptions | None = None,
        pinned: bool = True,
        contained: bool = False,
    ) -> None:
        self.base_dir = base_dir
        self.pinned = pinned
        self.contained = contained
        """``confine: project``: a stdio server without ``env_inherit`` does not inherit lait's
        environment (:func:`lait_core.engine.mcp.spec.inherits_env`)."""
        """Check each listing against ``lait.lock`` in ``base_dir`` when that file exists
        (:mod:`lait_core.engine.mcp.lock`); False for ``lait mcp lock`` itself."""
        self._lock: McpLock | bool | None = False
        """The loaded lock: False until first needed, None when there is none."""
        self.oauth = oauth
        """How ``url:`` servers sign in (None: headless)."""
        self.environ = environ
        self.stderr = stderr
        self.limits = limits or DEFAULT_LIMITS
        self.on_spawn = on_spawn
        self._servers = {name: _Server(name, config) for name, config in servers.items()}
        self._closed = False

    # -- public
    def source(self, name: str) -> McpToolSource:
        """The tool source of server ``name`` (the same object every time); never connects."""
        server = self._servers.get(name)
        if server is None:
            raise unknown_server(name, self._servers)
        if server.source is None:
            server.source = McpToolSource(self, server)
        return server.source

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(self._servers)

    async def connection(self, name: str) -> McpConnection:
        """The live connection of ``name``, connecting first if needed (one connect for concurrent
        first users; a connection evicted after a failure is replaced)."""
        server = self._server(name)
        conn = server.connection
        if conn is not None and conn.usable:
            return conn
        async with server.connect_lock:
            if self._closed:
                raise McpError(name, "the run's MCP connections are already closed")
            conn = server.connection
            if conn is not None and conn.usable:
                return conn
            if conn is not None:
                server.connection = None
                await conn.aclose()
            from lait_core.engine.mcp.connection import McpConnection
            from lait_core.engine.mcp.spec import server_spec

            spec = server_spec(
                name,
                server.config,
                base_dir=self.base_dir,
                environ=self.environ,
                contained_by_default=self.contained,
            )
            oauth = self.oauth
            if self.environ is not None and (oauth is None or oauth.environ is None):
                from dataclasses import replace

                from lait_core.engine.mcp.oauth.signin_options import OAuthOptions

                oauth = replace(oauth or OAuthOptions(), environ=self.environ)
            conn = await McpConnection.open(
                name,
                spec,
                server.config,
                limits=self.limits,
                stderr=self.stderr,
                on_spawn=self.on_spawn,
                oauth=oauth,
            )
            if self._closed:
                await conn.aclose()
                raise McpError(name, "the run's MCP connections are already closed")
            conn.on_tools_changed = lambda: self._tools_changed(server)
            server.connection = conn
            return conn

    @staticmethod
    def _tools_changed(server: _Server) -> None:
        """``notifications/tools/list_changed``: the next use lists the tools again."""
        server.listing = None

    async def evict(self, name: str, conn: McpConnection, *, drop_listing: bool = False) -> None:
        """Close ``conn`` after a failure (the next use reconnects); waits for the cleanup."""
        server = self._server(name)
        if server.connection is conn:
            server.connection = None
        if drop_listing:
            server.listing = None
        await conn.aclose()

    async def listing(self, name: str) -> ToolListing:
        server = self._server(name)
        async with server.list_lock:
            cached = server.listing
            current = server.connection.serial if server.connection is not None else None
            if cached is not None and cached.fresh(current):
                return cached
            from lait_core.engine.mcp.listing import list_all

            conn = await self.connection(name)
            try:
                listing = await list_all(conn, self.limits)
            except asyncio.CancelledError:
                await shielded(self.evict(name, conn, drop_listing=True))
                raise
            except Exception as exc:
                await self.evict(name, conn, drop_listing=True)
                if isinstance(exc, McpError):
                    raise
                raise McpError(name, f"tools/list failed: {conn.failure(exc)}") from None
            lock = self.lock()
            if lock is not None:
                lock.verify(name, server.config, listing.tools)  # before any tool is offered or called
            server.listing = listing if listing.cacheable else None
            return listing

    def lock(self) -> McpLock | None:
        """The project's ``lait.lock`` (None: none, or ``pinned=False``); read once per pool.
        Raises :class:`~lait_core.engine.mcp.lock.LockError` for an unreadable file."""
        if not self.pinned:
            return None
        if self._lock is False:
            from lait_core.engine.mcp.lock import load_lock

            self._lock = load_lock(self.base_dir)
        assert not isinstance(self._lock, bool)
        return self._lock

    async def aclose(self) -> None:
        """Close every connection (idempotent); waits until stdio servers are reaped."""
        self._closed = True
        errors: list[BaseException] = []
        for server in self._servers.values():
            conn, server.connection = server.connection, None
            if conn is not None:
                try:
                    await conn.aclose()
                except BaseException as exc:  # close the others first
                    errors.append(exc)
        if errors:
            raise errors[0]

    # -- internal
    def _server(self, name: str) -> _Server:
        server = self._servers.get(name)
        if server is None:
            self.source(name)  # raises the unknown-server error
        assert server is not None
        return server


class McpToolSource(ToolSource):
    """The tools of one MCP server, qualified ``<server>__<tool>``."""

    kind = ToolKind.MCP

    def __init__(self, pool: McpPool, server: _Server) -> None:
        self.pool = pool
        self.server = server
        self.label = server.name

    @property
    def name(self) -> str:
        return self.server.name

    async def list_tools(self) -> list[Tool]:
        listing = await self.pool.listing(self.name)
        tools = listing.built.get("tools")
        if tools is None:
            tools = [
                Tool(
                    qualify(self.name, t.name),
                    t.name,
                    t.description,
                    t.input_schema,
                    ToolKind.MCP,
                    self,
                    self.name,
                    t.annotations,
                )
                for t in listing.tools
            ]
            listing.built["tools"] = tools
        return list(tools)

    def grant_key(self, tool: Tool) -> tuple[str | None, str | None]:
        from lait_core.engine.mcp.lock import launch_entry
        from lait_core.engine.tools.standing_grants import grant_target

        return self.name, grant_target(launch_entry(self.server.config))

    def refusal(self, tool: Tool) -> str | None:
        """The ``allowed_tools`` refusal of ``tool``; never connects. The loop decides before asking
        for approval (seed 000: a tool that ``allowed_tools`` refuses is not even asked about)."""
        return allowed_tools_refusal(self.name, tool.name, self.server.config.allowed_tools)

    async def call(self, tool: Tool, arguments: str, ctx: CallContext) -> ToolResult:
        self.check(tool)
        args = _arguments(arguments, tool.qualified_name)
        conn = await self.pool.connection(self.name)
        from mcp.client._input_required import InputRequiredRoundsExceededError
        from mcp.shared.exceptions import MCPError
        from mcp_types import URL_ELICITATION_REQUIRED

        try:
            try:
                result = await conn.call_tool(tool.name, args, ctx.interaction)
            except MCPError as exc:
                if exc.code != URL_ELICITATION_REQUIRED:
                    raise
                await self._open_urls(conn, tool.name, exc, ctx)
                result = await conn.call_tool(tool.name, args, ctx.interaction)
        except InputRequiredRoundsExceededError:
            return ToolResult(
                f"isError: true\n\nMCP server '{self.name}' asked for more input more than "
                f"{self.pool.limits.input_rounds} times during one call of '{tool.name}'; lait gave up",
                is_error=True,
            )
        except asyncio.CancelledError:
            await shielded(self.pool.evict(self.name, conn))
            raise
        except McpError:
            raise
        except Exception as exc:
            if isinstance(exc, MCPError) and exc.code == URL_ELICITATION_REQUIRED:
                raise McpError(
                    self.name,
                    f"calling tool '{tool.name}' still needs a URL elicitation after the first one completed",
                ) from None
            await self.pool.evict(self.name, conn)
            bad_reply = conn.bad_reply(exc)
            if bad_reply is not None:
                return ToolResult(
                    f"isError: true\n\nMCP server '{self.name}': calling tool '{tool.name}' failed: "
                    f"{bad_reply} (the next call reconnects)",
                    is_error=True,
                )
            raise McpError(self.name, f"calling tool '{tool.name}' failed: {conn.failure(exc)}") from None
        content = [
            # text blocks are by far the most common: skip pydantic's dump for them (a hot path)
            {"type": "text", "text": block.text}
            if block.type == "text"
            else block.model_dump(by_alias=True, mode="json", exclude_none=True)
            for block in result.content
        ]
        is_error = bool(result.is_error)
        data: dict[str, Any] = {"content": content, "isError": is_error}
        if result.structured_content is not None:
            data["structuredContent"] = result.structured_content
        return ToolResult(render_result(content, result.structured_content, is_error), is_error, data)

    async def _open_urls(self, conn: McpConnection, tool: str, exc: Any, ctx: CallContext) -> None:
        """A call failed with ``-32042`` (URL elicitation required): show each URL to the person
        (through the interaction: printed on a terminal, an "Open" button in an editor), wait for the
        server's ``notifications/elicitation/complete`` of each, then return so the call is retried
        once. Declined, cancelled, not allowed or never completed: :class:`McpError`."""
        from mcp.shared.exceptions import UrlElicitationRequiredError

        from lait_core.engine.run.interaction import ElicitationRequest

        try:
            elicitations = UrlElicitationRequiredError.from_error(exc.error).elicitations
        except Exception:
            elicitations = []
        if not elicitations:
            raise McpError(self.name, f"calling tool '{tool}' failed: {exc.message} (no URL was given)")
        allowed = self.server.config.allow_elicitation
        for params in elicitations:
            request = ElicitationRequest(
                self.name,
                "url",
                params.message,
                None,
                params.url,
                allowed,
                params.elicitation_id,
                required=True,
            )
            answer = await ctx.interaction.elicit(request)
            if not allowed or answer.action != "accept":
                why = "was cancelled" if answer.action == "cancel" else "was declined"
                if not allowed:
                    why = f"was declined: 'mcp_servers.{self.name}.allow_elicitation' is false"
                raise McpError(
                    self.name,
                    f"calling tool '{tool}' needs you to open {params.url} ({params.message}); the request {why}",
                )
        ids = [p.elicitation_id for p in elicitations if p.elicitation_id]
        if ids and not await conn.wait_completed(ids, self.pool.limits.url_wait):
            raise McpError(
                self.name,
                f"calling tool '{tool}': the server did not report the URL elicitation complete within "
                f"{self.pool.limits.url_wait:g}s",
            )


def _arguments(arguments: str, qualified_name: str) -> JsonObject | None:
    """Blank or ``null``: no ``arguments`` field; an object as it is; anything else a hard error."""
    if not arguments.strip() or arguments.strip() == "null":
        return None
    return parse_arguments(arguments, qualified_name)
