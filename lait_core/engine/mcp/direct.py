"""What a person does by hand with one configured MCP server: connect to it
(:func:`open_server`, used by ``lait mcp tools``, ``lait mcp call`` and ``lait mcp login``) and
call one tool instead of a model (:func:`call_tool`, ``lait mcp call SERVER TOOL [JSON]``).

A call goes through the same gates, in the same order, as a model's call in the tool loop
(:meth:`lait_core.engine.run.tool_loop.ToolLoop._decide`): the tool must be in the server's ``tools/list``
(the pool's cached listing), ``tool_policy`` may deny it, ``allowed_tools`` refuses it before
anyone is asked, ``--approve-tools`` puts it to the person (a non-interactive stdin is an error
there, as in the loop), and then the tool source calls it with the interaction, so elicitation
(form and URL mode) reaches the person as in a model's call.

Differences from the loop, because there is no model to hand a soft failure to: a ``tool_policy``
or interactive denial is an error (:class:`ToolRefused`) instead of a tool result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.mcp.mcp_errors import McpError
from lait_core.engine.mcp.oauth.signin_options import OAuthOptions
from lait_core.engine.mcp.spec import unknown_server
from lait_core.engine.run.interaction import ApprovalRequest, Interaction
from lait_core.engine.tools.base import CallContext, ToolResult, tool_hints
from lait_core.engine.tools.mcp_tools import McpPool
from lait_core.engine.tools.tool_decision import decide
from lait_core.engine.tools.tool_policy import INTERACTIVE_DENIAL, Policy

if TYPE_CHECKING:
    from lait_core.engine.mcp.oauth.signin import SignIn
    from lait_core.engine.mcp.oauth.token_store import TokenStore

CALL_ID = "mcp-call-1"


class ToolRefused(McpError):
    """``tool_policy`` or the person (``--approve-tools``) refused the call."""


def configured_server(servers: Mapping[str, McpServerConfig], name: str) -> McpServerConfig:
    """The ``mcp_servers`` entry ``name``; an unknown name is a
    :class:`~lait_core.engine.llm.chat_types.ConfigurationError` that lists the configured ones."""
    server = servers.get(name)
    if server is None:
        raise unknown_server(name, servers)
    return server


@asynccontextmanager
async def open_server(
    servers: Mapping[str, McpServerConfig],
    name: str,
    *,
    base_dir: Path,
    sign_in: SignIn | None,
    environ: Mapping[str, str] | None = None,
    store: TokenStore | None = None,
    on_spawn: Callable[[int], None] | None = None,
    contained: bool = False,
) -> AsyncIterator[McpPool]:
    """A pool of the engine's MCP client (the connections chat, agents and workflows use) holding
    server ``name`` alone, for a command a person runs: ``sign_in`` shows an OAuth authorization
    URL (None: headless, a needed sign-in fails at once), ``environ`` and ``store`` default to
    ``os.environ`` and the keyring/token files, ``on_spawn`` sees each stdio server's process
    group. Nothing connects until the pool is used; every connection is closed on the way out.
    An unknown ``name`` raises :class:`~lait_core.engine.llm.chat_types.ConfigurationError` at once."""
    pool = McpPool(
        {name: configured_server(servers, name)},
        base_dir=base_dir,
        environ=environ,
        on_spawn=on_spawn,
        oauth=OAuthOptions(sign_in=sign_in, environ=environ, store=store),
        contained=contained,
    )
    try:
        yield pool
    finally:
        await pool.aclose()


async def call_tool(
    pool: McpPool,
    server: str,
    tool_name: str,
    arguments: str,
    interaction: Interaction,
    *,
    policy: Policy | None = None,
    approve: bool = False,
) -> ToolResult:
    """Call ``tool_name`` (the server's own name) of ``server`` with ``arguments`` (JSON text of an
    object; blank means none). Raises :class:`McpError` (unknown tool, refused, transport) and the
    loop's hard errors (:class:`~lait_core.engine.llm.chat_types.AllowedToolsError`,
    :class:`~lait_core.engine.llm.chat_types.ApprovalError`, ``ToolArgumentsError``)."""
    source = pool.source(server)
    tools = await source.list_tools()
    tool = next((t for t in tools if t.name == tool_name), None)
    if tool is None:
        offered = ", ".join(t.name for t in tools) or "no tools"
        raise McpError(server, f"has no tool '{tool_name}' (it offers: {offered})")
    verdict = decide(tool.qualified_name, policy or Policy(), refusal=source.refusal(tool), approve=approve)
    if verdict.outcome == "deny" and not verdict.hard:
        raise ToolRefused(server, f"calling '{tool.qualified_name}' was {verdict.message}")
    source.check(tool)
    if verdict.outcome == "ask":
        request = ApprovalRequest(
            tool.qualified_name,
            arguments or "{}",
            tool.kind.value,
            server,
            hints=tool_hints(tool.annotations),
        )
        decision = await interaction.approve(request)
        if not decision.allowed:
            raise ToolRefused(server, f"calling '{tool.qualified_name}' was {INTERACTIVE_DENIAL}")
    return await source.call(tool, arguments, CallContext(interaction, CALL_ID))
