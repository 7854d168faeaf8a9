"""Subagents as ``agent__<name>`` tools (docs/mcp.md).

Each name refers to an ``agents:`` registry entry (an agent Markdown file). Parameters are the
agent's ``input_schema`` verbatim (the whole argument object is the input; its compact JSON is the
user message) or, without one, ``{input}`` (a string is used raw, anything else as compact JSON).

A call runs the agent with the same session -- its settings come from its own frontmatter, then
``lait.config.yml``'s ``default:`` only (no workflow defaults, no caller overrides) -- through its
own tool loop, and returns the final answer's text. Nesting deeper than 16 levels and cycles (an
agent already active on the call chain, by canonical path) are errors that abort the caller.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.engine.llm.chat_types import (
    ToolArgumentsError,
    ToolLoopError,
    ToolNameError,
    Usage,
    compact_json,
)
from lait_core.engine.tools.base import CallContext, Tool, ToolKind, ToolResult, ToolSource, parse_arguments
from lait_core.engine.tools.naming import AGENT_PREFIX, qualify

if TYPE_CHECKING:
    from lait_core.engine.run.agent_run import AgentDefinition
    from lait_core.engine.run.run_session import RunSession

MAX_DEPTH = 16

GENERIC_PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "input": {
            "description": "The task for the subagent: a string, or a JSON object or array.",
        }
    },
    "required": ["input"],
}


class SubagentError(ToolLoopError):
    """A subagent call that cannot run (depth, cycle); aborts the caller's request."""


def default_description(name: str) -> str:
    return f"Runs the '{name}' subagent for a delegated task."


class SubagentToolSource(ToolSource):
    """The subagents a request references, by their ``agents:`` keys, in list order."""

    kind = ToolKind.AGENT

    def __init__(
        self,
        session: RunSession,
        names: Sequence[str],
        *,
        depth: int = 0,
        agent_chain: tuple[Path, ...] = (),
    ) -> None:
        self.session = session
        self.names = list(names)
        self.depth = depth
        self.agent_chain = agent_chain
        self._agents: dict[str, AgentDefinition] = {}
        self.usage = Usage()
        """The usage of every subagent call so far (its own subagents included)."""

    def _load(self, name: str) -> AgentDefinition:
        from lait_core.engine.run.agent_run import agent_from_file

        agent = self._agents.get(name)
        if agent is None:
            registered = self.session.config.agents.get(name)
            if registered is None:
                raise ToolNameError(
                    f"unknown subagent '{name}'; define it under 'agents:' in lait.config.yml"
                )
            agent = agent_from_file(self.session.resolve_path(registered), key=name, cache=self.session.cache)
            self._agents[name] = agent
        return agent

    async def list_tools(self) -> list[Tool]:
        tools: list[Tool] = []
        for name in self.names:
            agent = self._load(name)
            schema = agent.input_schema
            parameters = schema if isinstance(schema, dict) else dict(GENERIC_PARAMETERS)
            description = agent.description or default_description(name)
            tools.append(Tool(qualify(AGENT_PREFIX, name), name, description, parameters, self.kind, self))
        return tools

    def _check_nesting(self, agent: AgentDefinition) -> None:
        if agent.path is not None and agent.path in self.agent_chain:
            chain = " -> ".join(str(p) for p in (*self.agent_chain, agent.path))
            raise SubagentError(f"subagent cycle: {chain}")
        if self.depth + 1 > MAX_DEPTH:
            raise SubagentError(
                f"subagent '{agent.name}' would nest {self.depth + 1} levels deep; at most {MAX_DEPTH} are allowed"
            )

    async def call(self, tool: Tool, arguments: str, ctx: CallContext) -> ToolResult:
        from lait_core.engine.run.agent_run import run_agent

        agent = self._load(tool.name)
        self._check_nesting(agent)
        args = parse_arguments(arguments, tool.qualified_name)
        value: Any
        if isinstance(agent.input_schema, dict):
            value = args
            user_text = compact_json(args)
        else:
            if "input" not in args:
                raise ToolArgumentsError(
                    f"the model called '{tool.qualified_name}' without the required 'input' argument"
                )
            value = args["input"]
            user_text = value if isinstance(value, str) else compact_json(value)
        from lait_core.engine.records.labels import labelled

        with labelled(f"subagent '{tool.name}'"):
            reply = await run_agent(
                self.session,
                agent,
                value,
                user_text=user_text,
                label=f"subagent '{tool.name}'",
                depth=self.depth + 1,
                agent_chain=self.agent_chain,
            )
        self.usage = self.usage + reply.usage
        return ToolResult(reply.text)
