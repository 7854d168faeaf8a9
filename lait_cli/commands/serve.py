"""`lait serve --mcp`: the project's agents and workflows as MCP tools (docs/mcp.md, issue 15).

A thin layer over :mod:`lait_core.serve`: options, the config, errors as ``lait: <message>``.
Top-level imports are typer and the standard library only.
"""

from __future__ import annotations

import os
import sys
from typing import Annotated

import typer

from lait_cli.support.common import fail
from lait_cli.support.options import (
    ApproveToolsOption,
    ConfigOption,
    NoConfigOption,
    RecordOption,
    ReplayOption,
    TraceFileOption,
    VerboseOption,
)

HELP = (
    "Serve the config's agents and workflows as MCP tools (agent__<name>, workflow__<name>) over "
    "stdio, or streamable HTTP with --http."
)


def register(app: typer.Typer) -> None:
    app.command(name="serve", help=HELP)(serve)


def serve(
    mcp: Annotated[bool, typer.Option("--mcp", help="Serve MCP (required: the only mode).")] = False,
    http: Annotated[
        str | None,
        typer.Option(
            "--http",
            metavar="ADDR",
            help="Serve streamable HTTP on HOST:PORT instead of stdio (port 0 picks a free port).",
        ),
    ] = None,
    allowed_host: Annotated[
        list[str] | None,
        typer.Option(
            "--allowed-host",
            metavar="HOST",
            help="Accept this Host (host or host:port) besides loopback (repeatable).",
        ),
    ] = None,
    token_env: Annotated[
        str | None,
        typer.Option(
            "--token-env", metavar="VAR", help="HTTP: require 'Authorization: Bearer $VAR' on every request."
        ),
    ] = None,
    insecure_no_token: Annotated[
        bool,
        typer.Option(
            "--insecure-no-token",
            help="HTTP: allow a non-loopback address without --token-env (anyone who reaches it may call).",
        ),
    ] = False,
    drain_timeout: Annotated[
        float | None,
        typer.Option(
            "--drain-timeout",
            metavar="SECONDS",
            min=0,
            help="stdio: when stdin ends, answer the requests already read, waiting at most SECONDS "
            "(default 30) for their runs; runs still going are then cancelled with a JSON-RPC error.",
        ),
    ] = None,
    list_: Annotated[
        bool, typer.Option("--list", help="Print the tools and their input schemas; serve nothing.")
    ] = False,
    record: RecordOption = None,
    replay: ReplayOption = None,
    trace_file: TraceFileOption = None,
    approve_tools: ApproveToolsOption = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
    verbose: VerboseOption = 0,
) -> None:
    from lait_cli.support.run_setup import Common, load_cli_config

    if not mcp:
        raise fail("lait serve needs --mcp (the only mode)", 2)
    if (allowed_host or token_env or insecure_no_token) and http is None and not list_:
        raise fail("--allowed-host, --token-env and --insecure-no-token apply to --http only", 2)
    if drain_timeout is not None and http is not None:
        raise fail("--drain-timeout applies to stdio only (not --http)", 2)
    token: str | None = None
    if token_env is not None:
        token = os.environ.get(token_env)
        if not token:
            raise fail(f"--token-env {token_env}: the environment variable is not set or empty", 2)
    common = Common(config, no_config, verbose, approve_tools).merged()
    if common.approve_tools:
        sys.stderr.write("note: --approve-tools is not honoured by lait serve (see serve.approvals)\n")
    loaded, folder = load_cli_config(common.config, common.no_config)

    from lait_core.serve.launch import ServeError, ServeRequest, list_text
    from lait_core.serve.launch import serve as run_server

    if list_:
        from lait_core.serve.served_tools import build_tools

        tools = build_tools(loaded, folder)
        for note in tools.notes:
            sys.stderr.write(note + "\n")
        sys.stdout.write(list_text(tools))
        raise typer.Exit(0)
    from pathlib import Path

    from lait_core.engine.records.record_options import RecordsRequest, RecordsSetupError, open_records

    # docs/mcp.md: --cache/--record/--replay apply to every call; nothing goes to `lait history`
    wanted = RecordsRequest(
        record, replay, None, common.cache, False, Path.cwd(), "lait serve --mcp --record DIR"
    )
    try:
        records = open_records(loaded, wanted)
    except RecordsSetupError as exc:
        raise fail(str(exc), 2) from None
    request = ServeRequest(
        http,
        list(allowed_host or []),
        token,
        insecure_no_token=insecure_no_token,
        records=records,
        trace_file=trace_file,
        drain_seconds=drain_timeout,
    )
    try:
        code = run_server(loaded, folder, request)
    except ServeError as exc:
        raise fail(str(exc)) from None
    raise typer.Exit(code)
