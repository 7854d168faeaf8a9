"""Qualified tool names: ``{prefix}__{name}`` with every character outside ``[A-Za-z0-9_-]``
replaced by ``_``. A result longer than 64 characters (OpenAI's function-name limit) or empty is
an error; names are never truncated.

Prefixes: an MCP tool uses its server's name, subagents ``agent``, shell tools ``tool``,
progressive-disclosure skills ``skill`` (and ``lait serve`` exposes ``agent``/``workflow``).
"""

from __future__ import annotations

import re

from lait_core.engine.llm.chat_types import ToolNameError

MAX_NAME_LENGTH = 64
AGENT_PREFIX = "agent"
SHELL_PREFIX = "tool"
SKILL_PREFIX = "skill"
WORKFLOW_PREFIX = "workflow"

_OUTSIDE = re.compile(r"[^A-Za-z0-9_-]")


def sanitize(text: str) -> str:
    """Replace each character outside ``[A-Za-z0-9_-]`` (ASCII) with ``_``."""
    return _OUTSIDE.sub("_", text)


def qualify(prefix: str, name: str) -> str:
    """``{prefix}__{name}``, sanitised; raises :class:`ToolNameError` when empty or too long."""
    qualified = sanitize(f"{prefix}__{name}")
    if not qualified:
        raise ToolNameError(f"the tool name built from '{prefix}' and '{name}' is empty")
    if len(qualified) > MAX_NAME_LENGTH:
        raise ToolNameError(
            f"the tool name '{qualified}' (from '{prefix}' and '{name}') is {len(qualified)} characters long; "
            f"tool names may have at most {MAX_NAME_LENGTH} characters and are never truncated, so use a "
            "shorter name"
        )
    return qualified
