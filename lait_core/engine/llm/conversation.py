"""One LLM conversation with everything the settings offer: the request every chat, agent run,
``prompt``/``agent`` step and subagent call makes (docs/workflows.md).

:func:`converse` appends the skills to the system prompt, assembles the tools in the fixed order
MCP, subagents, shell tools, skills, and runs the tool loop (or the single request when nothing
is offered). With an ``output_schema`` the answer is requested with Structured Outputs
(``strict: true``; withheld from tool rounds and sent on the final request only) and parsed as
JSON -- one surrounding Markdown code fence is tolerated -- and checked with lait's partial
validator.

The session's MCP servers stay connected after a conversation: the session closes them.

Empty answers: a response with neither content nor tool calls
(``content: ""`` or none) is rejected by the engine's response parser ("API response contained
no content in its first choice", exit 4), so a reply's text is never silently empty; a model that
goes quiet after its tool rounds is reported, not mistaken for a finished answer.

``Reply.usage`` counts every request of the conversation, including those of the subagents it
called (recursively).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.documents.json_check import check_value
from lait_core.engine.llm.chat_types import (
    EngineError,
    JsonObject,
    Message,
    Usage,
    json_schema_format,
    system_message,
    user_message,
)
from lait_core.engine.run.tool_loop import LoopOptions, LoopResult, run_tool_loop
from lait_core.engine.tools.base import ToolSet, ToolSource
from lait_core.engine.tools.skill_tools import SkillToolSource, load_skills, with_skills
from lait_core.engine.tools.subagent import SubagentToolSource
from lait_core.engine.tools.tool_policy import Policy

if TYPE_CHECKING:
    from lait_core.engine.llm.llm_settings import LlmSettings
    from lait_core.engine.run.run_session import RunSession

DEFAULT_SCHEMA_NAME = "structured_output"
_FENCE = re.compile(r"\A```[A-Za-z0-9_-]*[ \t]*\r?\n(.*?)\r?\n?```\Z", re.DOTALL)


class StructuredOutputError(EngineError):
    """The answer to a Structured Outputs request is not valid JSON or breaks the schema."""


@dataclass(slots=True)
class Reply:
    text: str
    """The final answer's content (``""`` when the model sent none)."""
    value: Any
    """The parsed JSON with an output schema, else :attr:`text`."""
    usage: Usage
    """Every request's usage, subagents' included."""
    loop: LoopResult

    @property
    def reasoning(self) -> str | None:
        return self.loop.response.reasoning


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "..."


def parse_structured(text: str, schema: Any) -> Any:
    """The JSON value of a structured answer (one surrounding code fence tolerated), checked
    against ``schema`` with the partial validator."""
    stripped = text.strip()
    fenced = _FENCE.match(stripped)
    if fenced is not None:
        stripped = fenced.group(1).strip()
    try:
        value = json.loads(stripped)
    except ValueError:
        raise StructuredOutputError(
            f"the structured output was not valid JSON: {json.dumps(_clip(text))}"
        ) from None
    problems = check_value(value, schema, "output")
    if problems:
        raise StructuredOutputError(
            "the structured output does not match the output schema: " + "; ".join(problems)
        )
    return value


async def build_sources(
    session: RunSession,
    settings: LlmSettings,
    *,
    depth: int,
    agent_chain: tuple[Path, ...],
    skill_tools: SkillToolSource | None,
) -> list[ToolSource]:
    """The tool sources of one request, in the original lait's order."""
    sources: list[ToolSource] = [session.mcp.source(name) for name in settings.mcp]
    if settings.subagents:
        sources.append(SubagentToolSource(session, settings.subagents, depth=depth, agent_chain=agent_chain))
    if settings.tools:
        from lait_core.engine.tools.shell import ShellToolSource

        sources.append(
            ShellToolSource(
                settings.tools, session.config.tools, environ=session.environ, on_spawn=session.on_spawn
            )
        )
    if skill_tools is not None:
        sources.append(skill_tools)
    return sources


def loop_options(
    session: RunSession,
    settings: LlmSettings,
    *,
    response_format: JsonObject | None,
    stream: bool,
    include_usage: bool,
) -> LoopOptions:
    config = session.config
    compaction = config.default.compaction
    compaction_sender = None
    if compaction is not None and compaction.model:
        from lait_core.engine.llm.model_resolution import resolve_model

        compaction_sender = session.sender(resolve_model(compaction.model, config))
    return LoopOptions(
        max_tool_rounds=settings.max_tool_rounds,
        response_format=response_format,
        sampling=settings.sampling,
        stream=stream,
        include_usage=include_usage,
        approve_tools=session.approve_tools,
        policy=Policy.from_config(config.tool_policy),
        compaction=compaction,
        compaction_sender=compaction_sender,
        denial_text=session.denial_text,
        trace=session.trace,
        grants=session.grants,
        read_only_servers=tuple(config.approvals.read_only),
    )


async def converse(
    session: RunSession,
    settings: LlmSettings,
    *,
    system: str | None,
    user: str | list[JsonObject],
    output_schema: JsonObject | None = None,
    schema_name: str | None = None,
    parse_output: bool = True,
    stream: bool = False,
    include_usage: bool = False,
    depth: int = 0,
    agent_chain: tuple[Path, ...] = (),
    history: Sequence[Message] = (),
) -> Reply:
    """Send one conversation (system + user message) through the tool loop.

    ``history`` (earlier turns of a chat REPL or a session) goes between the system prompt and the
    new user message (docs/cli.md).

    ``system`` is the rendered system prompt (None or empty: none); ``depth``/``agent_chain`` are
    the subagent nesting of the agent this conversation belongs to (empty for chat and steps).
    ``parse_output=False`` (chat's ``--json-schema``) keeps a structured answer as text.
    """
    skills = load_skills(session, settings.skills)
    progressive = settings.skill_progressive_disclosure
    skill_tools = SkillToolSource(skills) if progressive and skills else None
    prompt = with_skills(system or None, skills, progressive=progressive)
    messages: list[Message] = []
    if prompt:
        messages.append(system_message(prompt))
    messages.extend(dict(m) for m in history)
    messages.append(user_message(user))
    response_format = (
        json_schema_format(output_schema, schema_name or DEFAULT_SCHEMA_NAME)
        if output_schema is not None
        else None
    )
    options = loop_options(
        session, settings, response_format=response_format, stream=stream, include_usage=include_usage
    )
    sources = await build_sources(
        session, settings, depth=depth, agent_chain=agent_chain, skill_tools=skill_tools
    )
    toolset = await ToolSet.assemble(sources)
    result = await run_tool_loop(
        session.sender(settings.model), messages, toolset, session.interaction, options
    )
    usage = result.usage
    for source in toolset.sources:
        if isinstance(source, SubagentToolSource):
            usage = usage + source.usage
    text = result.response.content or ""
    value: Any = text
    if output_schema is not None and parse_output:
        value = parse_structured(text, output_schema)
    return Reply(text, value, usage, result)
