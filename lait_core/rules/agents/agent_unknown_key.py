"""LAIT202 agent-unknown-key: the agent frontmatter has a key lait does not know."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

A = "agents/reviewer.md"

CODE = "LAIT202"

RULE = rule(
    CODE,
    "agent-unknown-key",
    Severity.ERROR,
    "The agent frontmatter has a key lait does not know.",
    "Frontmatter keys: name, description, model, reasoning_effort, temperature, top_p, max_tokens, mcp, "
    "skills, subagents, tools, max_tool_rounds, input_schema, output_schema, schema_name. The removed "
    "`structured_output` is unknown too (an `output_schema` alone requests Structured Outputs).",
    Example("---\nmodle: qwen\n---\nYou review code.\n", filename=A),
    Example("---\nmodel: qwen\n---\nYou review code.\n", filename=A),
)
