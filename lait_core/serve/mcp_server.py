"""``lait serve --mcp``: the MCP server (docs/mcp.md, issue 15) on the SDK's low-level
server, which speaks both protocol eras (2025-era ``initialize`` sessions and 2026-07-28
per-request envelopes).

Capabilities: tools, and logging (2025 clients set the level with ``logging/setLevel``; 2026
clients choose it per request). Each step start/end and tool call of a served run is a
``notifications/progress`` (when the request carries a progress token) and an ``info`` log
message. Transports live in :mod:`lait_core.serve.transports`.
"""

from __future__ import annotations

import json
import sys
import warnings
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPDeprecationWarning, MCPError
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from lait_core import __version__
from lait_core.documents.document_models import Config
from lait_core.serve.call_interaction import ServedInteraction
from lait_core.serve.calls import CallError, Calls, Finished, NeedsInput, compact
from lait_core.serve.served_tools import ServedTool, ServedTools

DESCRIPTION = "The agents and workflows of a lait project, as tools."
_LEVELS = ("debug", "info", "notice", "warning", "error", "critical", "alert", "emergency")


@dataclass
class ServeOptions:
    approvals: bool = False
    """``serve.approvals: elicit``: tool calls of served runs ask the client's person."""
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    on_spawn: Callable[[int], None] | None = None
    records: Any = None
    """The shared ``RunRecords`` (cassette, replay, cache) of ``--record``/``--replay``/``--cache``."""
    trace_file: Path | None = None
    """``--trace-file``: rewritten after each call with every call's events so far."""


