"""The pluggable tool-source interface and the assembled tool set of one request.

A :class:`ToolSource` lists tools (with qualified names and JSON Schemas) and runs calls. A call
ends in one of three ways:

* a :class:`ToolResult` -- returned to the model as the ``tool`` message; ``is_error`` marks soft
  failures (MCP ``isError``, a shell command that failed) without aborting anything;
* a :class:`~lait_core.engine.llm.chat_types.ToolLoopError` (or another engine error) -- a hard failure
  that aborts the round and the request;
* ``asyncio.CancelledError`` -- cancellation, always propagated.

:class:`ToolSet` assembles sources in the fixed order MCP, subagents, shell tools, skills; checks
names for collisions (hard errors raised before any request is sent); and routes calls by
qualified name.
"""

from __future__ import annotations

import asyncio
import json
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

from lait_core.engine.llm.chat_types import JsonObject, ToolArgumentsError, ToolDefinition, ToolNameError
from lait_core.engine.run.interaction import Interaction


class ToolKind(Enum):
    MCP = "mcp"
    AGENT = "agent"
    SHELL = "tool"
    SKILL = "skill"

    @property
    def order(self) -> int:
        return _ORDER[self]

    @property
    def noun(self) -> str:
        """As in "tool name collision: an MCP tool and a subagent both qualify to 'x'"."""
        return _NOUNS[self]


_ORDER = {ToolKind.MCP: 0, ToolKind.AGENT: 1, ToolKind.SHELL: 2, ToolKind.SKILL: 3}
_NOUNS = {
    ToolKind.MCP: "an MCP tool",
    ToolKind.AGENT: "a subagent",
    ToolKind.SHELL: "a shell tool",
    ToolKind.SKILL: "a skill",
}
_LIST_NOUNS = {ToolKind.AGENT: "subagent", ToolKind.SHELL: "tool", ToolKind.SKILL: "skill"}

DEFAULT_PARAMETERS: JsonObject = {"type": "object", "properties": {}}

MAX_TOOLS = 8192
"""Tools in one tool set, all sources together (docs/mcp.md)."""


@dataclass(frozen=True, slots=True, eq=False)
class Tool:
    """One tool as offered to the model."""

    qualified_name: str
    name: str
    """The source's own name: the MCP tool name or the config key."""
    description: str | None
    parameters: JsonObject
    kind: ToolKind
    source: ToolSource
    server: str | None = None
    """For MCP tools: the server name."""
    annotations: Mapping[str, Any] | None = field(default=None, compare=False)
    """For MCP tools: the server's ``annotations`` as sent (untrusted hints)."""

    def definition(self) -> ToolDefinition:
        return ToolDefinition(self.qualified_name, self.description, self.parameters)


def tool_hints(annotations: Mapping[str, Any] | None) -> tuple[str, ...]:
    """What an approval prompt shows of an MCP tool's annotations: ``read-only``, ``destructive``,
    ``idempotent``, ``open-world``. The server says so; nothing verifies it, so a hint is shown, never
    acted on alone."""
    if not annotations:
        return ()
    hints = []
    if annotations.get("readOnlyHint") is True:
        hints.append("read-only")
    if annotations.get("destructiveHint") is True and annotations.get("readOnlyHint") is not True:
        hints.append("destructive")
    if annotations.get("idempotentHint") is True:
        hints.append("idempotent")
    if annotations.get("openWorldHint") is True:
        hints.append("open-world")
    return tuple(hints)


@dataclass(frozen=True, slots=True)
class ToolResult:
    text: str
    is_error: bool = False
    data: dict[str, Any] | None = field(default=None, compare=False)
    """MCP tools: the ``tools/call`` result as JSON (``content``, ``structuredContent``,
    ``isError``) for ``lait mcp call --json``; None for other tools and for lait's own errors."""


@dataclass(slots=True)
class CallContext:
    """What a running call may use: the interaction (elicitation, events) and the call's id."""

    interaction: Interaction
    call_id: str
    extra: dict[str, Any] = field(default_factory=dict)


