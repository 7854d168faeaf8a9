"""Plain data of the engine: chat messages, requests, responses, usage, and the error types.

Messages are kept as JSON-ready dicts (exactly what goes on the wire), built by the helpers
below, so a request body, a cache key and a test assertion all see the same thing.

Error classes follow how the CLI classifies failures (by type, never by message text):

* :class:`LlmError` -- a model API error (exit code 4): HTTP status, connection, timeout,
  malformed or empty responses.
* :class:`ToolLoopError` and its subclasses -- errors that abort the tool loop (exit code 1):
  unknown tool, malformed arguments, ``max_tool_rounds``, name collisions, approval errors.
* Cancellation is asyncio's own ``CancelledError``; the caller maps it (130 after SIGINT, else 5).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from lait_core.syntax.diagnostics import Diagnostic

Message = dict[str, Any]
JsonObject = dict[str, Any]
DeltaKind = Literal["content", "reasoning"]
DeltaSink = Callable[[DeltaKind, str], None]
"""Receives streamed text as it arrives: ``("content", text)`` or ``("reasoning", text)``."""

U64_MAX = 2**64 - 1
U32_MAX = 2**32 - 1
"""The largest ``max_tokens`` lait accepts."""
REASONING_EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh")
"""The ``reasoning_effort`` values lait accepts and sends."""


def system_message(content: str) -> Message:
    return {"role": "system", "content": content}


def user_message(content: str | list[JsonObject]) -> Message:
    return {"role": "user", "content": content}


def assistant_message(content: str) -> Message:
    return {"role": "assistant", "content": content}


def assistant_tool_calls_message(content: str | None, calls: list[ToolCall]) -> Message:
    """The assistant turn that requested tools.

    ``content`` is always a string -- ``""`` when the model wrote nothing -- because some servers
    (llama-cpp-python) answer HTTP 500 to a ``null`` or missing ``content`` next to ``tool_calls``.
    """
    return {
        "role": "assistant",
        "content": content or "",
        "tool_calls": [c.wire() for c in calls],
    }


def tool_message(call_id: str, content: str) -> Message:
    return {"role": "tool", "tool_call_id": call_id, "content": content}


@dataclass(frozen=True, slots=True)
class ToolCall:
    """One tool call as the model produced it; ``arguments`` is the raw JSON text."""

    id: str
    name: str
    arguments: str

    def wire(self) -> JsonObject:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True, slots=True)
class Usage:
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            min(self.prompt_tokens + other.prompt_tokens, U64_MAX),
            min(self.completion_tokens + other.completion_tokens, U64_MAX),
            min(self.total_tokens + other.total_tokens, U64_MAX),
        )

    @classmethod
    def parse(cls, value: Any) -> Usage | None:
        """Read a ``usage`` object; every missing or invalid field counts as 0."""
        if not isinstance(value, dict):
            return None

        def num(key: str) -> int:
            v = value.get(key)
            return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else 0

        return cls(num("prompt_tokens"), num("completion_tokens"), num("total_tokens"))

    def as_dict(self) -> JsonObject:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.total_tokens,
        }


@dataclass(frozen=True, slots=True)
class Sampling:
    """Sampling settings of one request; ``None`` fields are not sent."""

    reasoning_effort: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None


@dataclass(frozen=True, slots=True)
class ToolDefinition:
    """A tool offered to the model, under its qualified name."""

    name: str
    description: str | None
    parameters: JsonObject

    def wire(self) -> JsonObject:
        function: JsonObject = {"name": self.name}
        if self.description is not None:
            function["description"] = self.description
        function["parameters"] = self.parameters
        return {"type": "function", "function": function}


@dataclass(frozen=True, slots=True)
class ChatRequest:
    """Everything of one Chat Completions request except the endpoint it goes to."""

    messages: list[Message]
    tools: tuple[ToolDefinition, ...] = ()
    response_format: JsonObject | None = None
    sampling: Sampling = field(default_factory=Sampling)
    stream: bool = False
    include_usage: bool = False

    def body(self, model_id: str) -> JsonObject:
        """The JSON body of a Chat Completions request. ``tools`` is omitted when empty; with tools,
        ``tool_choice: "auto"`` is sent explicitly (llama-cpp-python ignores tools without it)."""
        body: JsonObject = {"model": model_id, "messages": self.messages, "stream": self.stream}
        if self.stream and self.include_usage:
            body["stream_options"] = {"include_usage": True}
        s = self.sampling
        if s.reasoning_effort is not None:
            body["reasoning_effort"] = s.reasoning_effort
        if s.temperature is not None:
            body["temperature"] = s.temperature
        if s.top_p is not None:
            body["top_p"] = s.top_p
        if s.max_tokens is not None:
            body["max_completion_tokens"] = s.max_tokens
        if self.response_format is not None:
            body["response_format"] = self.response_format
        if self.tools:
            body["tools"] = [t.wire() for t in self.tools]
            body["tool_choice"] = "auto"
        return body


@dataclass(frozen=True, slots=True)
class ChatResponse:
    """The parts of ``choices[0]`` lait reads. ``content`` is None when absent or empty."""

    content: str | None
    reasoning: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage | None = None
    model: str | None = None
    base_url: str | None = None
    """The endpoint that answered (differs from the primary after a fallback)."""


def json_schema_format(schema: JsonObject, name: str = "structured_output") -> JsonObject:
    """``response_format`` for Structured Outputs (always ``strict: true``)."""
    return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": True}}


def argv_text(argv: Sequence[str]) -> str:
    """``["rg", "--json", "TODO"]``: how an argv appears in messages and prompts."""
    return "[" + ", ".join(json.dumps(a, ensure_ascii=False) for a in argv) + "]"


def compact_json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- errors ------------------------------------------------------------------------------------
def error_chain_text(exc: BaseException) -> str:
    """``exc``'s message, then the messages of its ``__cause__`` chain that the previous one does not
    already contain, joined with ``": "`` -- what ``lait: <error chain>`` prints. An ``OSError``
    reads as its strerror and file name; a cancellation adds nothing."""
    import asyncio  # here, not at the top: the send-ahead path (lait_cli.support.send_ahead) imports this module

    parts: list[str] = []
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if not isinstance(current, asyncio.CancelledError):
            text = str(current) or type(current).__name__
            if isinstance(current, OSError) and current.strerror:
                text = current.strerror + (f": '{current.filename}'" if current.filename else "")
            if not parts or text not in parts[-1]:
                parts.append(text)
        current = current.__cause__
    from lait_core.support.printable_text import printable
    from lait_core.support.redact import redact

    return printable(redact(": ".join(parts))) or "cancelled"


class EngineError(Exception):
    """Base of errors the engine raises on purpose; ``str()`` is the user-facing message."""


class ConfigurationError(EngineError):
    """A resolution problem: unknown alias pieces, ``${VAR}`` errors, key pairs, ranges."""


class DocumentInvalid(ConfigurationError):
    """A file the run needs (workflow, agent, skill) does not validate; nothing of it ran. The CLI
    exits 3 (validation), as for ``lait lint`` failures, and can print ``diagnostics`` as lint does."""

    def __init__(
        self,
        message: str,
        *,
        path: str | None = None,
        diagnostics: Sequence[Diagnostic] = (),
        unreadable: bool = False,
    ) -> None:
        super().__init__(message)
        self.path = path
        self.diagnostics = tuple(diagnostics)
        self.unreadable = unreadable
        """The file could not be read at all; else it did not validate."""


class LlmError(EngineError):
    """A model API error (exit code 4)."""

    fallback_eligible: bool = False


class LlmHttpError(LlmError):
    def __init__(self, base_url: str, status: int, detail: str, retry_after: float | None = None) -> None:
        self.base_url = base_url
        self.status = status
        self.detail = detail
        self.retry_after = retry_after
        self.fallback_eligible = status >= 500 or status in (429, 408)
        super().__init__(f"request to {base_url} failed: {self.short}")

    @property
    def short(self) -> str:
        return f"HTTP {self.status}: {self.detail}" if self.detail else f"HTTP {self.status}"


class LlmConnectionError(LlmError):
    fallback_eligible = True

    def __init__(self, base_url: str, detail: str) -> None:
        self.base_url = base_url
        self.short = detail
        super().__init__(f"request to {base_url} failed: {detail}")


class LlmTimeoutError(LlmConnectionError):
    """The per-attempt HTTP timeout (300 s) expired."""


class LlmResponseError(LlmError):
    """The server answered, but not with something lait can use (not fallback-eligible)."""


class Interrupted(EngineError):
    """A typed interruption for callers that turn ``asyncio.CancelledError`` or a deadline into an
    error: ``kind`` is ``"cancelled"`` (Ctrl-C, programmatic cancellation) or ``"timed_out"`` (a
    ``timeout:`` deadline). The CLI exits 130 when SIGINT was seen, else 5."""

    def __init__(self, kind: Literal["cancelled", "timed_out"], message: str) -> None:
        super().__init__(message)
        self.kind = kind


class ToolLoopError(EngineError):
    """Aborts the tool loop (and the step or run)."""


class MaxToolRoundsExceeded(ToolLoopError):
    def __init__(self, limit: int) -> None:
        super().__init__(
            f"tool loop exceeded max_tool_rounds ({limit}) without the model producing a final response"
        )
        self.limit = limit


class UnknownToolError(ToolLoopError):
    def __init__(self, name: str) -> None:
        super().__init__(f"model called unknown tool '{name}'")
        self.name = name


class ToolArgumentsError(ToolLoopError):
    """Arguments that are not JSON, or not a JSON object (a hard error)."""


class ToolNameError(ToolLoopError):
    """A qualified name that is too long, or a collision, or an unknown reference (assembly)."""


class ApprovalError(ToolLoopError):
    """Approval could not be obtained: no TTY, or an answer other than y/n/a."""


class AllowedToolsError(ToolLoopError):
    """A call to an MCP tool outside the server's ``allowed_tools`` (a hard error)."""
