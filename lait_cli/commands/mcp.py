"""`lait mcp list`, `lait mcp tools NAME` and `lait mcp call SERVER TOOL [JSON]`: what the
configured MCP servers offer the model, and one call made by hand.

``list`` prints the ``mcp_servers:`` entries of the config in use (transport, target, the
``allowed_tools`` restriction, elicitation; ``*`` marks the servers of ``default.mcp``) without
starting anything. ``tools NAME`` connects to
one server through the engine's :class:`~lait_core.engine.tools.mcp_tools.McpPool` (the same client chat,
agents and workflows use), lists its tools and prints them as the model sees them: the qualified
name, the description and the ``inputSchema`` sent verbatim as ``parameters``. ``--json`` prints
machine-readable forms (for ``tools``: the exact entries of the request's ``tools`` array).

``call`` connects the same way (:func:`lait_core.engine.mcp.direct.open_server`, as ``tools``
and ``login`` do) and calls one tool through
:func:`lait_core.engine.mcp.direct.call_tool` (the loop's gates: ``tool_policy``, ``allowed_tools``,
``--approve-tools``, elicitation); it prints the result as the model would see it, or with
``--json`` the ``tools/call`` result, and exits 1 when the result has ``isError: true``.

Errors are one ``lait: <message>`` line: 3 for unreadable or invalid config files, 1 for an
unknown server or a server that fails to start, list or answer. Top-level imports are typer and
the standard library only; the MCP SDK and httpx are imported when ``tools`` runs.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lait_cli.support.common import GLOBALS, fail
from lait_cli.support.mcp_lock import lock_command
from lait_cli.support.mcp_servers import LoadedServers, load_servers, run_interrupted
from lait_cli.support.options import ConfigOption, NoConfigOption

if TYPE_CHECKING:
    from lait_cli.support.terminal import Interrupts
    from lait_core.documents.document_models import McpServerConfig
    from lait_core.engine.tools.base import Tool, ToolResult

mcp_app = typer.Typer(
    name="mcp",
    help="Show the configured MCP servers and their tools; call a tool.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    app.add_typer(mcp_app, name="mcp", help="Show the configured MCP servers and their tools; call a tool.")


JsonFlag = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]


def transport(server: McpServerConfig) -> str:
    """``stdio``, ``http``, or ``invalid`` (both or neither of ``command`` and ``url``)."""
    if (server.command is None) == (server.url is None):
        return "invalid"
    return "stdio" if server.command is not None else "http"


def target(server: McpServerConfig) -> str:
    """What is started or contacted, as written in the config (``${VAR}`` is not expanded here)."""
    kind = transport(server)
    if kind == "stdio":
        assert server.command is not None
        return " ".join(_shell_word(w) for w in (server.command, *server.args))
    if kind == "http":
        assert server.url is not None
        from lait_core.support.redact import redact_url

        return redact_url(server.url)
    if server.command is None:
        return "neither 'command' nor 'url' is set"
    return "both 'command' and 'url' are set"


def _shell_word(word: str) -> str:
    if word and all(c.isalnum() or c in "@%+=:,./_-${}" for c in word):
        return word
    return "'" + word.replace("'", "'\\''") + "'"


def allowed_text(allowed: list[str] | None) -> str:
    if allowed is None:
        return "all tools"
    if not allowed:
        return "no tools ([])"
    return ", ".join(allowed)


def server_json(name: str, server: McpServerConfig) -> dict[str, Any]:
    """Environment and header *values* are left out: they often hold credentials."""
    entry: dict[str, Any] = {"name": name, "transport": transport(server)}
    if server.command is not None:
        entry["command"] = server.command
        entry["args"] = list(server.args)
        if server.cwd is not None:
            entry["cwd"] = server.cwd
        entry["env"] = sorted(server.env)
    if server.url is not None:
        from lait_core.support.redact import redact_url

        entry["url"] = redact_url(server.url)
        entry["headers"] = sorted(server.headers)
    entry["allowed_tools"] = server.allowed_tools
    entry["allow_elicitation"] = server.allow_elicitation
    return entry


# -- lait mcp list -------------------------------------------------------------------------------
@mcp_app.command(
    name="list", help="List the configured MCP servers (nothing is started); '*' marks those in default.mcp."
)
def list_servers(
    as_json: JsonFlag = False, config: ConfigOption = None, no_config: NoConfigOption = False
) -> None:
    loaded = load_servers(config, no_config).config
    servers = loaded.mcp_servers
    defaults = set(loaded.default.mcp or [])
    if as_json:
        entries = [{**server_json(name, s), "default": name in defaults} for name, s in servers.items()]
        sys.stdout.write(json.dumps(entries, indent=2, ensure_ascii=False) + "\n")
        return
    if not servers:
        sys.stderr.write(
            "no MCP servers are configured; define them under 'mcp_servers:' in lait.config.yml\n"
        )
        return
    name_width = max(len(n) for n in servers)
    for name, server in servers.items():
        kind = transport(server)
        mark = "*" if name in defaults else " "
        sys.stdout.write(f"{mark} {name:<{name_width}}  {kind:<7}  {target(server)}\n")
        pad = " " * (name_width + 4)
        sys.stdout.write(f"{pad}allowed_tools: {allowed_text(server.allowed_tools)}\n")
        if server.allow_elicitation:
            sys.stdout.write(f"{pad}allow_elicitation: true\n")


# -- lait mcp tools NAME ---------------------------------------------------------------------------
@mcp_app.command(
    name="tools",
    help="Connect to one MCP server and print its tools as the model sees them: qualified name, "
    "description and parameters (the server's inputSchema, verbatim).",
)
def list_tools(
    name: Annotated[str, typer.Argument(metavar="NAME", help="A server name from 'mcp_servers:'.")],
    as_json: JsonFlag = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    loaded = load_servers(config, no_config)
    tools = run_fetch(loaded, name)
    allowed = loaded.config.mcp_servers[name].allowed_tools
    if as_json:
        payload = {
            "server": name,
            "allowed_tools": allowed,
            "tools": [t.definition().wire() for t in tools],
        }
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
        return
    sys.stdout.write(render_tools(tools, allowed))
    count = f"{len(tools)} tool{'' if len(tools) == 1 else 's'}"
    sys.stderr.write(f"mcp_servers.{name}: {count}; allowed_tools: {allowed_text(allowed)}\n")


def run_fetch(loaded: LoadedServers, name: str) -> list[Tool]:
    """Connect (through the engine's pool), list, and close the server again; errors exit as
    :func:`run_interrupted` says."""
    from lait_core.engine.mcp.direct import open_server
    from lait_core.engine.mcp.oauth.signin import terminal_presenter

    async def fetch(interrupts: Interrupts) -> list[Tool]:
        async with open_server(
            loaded.config.mcp_servers,
            name,
            base_dir=loaded.config_dir,
            sign_in=terminal_presenter(sys.stdin, sys.stderr),
            on_spawn=interrupts.on_spawn,
            contained=loaded.config.confine == "project",
        ) as pool:
            return await pool.source(name).list_tools()

    return run_interrupted(fetch)


def render_tools(tools: list[Tool], allowed: list[str] | None) -> str:
    """One block per tool: the qualified name, the description and the parameters as indented
    JSON; a tool outside ``allowed_tools`` is marked (the model is offered it, calls are refused)."""
    blocks = []
    for tool in tools:
        lines = [tool.qualified_name]
        if allowed is not None and tool.name not in allowed:
            lines[0] += "  (not in allowed_tools: calls are refused)"
        if tool.description:
            lines.extend(f"    {line}" for line in tool.description.splitlines())
        schema = json.dumps(tool.parameters, indent=2, ensure_ascii=False)
        lines.append("    parameters: " + schema.replace("\n", "\n    "))
        blocks.append("\n".join(lines) + "\n")
    return "\n".join(blocks)


# -- lait mcp call SERVER TOOL [JSON] --------------------------------------------------------------
@mcp_app.command(
    name="call",
    help="Call one tool of an MCP server with JSON arguments, through the same allowed_tools, "
    "tool_policy, --approve-tools and elicitation handling as a model's call; prints the result.",
)
def call(
    name: Annotated[str, typer.Argument(metavar="SERVER", help="A server name from 'mcp_servers:'.")],
    tool: Annotated[str, typer.Argument(metavar="TOOL", help="The server's own tool name.")],
    arguments: Annotated[
        str | None,
        typer.Argument(
            metavar="[JSON]", help="The arguments: a JSON object (default: none); '-' reads stdin."
        ),
    ] = None,
    as_json: Annotated[
        bool,
        typer.Option("--json", help="Print the tools/call result (content, structuredContent, isError)."),
    ] = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    text = _call_arguments(arguments)
    loaded = load_servers(config, no_config)
    result = run_call(loaded, name, tool, text)
    if as_json:
        payload = result.data if result.data is not None else {"content": [], "isError": result.is_error}
        sys.stdout.write(json.dumps(payload, indent=2, ensure_ascii=False) + "\n")
    else:
        sys.stdout.write(result.text + ("" if result.text.endswith("\n") or not result.text else "\n"))
    if result.is_error:
        raise typer.Exit(1)


def _call_arguments(arguments: str | None) -> str:
    """The JSON text of the arguments, checked to be an object (exit 2 otherwise)."""
    if arguments is None:
        return ""
    if arguments == "-":
        from lait_core.syntax.bounded_read import StreamTooLarge, read_stream

        try:
            data = read_stream(sys.stdin.buffer) if sys.stdin is not None else b""
            arguments = data.decode("utf-8")
        except StreamTooLarge as exc:
            raise fail(f"standard input is larger than {exc}; lait reads at most that much", 2) from None
        except UnicodeDecodeError:
            raise fail("standard input is not UTF-8 text", 2) from None
    try:
        value = json.loads(arguments) if arguments.strip() else None
    except ValueError as exc:
        raise fail(f"the tool arguments are not valid JSON: {exc}", 2) from None
    if value is not None and not isinstance(value, dict):
        raise fail("the tool arguments must be a JSON object, like '{\"a\": 1}'", 2)
    return arguments


def run_call(loaded: LoadedServers, name: str, tool: str, arguments: str) -> ToolResult:
    """One call; errors exit as :func:`run_interrupted` says."""
    from lait_cli.support.terminal import ChatTerminal
    from lait_core.engine.mcp.direct import call_tool, open_server
    from lait_core.engine.mcp.oauth.signin import presenter_of
    from lait_core.engine.tools.tool_policy import Policy

    _configured(loaded, name)
    interaction = ChatTerminal(verbosity=GLOBALS.verbose)

    async def go(interrupts: Interrupts) -> ToolResult:
        async with open_server(
            loaded.config.mcp_servers,
            name,
            base_dir=loaded.config_dir,
            sign_in=presenter_of(interaction),
            on_spawn=interrupts.on_spawn,
            contained=loaded.config.confine == "project",
        ) as pool:
            return await call_tool(
                pool,
                name,
                tool,
                arguments,
                interaction,
                policy=Policy.from_config(loaded.config.tool_policy),
                approve=GLOBALS.approve_tools,
            )

    return run_interrupted(go)


# -- lait mcp login NAME / logout NAME -------------------------------------------------------------
NameArgument = Annotated[str, typer.Argument(metavar="NAME", help="A 'url:' server from 'mcp_servers:'.")]


@mcp_app.command(
    name="login",
    help="Sign in to a 'url:' MCP server (OAuth): print the authorization URL, wait for the browser "
    "to come back, store the tokens (OS keyring, else a 0600 file). Ctrl-C cancels.",
)
def login_command(name: NameArgument, config: ConfigOption = None, no_config: NoConfigOption = False) -> None:
    import os

    from lait_core.engine.mcp.oauth.login import login
    from lait_core.engine.mcp.oauth.signin import TerminalSignIn

    loaded = load_servers(config, no_config)
    server = _configured(loaded, name)
    result = run_interrupted(
        lambda interrupts: login(
            name,
            server,
            base_dir=loaded.config_dir,
            environ=os.environ,
            presenter=TerminalSignIn(sys.stderr),
            on_spawn=interrupts.on_spawn,
        ),
        interrupted="sign-in cancelled",
    )
    count = f"{result.tools} tool{'' if result.tools == 1 else 's'}"
    if result.signed_in:
        sys.stderr.write(
            f"mcp_servers.{name}: signed in ({count}); tokens stored in the {result.store} store\n"
        )
    else:
        sys.stderr.write(f"mcp_servers.{name}: the server did not ask for sign-in ({count})\n")


@mcp_app.command(
    name="logout", help="Forget the stored OAuth tokens and client registration of a 'url:' MCP server."
)
def logout_command(
    name: NameArgument, config: ConfigOption = None, no_config: NoConfigOption = False
) -> None:
    import os

    from lait_core.engine.llm.chat_types import EngineError
    from lait_core.engine.mcp.oauth.login import logout

    loaded = load_servers(config, no_config)
    server = _configured(loaded, name)
    try:
        removed = logout(name, server, os.environ)
    except EngineError as exc:
        raise fail(str(exc), 1) from None
    sys.stderr.write(f"mcp_servers.{name}: {'signed out' if removed else 'was not signed in'}\n")


def _configured(loaded: LoadedServers, name: str) -> McpServerConfig:
    """The server's entry; an unknown name exits 1."""
    from lait_core.engine.llm.chat_types import ConfigurationError
    from lait_core.engine.mcp.direct import configured_server

    try:
        return configured_server(loaded.config.mcp_servers, name)
    except ConfigurationError as exc:
        raise fail(str(exc), 1) from None


# -- lait mcp lock [NAME...] ----------------------------------------------------------------------

mcp_app.command(
    name="lock",
    help="Pin the configured MCP servers' tools (names, descriptions, schemas, annotations, a hash) in "
    "lait.lock; runs then refuse a server whose tools drift. --update re-pins after showing the "
    "difference; --check only compares (exit 1 on drift, for CI).",
)(lock_command)
