"""The tool loop (docs/workflows.md, docs/config.md).

::

    round = 0
    loop:
        round += 1; fail past max_tool_rounds
        maybe compact                                   (before sending; not a round)
        response = send(history, tools, no response_format)
        no tool calls -> done; with a response_format, re-send the same history once more with
                         it and without tools (not a round) and return that instead
        append the assistant tool-call message
        decide every call, one at a time (tool_policy, then --approve-tools)
        run the allowed calls, at most 8 at once; append results in the model's order

Soft failures (policy/interactive denials, failed shell commands, MCP ``isError``) become ``tool``
messages; hard failures (unknown tools, malformed arguments, ``allowed_tools``, transport errors,
approval errors) abort. Cancellation (``asyncio.CancelledError``) cancels every call in flight
-- shell tools kill and reap their process groups -- and propagates.

Deliberate choices beyond the reference behaviour:

* An unknown tool name is detected while deciding, before any call of that round runs (the
  reference ran the earlier calls of the doomed round first). A name ``tool_policy`` denies is
  still a soft denial, as in the reference.
* Compaction sends no summary request when there is nothing to drop, and never starts the kept
  tail with orphaned ``tool`` messages: it keeps their assistant ``tool_calls`` message too.
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from lait_core.documents.document_models import CompactionConfig
from lait_core.engine.llm.chat_types import (
    AllowedToolsError,
    ChatRequest,
    ChatResponse,
    ConfigurationError,
    DeltaKind,
    DeltaSink,
    JsonObject,
    MaxToolRoundsExceeded,
    Message,
    Sampling,
    ToolCall,
    ToolDefinition,
    UnknownToolError,
    Usage,
    assistant_message,
    assistant_tool_calls_message,
    tool_message,
    user_message,
)
from lait_core.engine.run.interaction import (
    ApprovalDecision,
    ApprovalRequest,
    Compacted,
    Interaction,
    ReasoningDelta,
    RoundStarted,
    StreamEnded,
    TextDelta,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallStarted,
    UsageReported,
)
from lait_core.engine.tools.base import CallContext, Tool, ToolKind, ToolSet, tool_hints
from lait_core.engine.tools.standing_grants import GRANTS_FILE, Grants
from lait_core.engine.tools.tool_decision import decide, read_only_reason
from lait_core.engine.tools.tool_policy import INTERACTIVE_DENIAL, Policy

if TYPE_CHECKING:
    from lait_core.engine.records.trace_events import Span, TraceRecorder

DEFAULT_MAX_TOOL_ROUNDS = 8
MAX_PARALLEL_CALLS = 8

COMPACTION_INSTRUCTION = (
    "Summarize the conversation so far concisely for your own later use: the goal, what was tried, "
    "what was learned (including key facts from tool results), and what remains to be done. This "
    "summary will replace the conversation history, so include everything needed to continue."
)
SUMMARY_PREFIX = "(summary of the conversation so far, produced by compaction: "


class Sender(Protocol):
    """Sends one request; :class:`~lait_core.engine.llm.client.ModelCaller` is the live one. A cache or
    record/replay layer wraps ``complete`` (streams are never cached)."""

    async def complete(self, request: ChatRequest) -> ChatResponse: ...

    async def stream(self, request: ChatRequest, on_delta: DeltaSink | None = None) -> ChatResponse: ...


@dataclass(slots=True)
class LoopOptions:
    max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS
    response_format: JsonObject | None = None
    sampling: Sampling = field(default_factory=Sampling)
    stream: bool = False
    include_usage: bool = False
    """Streams request ``stream_options.include_usage`` (also implied by ``trigger_tokens``)."""
    approve_tools: bool = False
    policy: Policy = field(default_factory=Policy)
    compaction: CompactionConfig | None = None
    compaction_sender: Sender | None = None
    """The summarizer (``compaction.model``); default: the loop's own sender."""
    max_parallel: int = MAX_PARALLEL_CALLS
    denial_text: str = INTERACTIVE_DENIAL
    """The tool result of a call the person denied (the editor names itself, not the CLI flag)."""
    trace: TraceRecorder | None = None
    """Receives an ``execute_tool`` event per call and a ``compact`` event per compaction."""
    read_only_servers: tuple[str, ...] = ()
    """``approvals.read_only``: servers whose read-only-annotated tools run without asking."""
    grants: Grants | None = None
    """The project's standing grants: they answer an approval instead of the person, and an
    "always" answer is kept there (None: "always" lasts for the process)."""


