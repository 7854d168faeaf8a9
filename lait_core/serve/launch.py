"""Running ``lait serve --mcp`` (and ``--list``) once the CLI has loaded the config."""

from __future__ import annotations

import asyncio
import json
import signal
import socket
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from lait_core.documents.document_models import Config
from lait_core.serve.served_tools import ServedTools, build_tools


class ServeError(Exception):
    """A problem that stops the server before it starts (``lait: <message>``, exit 1)."""


@dataclass
class ServeRequest:
    http: str | None = None
    allowed_hosts: Sequence[str] = ()
    token: str | None = None
    insecure_no_token: bool = False
    """``--insecure-no-token``: allow a non-loopback ``--http`` address without a token."""
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    records: Any = None
    """Shared ``RunRecords`` (``--record``/``--replay``/``--cache``), or None."""
    trace_file: Path | None = None
    drain_seconds: float | None = None
    """stdio: how long requests read before stdin's end may take (None: the default)."""


def list_text(tools: ServedTools) -> str:
    """``--list``: each tool's name and description, then its input schema as one JSON line."""
    lines: list[str] = []
    for tool in tools.tools:
        lines.append(f"{tool.name}: {tool.description}")
        lines.append(f"  input schema: {json.dumps(tool.input_schema, ensure_ascii=False, sort_keys=True)}")
        if tool.asks:
            lines.append("  (has an 'ask:' step: offered only to clients that support elicitation)")
    return "".join(line + "\n" for line in lines)


def _startup_notes(tools: ServedTools, err: TextIO) -> None:
    for note in tools.notes:
        err.write(note + "\n")
    for tool in tools.tools:
        if tool.asks:
            err.write(
                f"lait serve: workflow '{tool.key}' has an 'ask:' step; it is offered only to clients "
                "that support elicitation (the question goes to the client's person)\n"
            )
    err.flush()


def serve(config: Config, config_dir: Path, request: ServeRequest) -> int:
    from lait_core.serve.transports import bind_socket, is_loopback, parse_addr

    err = request.stderr
    tools = build_tools(config, config_dir)
    _startup_notes(tools, err)
    sock: socket.socket | None = None
    if request.http is not None:
        try:
            host, port = parse_addr(request.http)
        except ValueError as exc:
            raise ServeError(str(exc)) from None
        if not is_loopback(host) and request.token is None:
            if not request.insecure_no_token:
                raise ServeError(
                    f"--http {request.http} listens beyond this machine: give --token-env VAR (every "
                    "request then needs its bearer token), or --insecure-no-token to serve anyone who can reach it"
                )
            err.write(
                f"warning: lait serve --http {request.http} has no token: anyone who can reach it can run "
                "the project's agents and workflows\n"
            )
        try:
            sock = bind_socket(host, port)
        except OSError as exc:
            raise ServeError(f"cannot listen on {request.http}: {exc.strerror or exc}") from None
    names = ", ".join(t.name for t in tools.tools) or "none"
    count = f"{len(tools.tools)} tool(s): {names}"

    def ready_stdio() -> None:
        err.write(f"lait serve --mcp: ready over stdio with {count}\n")
        err.flush()

    def ready_http(url: str) -> None:
        err.write(f"lait serve --mcp: ready at {url} with {count}\n")
        err.flush()

    async def main() -> None:
        from lait_core.serve.drain import DRAIN_SECONDS
        from lait_core.serve.mcp_server import LaitServer, ServeOptions
        from lait_core.serve.transports import serve_http, serve_stdio

        options = ServeOptions(
            approvals=config.serve.approvals == "elicit",
            stderr=err,
            records=request.records,
            trace_file=request.trace_file,
        )
        lait = LaitServer(config, config_dir, tools, options)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            loop.add_signal_handler(sig, stop.set)
        try:
            if sock is not None:
                work = asyncio.ensure_future(
                    serve_http(
                        lait,
                        sock,
                        allowed_hosts=request.allowed_hosts,
                        token=request.token,
                        ready=ready_http,
                        stop=stop,
                    )
                )
            else:
                drain = DRAIN_SECONDS if request.drain_seconds is None else request.drain_seconds
                work = asyncio.ensure_future(serve_stdio(lait, ready_stdio, drain))
            stopper = asyncio.ensure_future(stop.wait())
            await asyncio.wait([work, stopper], return_when=asyncio.FIRST_COMPLETED)
            stopper.cancel()
            if not work.done():
                if sock is None:
                    work.cancel()
                await asyncio.wait([work])
            if not work.cancelled():
                work.result()
        finally:
            await lait.aclose()

    try:
        asyncio.run(main())
    except (KeyboardInterrupt, asyncio.CancelledError):
        pass
    finally:
        if sock is not None:
            sock.close()
    return 0


__all__ = ["ServeError", "ServeRequest", "list_text", "serve"]