class ToolSource(ABC):
    """A provider of tools: one MCP server, the subagents, the shell tools or the skills."""

    kind: ToolKind
    label: str = ""
    """For messages: the MCP server name, or empty."""

    @abstractmethod
    async def list_tools(self) -> list[Tool]:
        """The tools in the source's order. Unknown references and duplicates raise here."""

    @abstractmethod
    async def call(self, tool: Tool, arguments: str, ctx: CallContext) -> ToolResult:
        """Run one call; ``arguments`` is the model's raw JSON text."""

    def grant_key(self, tool: Tool) -> tuple[str | None, str | None]:
        """What a standing grant of ``tool`` is tied to besides its name (:mod:`lait_core.engine.tools.standing_grants`):
        the MCP server and how it is started; nothing for other tools."""
        return None, None

    def refusal(self, tool: Tool) -> str | None:
        """Why the source refuses ``tool`` outright (MCP ``allowed_tools``), or None."""
        return None

    def check(self, tool: Tool) -> None:
        """Raise a hard error (:class:`~lait_core.engine.llm.chat_types.AllowedToolsError`) when the source
        refuses ``tool`` outright. The loop decides before asking for approval, so a refused call is
        never put to a person."""
        refusal = self.refusal(tool)
        if refusal is not None:
            from lait_core.engine.llm.chat_types import AllowedToolsError

            raise AllowedToolsError(refusal)

    def preview(self, tool: Tool, arguments: str) -> tuple[str, ...] | None:
        """What the approval prompt shows besides the arguments (shell tools: the argv)."""
        return None

    async def aclose(self) -> None:
        """Release connections and processes (MCP servers); called once per run."""
        return None


def parse_arguments(arguments: str, qualified_name: str) -> JsonObject:
    """The model's arguments as an object: blank or ``null`` is ``{}``; invalid JSON or any
    other non-object is a hard :class:`ToolArgumentsError`."""
    if not arguments.strip():
        return {}
    try:
        value = json.loads(arguments)
    except ValueError as exc:
        raise ToolArgumentsError(
            f"the model called '{qualified_name}' with arguments that are not valid JSON ({exc}): {_clip(arguments)}"
        ) from None
    if value is None:
        return {}
    if not isinstance(value, dict):
        kind = "an array" if isinstance(value, list) else f"a {_json_type(value)}"
        raise ToolArgumentsError(
            f"the model called '{qualified_name}' with arguments that are {kind}, not a JSON object: "
            f"{_clip(arguments)}"
        )
    return value


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    return type(value).__name__


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


class ToolSet:
    """The tools of one request, in the order sent, indexed by qualified name."""

    def __init__(self, tools: Sequence[Tool] = (), sources: Sequence[ToolSource] = ()) -> None:
        self.tools: tuple[Tool, ...] = tuple(tools)
        self.sources: tuple[ToolSource, ...] = tuple(sources)
        self._index = {t.qualified_name: t for t in self.tools}

    @classmethod
    async def assemble(cls, sources: Sequence[ToolSource]) -> ToolSet:
        """List every source (concurrently) and check names. Raises :class:`ToolNameError`."""
        ordered = sorted(sources, key=lambda s: s.kind.order)
        listed = await asyncio.gather(*(s.list_tools() for s in ordered))
        tools: list[Tool] = []
        seen: dict[str, Tool] = {}
        for batch in listed:
            if len(tools) + len(batch) > MAX_TOOLS:
                raise ToolNameError(
                    f"too many tools for one request: more than {MAX_TOOLS:,} (MCP servers, subagents, shell "
                    "tools and skills together); offer fewer servers or narrow 'allowed_tools'"
                )
            for tool in batch:
                previous = seen.get(tool.qualified_name)
                if previous is not None:
                    raise ToolNameError(_collision(previous, tool))
                seen[tool.qualified_name] = tool
                tools.append(tool)
        return cls(tools, ordered)

    def __len__(self) -> int:
        return len(self.tools)

    def __bool__(self) -> bool:
        return bool(self.tools)

    def definitions(self) -> tuple[ToolDefinition, ...]:
        return tuple(t.definition() for t in self.tools)

    def lookup(self, qualified_name: str) -> Tool | None:
        return self._index.get(qualified_name)

    async def aclose(self) -> None:
        for source in self.sources:
            await source.aclose()


def _collision(first: Tool, second: Tool) -> str:
    name = second.qualified_name
    if first.kind is ToolKind.MCP and second.kind is ToolKind.MCP:
        if first.server == second.server:
            return (
                f"MCP tool name collision: server '{first.server}' offers '{first.name}' and '{second.name}', "
                f"which both qualify to '{name}'"
            )
        return (
            f"MCP tool name collision: '{first.name}' of server '{first.server}' and '{second.name}' of server "
            f"'{second.server}' both qualify to '{name}'"
        )
    if first.kind is second.kind:
        noun = _LIST_NOUNS.get(first.kind, "tool")
        if first.name == second.name:
            return f"duplicate {noun} name '{first.name}'"
        return f"duplicate {noun} name: '{first.name}' and '{second.name}' both qualify to '{name}'"
    return f"tool name collision: {first.kind.noun} and {second.kind.noun} both qualify to '{name}'"