@dataclass(slots=True)
class LoopResult:
    response: ChatResponse
    """The final answer (with a response_format: the structured re-issue)."""
    messages: list[Message]
    """The history the final answer was produced from (tool rounds included, answer excluded)."""
    usage: Usage
    """Every request's usage summed: tool rounds, the discarded tool-free answer, the re-issue and
    compaction summaries."""
    rounds: int
    requests: int


@dataclass(slots=True)
class _ToolSpan:
    """An ``execute_tool`` trace event: timed when the call ends, added to the trace after the whole
    round in the model's order of the calls (parallel calls finish in any order; the trace of two
    runs of the same recording must not differ)."""

    span: Span
    label: str
    attributes: dict[str, object]
    end: dt.datetime | None = None

    def finish(self) -> None:
        from lait_core.engine.records.record_files import utc_now

        self.end = utc_now()

    def commit(self) -> None:
        if self.end is not None:
            self.span.recorder.add(
                "execute_tool", self.label, self.span.start, self.end, dict(self.attributes)
            )


@dataclass(frozen=True, slots=True)
class _Decision:
    tool: Tool | None
    denial: str | None


class ToolLoop:
    """One run of the loop; create a new one per request."""

    def __init__(
        self,
        sender: Sender,
        tools: ToolSet,
        interaction: Interaction,
        options: LoopOptions | None = None,
    ) -> None:
        self.sender = sender
        self.tools = tools
        self.interaction = interaction
        self.options = options or LoopOptions()
        self.usage = Usage()
        self.requests = 0
        self._definitions: tuple[ToolDefinition, ...] = tools.definitions()
        self._last_prompt_tokens: int | None = None

    # -- sending
    def _include_usage(self) -> bool:
        c = self.options.compaction
        return self.options.include_usage or (c is not None and c.trigger_tokens is not None)

    def _on_delta(self, kind: DeltaKind, text: str) -> None:
        self.interaction.event(TextDelta(text) if kind == "content" else ReasoningDelta(text))

    def _count(self, response: ChatResponse, round_number: int | None) -> None:
        self.requests += 1
        if response.usage is not None:
            self.usage = self.usage + response.usage
            self.interaction.event(UsageReported(response.usage, round_number, self._cost(response.usage)))

    def _cost(self, usage: Usage) -> float | None:
        """USD by the sender's model ``pricing`` (None when it has none)."""
        model = getattr(self.sender, "model", None)
        primary = getattr(model, "primary", None)
        pricing = getattr(primary, "pricing", None)
        if pricing is None:
            return None
        per_1m = usage.prompt_tokens * float(pricing.input_per_1m) + usage.completion_tokens * float(
            pricing.output_per_1m
        )
        return per_1m / 1e6

    async def _send(
        self,
        messages: list[Message],
        tools: tuple[ToolDefinition, ...],
        response_format: JsonObject | None,
        round_number: int | None,
        *,
        reissue: bool = False,
    ) -> ChatResponse:
        request = ChatRequest(
            list(messages),
            tools,
            response_format,
            self.options.sampling,
            stream=self.options.stream,
            include_usage=self.options.stream and self._include_usage(),
        )
        if self.options.stream:
            response = await self.sender.stream(request, self._on_delta)
            self.interaction.event(StreamEnded(final=reissue or not response.tool_calls))
        else:
            response = await self.sender.complete(request)
        self._count(response, round_number)
        if response.usage is not None:
            self._last_prompt_tokens = response.usage.prompt_tokens
        return response

    # -- the loop
    async def run(self, messages: Sequence[Message]) -> LoopResult:
        history = list(messages)
        rf = self.options.response_format
        if not self.tools:
            # one request is round 1: a long history (a chat session) is compacted like a tool round's
            history = await self._maybe_compact(history, 1)
            response = await self._send(history, (), rf, None, reissue=True)
            return LoopResult(response, history, self.usage, 0, self.requests)
        limit = self.options.max_tool_rounds
        if limit < 1:
            raise ConfigurationError(f"max_tool_rounds must be at least 1, got {limit}")
        round_number = 0
        while True:
            round_number += 1
            if round_number > limit:
                raise MaxToolRoundsExceeded(limit)
            history = await self._maybe_compact(history, round_number)
            self.interaction.event(RoundStarted(round_number))
            response = await self._send(history, self._definitions, None, round_number)
            if not response.tool_calls:
                if rf is not None:
                    response = await self._send(history, (), rf, None, reissue=True)
                return LoopResult(response, history, self.usage, round_number, self.requests)
            calls = list(response.tool_calls)
            history.append(assistant_tool_calls_message(response.content, calls))
            decisions = [await self._decide(call) for call in calls]
            results = await self._execute(calls, decisions, round_number)
            history.extend(tool_message(call.id, text) for call, text in zip(calls, results, strict=True))

    async def _decide(self, call: ToolCall) -> _Decision:
        tool = self.tools.lookup(call.name)
        grants = self.options.grants
        key = tool.source.grant_key(tool) if tool is not None else (None, None)
        grant = grants.find(call.name, *key) if grants is not None and self.options.approve_tools else None
        verdict = decide(
            call.name,
            self.options.policy,
            refusal=tool.source.refusal(tool) if tool is not None else None,
            approve=self.options.approve_tools,
            granted=None if grant is None else f"granted {grant.granted} in {GRANTS_FILE}",
            read_only=read_only_reason(tool.server, tool.annotations, self.options.read_only_servers)
            if tool is not None
            else None,
        )
        if verdict.outcome == "deny" and not verdict.hard:
            return _Decision(None, verdict.message)
        if tool is None:
            raise UnknownToolError(call.name)
        if verdict.hard:
            raise AllowedToolsError(verdict.message)  # before anyone is asked
        if verdict.outcome == "ask":
            command = tool.source.preview(tool, call.arguments) if tool.kind is ToolKind.SHELL else None
            request = ApprovalRequest(
                call.name,
                call.arguments,
                tool.kind.value,
                tool.server,
                command,
                hints=tool_hints(tool.annotations),
            )
            decision = await self.interaction.approve(request)
            if not decision.allowed:
                return _Decision(None, self.options.denial_text)
            if decision is ApprovalDecision.SESSION and grants is not None:
                grants.add(call.name, *key)  # "always": kept for the project
        return _Decision(tool, None)

    def _trace_tool(self, call: ToolCall, round_number: int, denial: str | None) -> _ToolSpan | None:
        trace = self.options.trace
        if trace is None:
            return None
        from lait_core.engine.records.labels import current_label

        attributes = {
            "gen_ai.tool.name": call.name,
            "gen_ai.tool.call.id": call.id,
            "gen_ai.tool.arguments": call.arguments,
            "lait.step.label": current_label(),
            "lait.tool.round": round_number,
            "lait.tool.decision": "denied" if denial is not None else "allowed",
        }
        if denial is not None:
            attributes["lait.tool.denial_reason"] = denial
        return _ToolSpan(trace.span(), f"tool '{call.name}'", attributes)

    async def _execute(
        self, calls: list[ToolCall], decisions: list[_Decision], round_number: int
    ) -> list[str]:
        gate = asyncio.Semaphore(max(1, self.options.max_parallel))
        interaction = self.interaction
        spans: list[_ToolSpan | None] = [None] * len(calls)

        async def run_one(position: int, call: ToolCall, decision: _Decision) -> str:
            if decision.tool is None:
                reason = decision.denial or self.options.denial_text
                interaction.event(ToolCallDenied(call.id, call.name, reason))
                denied = spans[position] = self._trace_tool(call, round_number, reason)
                if denied is not None:
                    denied.finish()
                return reason
            tool = decision.tool
            async with gate:
                span = spans[position] = self._trace_tool(call, round_number, None)
                interaction.event(ToolCallStarted(call.id, call.name, call.arguments))
                result = await tool.source.call(tool, call.arguments, CallContext(interaction, call.id))
                interaction.event(ToolCallFinished(call.id, call.name, result.text, result.is_error))
                if span is not None:
                    span.attributes["lait.tool.is_error"] = result.is_error
                    span.finish()
                return result.text

        tasks = [
            asyncio.create_task(run_one(i, c, d))
            for i, (c, d) in enumerate(zip(calls, decisions, strict=True))
        ]
        try:
            # a call that raises (arguments that are not a JSON object, an MCP transport error...)
            # ends the round at once: its siblings still running are cancelled below
            await asyncio.wait(tasks, return_when=asyncio.FIRST_EXCEPTION)
            for task in tasks:
                failure = task.exception() if task.done() and not task.cancelled() else None
                if failure is not None:
                    raise failure
            results = [task.result() for task in tasks]
            for span in spans:
                if span is not None:
                    span.commit()
            return results
        finally:
            pending = [t for t in tasks if not t.done()]
            for task in pending:
                task.cancel()
            if pending:
                await asyncio.wait(pending)
            for task in tasks:  # retrieve every outcome so none is reported as never retrieved
                if not task.cancelled():
                    task.exception()

    # -- compaction (docs/config.md)
    def _compaction_due(self, round_number: int) -> bool:
        c = self.options.compaction
        if c is None:
            return False
        if c.trigger_rounds is None and c.trigger_tokens is None:
            raise ConfigurationError(
                "'default.compaction' in lait.config.yml needs 'trigger_rounds' or 'trigger_tokens'"
            )
        for key in ("trigger_rounds", "trigger_tokens"):
            value = getattr(c, key)
            if value is not None and value < 1:
                raise ConfigurationError(f"'default.compaction.{key}' must be at least 1, got {value}")
        if c.trigger_rounds is not None and round_number % c.trigger_rounds == 0:
            return True
        return (
            c.trigger_tokens is not None
            and self._last_prompt_tokens is not None
            and self._last_prompt_tokens >= c.trigger_tokens
        )

    async def _maybe_compact(self, history: list[Message], round_number: int) -> list[Message]:
        if not self._compaction_due(round_number):
            return history
        c = self.options.compaction
        assert c is not None
        system = history[:1] if history and history[0].get("role") == "system" else []
        rest = history[len(system) :]
        keep = c.keep_last_n
        if len(rest) <= keep:
            return history
        start = len(rest) - keep
        while start > 0 and start < len(rest) and rest[start].get("role") == "tool":
            start -= 1  # keep the assistant message whose tool_calls these results answer
        if start == 0:
            return history
        sender = self.options.compaction_sender or self.sender
        trace = self.options.trace
        span = trace.span() if trace is not None else None
        request = ChatRequest(
            [*history, user_message(COMPACTION_INSTRUCTION)], (), None, self.options.sampling
        )
        response = await sender.complete(request)
        self._count(response, None)
        summary = response.content or ""
        rebuilt = [*system, assistant_message(f"{SUMMARY_PREFIX}{summary})"), *rest[start:]]
        self.interaction.event(Compacted(round_number, len(history), len(rebuilt)))
        if span is not None:
            from lait_core.engine.records.labels import current_label

            span.done(
                "compact",
                current_label(),
                {
                    "lait.compaction.round": round_number,
                    "messages_before": len(history),
                    "messages_after": len(rebuilt),
                },
            )
        self._last_prompt_tokens = None
        return rebuilt


async def run_tool_loop(
    sender: Sender,
    messages: Sequence[Message],
    tools: ToolSet,
    interaction: Interaction,
    options: LoopOptions | None = None,
) -> LoopResult:
    """Run the loop once (see :class:`ToolLoop`)."""
    return await ToolLoop(sender, tools, interaction, options).run(messages)