class LaitServer:
    """The tools and the shared services; :meth:`build` makes the SDK server over them."""

    def __init__(self, config: Config, config_dir: Path, tools: ServedTools, options: ServeOptions) -> None:
        from lait_core.engine.llm.client import ChatClient
        from lait_core.engine.tools.mcp_tools import McpPool

        self.config = config
        self.config_dir = config_dir
        self.tools = tools
        self.options = options
        self.calls = Calls()
        self.cache: dict[tuple[str, str], Any] = {}
        self.client = ChatClient()
        self.pool = McpPool(
            config.mcp_servers,
            base_dir=config_dir,
            stderr=options.stderr,
            on_spawn=options.on_spawn,
            contained=config.confine == "project",
        )
        self._levels: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
        self.stores: dict[str, Any] = {}
        """HTTP: each session's event store, by session id (:mod:`lait_core.serve.event_store`)."""
        self._trace_events: list[dict[str, Any]] = []

    async def aclose(self) -> None:
        try:
            await self.calls.aclose()
        finally:
            try:
                await self.pool.aclose()
            finally:
                await self.client.aclose()

    # -- the SDK server
    def build(self) -> Server[Any]:
        server: Server[Any] = Server(
            "lait",
            version=__version__,
            description=DESCRIPTION,
            on_list_tools=self._list_tools,
            on_call_tool=self._call_tool,
        )
        server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, self._set_level)
        # logging is deprecated at 2026-07-28 but still what 2025 clients use; the SDK warns on use
        warnings.filterwarnings("ignore", category=MCPDeprecationWarning)
        return server

    @staticmethod
    def _can_elicit(ctx: ServerRequestContext[Any]) -> bool:
        caps = ctx.session.client_capabilities
        return caps is not None and caps.elicitation is not None

    def offered(self, ctx: ServerRequestContext[Any]) -> list[ServedTool]:
        """The tools for this client: ``ask:`` workflows only when it can elicit."""
        can = self._can_elicit(ctx)
        return [t for t in self.tools.tools if can or not t.asks]

    async def _list_tools(
        self, ctx: ServerRequestContext[Any], params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return types.ListToolsResult(
            tools=[
                types.Tool(name=t.name, description=t.description, input_schema=t.input_schema)
                for t in self.offered(ctx)
            ]
        )

    async def _set_level(
        self, ctx: ServerRequestContext[Any], params: types.SetLevelRequestParams
    ) -> types.EmptyResult:
        self._levels[self._connection(ctx)] = params.level
        return types.EmptyResult()

    @staticmethod
    def _connection(ctx: ServerRequestContext[Any]) -> Any:
        # the session is per request; the SDK's connection object lives as long as the client's
        return getattr(ctx.session, "_connection", ctx.session)

    def _logs_info(self, ctx: ServerRequestContext[Any]) -> bool:
        if ctx.protocol_version in MODERN_PROTOCOL_VERSIONS:
            return True  # the SDK applies the request's own log level
        level = self._levels.get(self._connection(ctx), "info")
        return _LEVELS.index(level) <= _LEVELS.index("info") if level in _LEVELS else True

    async def _call_tool(
        self, ctx: ServerRequestContext[Any], params: types.CallToolRequestParams
    ) -> types.CallToolResult | types.InputRequiredResult:
        modern = ctx.protocol_version in MODERN_PROTOCOL_VERSIONS
        if params.request_state is not None or params.input_responses:
            if params.request_state is None:
                raise MCPError(types.INVALID_PARAMS, "inputResponses without a requestState")
            try:
                run = self.calls.resume(params.name, params.request_state, dict(params.input_responses or {}))
            except CallError as exc:
                raise MCPError(types.INVALID_PARAMS, f"lait serve: {exc}") from None
        else:
            tool = next((t for t in self.offered(ctx) if t.name == params.name), None)
            if tool is None:
                raise MCPError(types.INVALID_PARAMS, f"Unknown tool: {params.name}")
            arguments = dict(params.arguments or {})
            asker = self._legacy_asker(ctx) if self._can_elicit(ctx) else None
            run = self.calls.start(
                tool,
                lambda interaction: self._execute(tool, arguments, interaction),
                asker=asker,
                modern=modern,
                approvals=self.options.approvals,
            )
        pump = _Reporter(ctx, self._logs_info(ctx))
        dropped, resumed = self._stream_watch(ctx)
        try:
            outcome = await self.calls.outcome(run, pump.post, dropped=dropped, resumed=resumed)
        finally:
            await pump.close()
            self._stream_forget(ctx)
        if isinstance(outcome, Finished):
            if outcome.cancelled and self.calls.stop_reason is not None:
                # the server cancelled the run (stdin ended and the drain ran out): a protocol-level
                # end of the request, as the SDK's own "Connection closed", but saying why
                raise MCPError(types.CONNECTION_CLOSED, f"lait serve: {self.calls.stop_reason}")
            return types.CallToolResult(
                content=[types.TextContent(type="text", text=outcome.text)], is_error=outcome.is_error
            )
        assert isinstance(outcome, NeedsInput)
        requests: dict[str, types.InputRequest] = {
            key: types.ElicitRequest(
                params=types.ElicitRequestFormParams(message=q.message, requested_schema=q.schema)
            )
            for key, q in outcome.questions.items()
        }
        return types.InputRequiredResult(input_requests=requests, request_state=outcome.state)

    def _stream_watch(self, ctx: ServerRequestContext[Any]) -> tuple[Any, Any]:
        """HTTP: (set when the client dropped this request's stream, set when a client resumed
        it), or (None, None) (stdio; a JSON response)."""
        scope = getattr(ctx.request, "scope", None)
        if not isinstance(scope, dict) or DISCONNECTED not in scope or ctx.request_id is None:
            return None, None
        store = self.stores.get(scope_session(scope) or "")
        resumed = store.resumed(str(ctx.request_id)) if store is not None else None
        return scope[DISCONNECTED], resumed

    def _stream_forget(self, ctx: ServerRequestContext[Any]) -> None:
        scope = getattr(ctx.request, "scope", None)
        if isinstance(scope, dict) and ctx.request_id is not None:
            store = self.stores.get(scope_session(scope) or "")
            if store is not None:
                store.forget(str(ctx.request_id))

    def _legacy_asker(self, ctx: ServerRequestContext[Any]) -> Any:
        async def ask(message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
            import asyncio

            from lait_core.engine.llm.chat_types import ToolLoopError

            seconds = self.calls.park_seconds  # as long as a 2026-07-28 question stays parked
            try:
                result = await asyncio.wait_for(
                    ctx.session.elicit_form(message, schema, related_request_id=ctx.request_id), seconds
                )
            except TimeoutError:
                raise ToolLoopError(
                    f"the MCP client did not answer the question within {seconds:g} s; the run was stopped"
                ) from None
            content = result.content if isinstance(result.content, dict) else None
            return (result.action, content)

        return ask

    # -- running one call
    def _call_records(self) -> Any:
        """This call's records: the shared cassette/cache, and a trace of its own."""
        shared = self.options.records
        if shared is None and self.options.trace_file is None:
            return None
        from lait_core.engine.records.sender import RunRecords
        from lait_core.engine.records.trace_events import TraceRecorder

        records = RunRecords()
        if shared is not None:
            records.record, records.replay, records.cache = shared.record, shared.replay, shared.cache
        if self.options.trace_file is not None:
            records.trace = TraceRecorder()
        return records

    def _write_trace(self, tool: ServedTool, records: Any) -> None:
        """Spec 6: the call's events renumbered into a server-wide ``seq``, tagged
        ``lait.serve.tool``, and the whole file rewritten atomically (a failure only warns)."""
        path = self.options.trace_file
        if path is None or records is None or records.trace is None:
            return
        from lait_core.engine.records.record_files import atomic_write_text

        for event in records.trace.events:
            event["seq"] = len(self._trace_events)
            event["attributes"] = {**event["attributes"], "lait.serve.tool": tool.name}
            self._trace_events.append(event)
        text = "".join(
            json.dumps(e, ensure_ascii=False, separators=(",", ":")) + "\n" for e in self._trace_events
        )
        try:
            atomic_write_text(path, text)
        except OSError as exc:
            self.options.stderr.write(
                f"warning: cannot write the trace file '{path}': {exc.strerror or exc}\n"
            )

    async def _execute(
        self, tool: ServedTool, arguments: dict[str, Any], interaction: ServedInteraction
    ) -> str:
        records = self._call_records()
        try:
            return await self._run_call(tool, arguments, interaction, records)
        finally:
            self._write_trace(tool, records)

    async def _run_call(
        self, tool: ServedTool, arguments: dict[str, Any], interaction: ServedInteraction, records: Any
    ) -> str:
        from lait_core.engine.run.run_session import RunSession

        async with RunSession.open(
            self.config,
            self.config_dir,
            interaction,
            approve_tools=self.options.approvals,
            on_spawn=self.options.on_spawn,
            client=self.client,
            mcp=self.pool,
            cache=self.cache,
            mcp_stderr=self.options.stderr,
            denial_text="denied by the person at the MCP client",
            records=records,
        ) as session:
            if tool.kind == "workflow":
                return await _run_workflow(session, tool, arguments)
            return await _run_agent(session, tool, arguments, interaction)


async def _run_workflow(session: Any, tool: ServedTool, arguments: dict[str, Any]) -> str:
    from lait_core.engine.workflow import run_workflow
    from lait_core.engine.workflow.inputs import InputError

    prompt = arguments.get("input")
    if prompt is not None and not isinstance(prompt, str):
        prompt = compact(prompt)
    raw_inputs = arguments.get("inputs")
    if raw_inputs is not None and not isinstance(raw_inputs, dict):
        raise InputError("'inputs' must be an object of the workflow's declared inputs")
    inputs = {k: v if isinstance(v, str) else compact(v) for k, v in (raw_inputs or {}).items()}
    result = await run_workflow(session, tool.path, prompt=prompt, inputs=inputs)
    return result.text


async def _run_agent(
    session: Any, tool: ServedTool, arguments: dict[str, Any], interaction: ServedInteraction
) -> str:
    from lait_core.engine.llm.chat_types import ToolLoopError
    from lait_core.engine.tools.base import CallContext
    from lait_core.engine.tools.subagent import SubagentToolSource

    source = SubagentToolSource(session, [tool.key])
    (listed,) = await source.list_tools()
    result = await source.call(listed, compact(arguments), CallContext(interaction, f"serve-{tool.key}"))
    if result.is_error:
        raise ToolLoopError(result.text)
    return result.text


DISCONNECTED = "lait.disconnected"
"""The scope key of an :class:`asyncio.Event` set once the client has closed the request's
connection before its response ended (what a served call uses to notice a dropped stream)."""


def scope_session(scope: dict[str, Any]) -> str | None:
    """The ``mcp-session-id`` header of an ASGI scope."""
    for name, value in scope.get("headers") or []:
        if name == b"mcp-session-id":
            return bytes(value).decode("latin-1")
    return None


class _Reporter:
    """Sends a request's progress lines, in order, as progress notifications (when the request
    has a progress token) and ``info`` log messages, from a task of its own (events are
    synchronous calls inside the run)."""

    def __init__(self, ctx: ServerRequestContext[Any], logs: bool) -> None:
        import asyncio

        self._ctx = ctx
        self._logs = logs
        self._queue: asyncio.Queue[str | None] = asyncio.Queue()
        self._count = 0
        self._task = asyncio.ensure_future(self._pump())

    def post(self, line: str) -> None:
        self._queue.put_nowait(line)

    async def _pump(self) -> None:
        ctx = self._ctx
        while (line := await self._queue.get()) is not None:
            self._count += 1
            try:
                await ctx.session.report_progress(self._count, None, line)
                if self._logs:
                    await ctx.session.send_log_message(
                        "info", line, logger="lait", related_request_id=ctx.request_id
                    )
            except Exception:  # the client went away: the run's outcome decides what happens
                return

    async def close(self) -> None:
        import asyncio

        self._queue.put_nowait(None)
        try:
            await asyncio.wait_for(asyncio.shield(self._task), 5.0)
        except TimeoutError:
            self._task.cancel()
        except BaseException:
            self._task.cancel()
            raise


__all__ = ["LaitServer", "ServeOptions"]
