"""Hover on an ``agents:``/``workflows:`` entry of lait.config.yml: the MCP tool ``lait serve
--mcp`` exposes for it (name and input schema, issue 15), computed from the indexed files without
loading or running anything."""

from __future__ import annotations

from typing import Any

from lait_core.engine.llm.chat_types import ToolNameError
from lait_core.engine.tools.naming import AGENT_PREFIX, WORKFLOW_PREFIX, qualify
from lait_core.engine.tools.subagent import GENERIC_PARAMETERS
from lait_core.serve.served_tools import workflow_schema


def _asks(steps: Any) -> bool:
    """An ``ask:`` step anywhere under a step list (groups, branches, cases, loops, on_error)."""
    stack = [steps]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            if "ask" in value:
                return True
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return False


def served_tool_markdown(kind: str, key: str, data: dict[str, Any] | None, render: Any) -> str:
    """``kind`` is ``agent`` or ``workflow``; ``data`` the agent's frontmatter or the workflow's
    top level (None when unreadable); ``render`` formats a JSON block."""
    try:
        name = qualify(AGENT_PREFIX if kind == "agent" else WORKFLOW_PREFIX, key)
    except ToolNameError as exc:
        return f"*`lait serve --mcp`:* not served ({exc})."
    if data is None:
        return f"*`lait serve --mcp` tool* `{name}` (the file cannot be read, so it is skipped)."
    if kind == "agent":
        declared = data.get("input_schema")
        schema = declared if isinstance(declared, dict) else GENERIC_PARAMETERS
    else:
        inputs = data.get("inputs")
        schema = workflow_schema(inputs if isinstance(inputs, dict) else None)
    parts = [f"*`lait serve --mcp` tool* `{name}`, input schema:", render(schema)]
    if kind == "workflow" and _asks(data.get("steps")):
        parts.append("It has an `ask:` step: offered only to clients that support elicitation.")
    return "\n\n".join(parts)


__all__ = ["served_tool_markdown"]
