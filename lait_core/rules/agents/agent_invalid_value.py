"""LAIT204 agent-invalid-value: an agent setting has the wrong type or is out of range."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

A = "agents/reviewer.md"
GOOD = Example("---\nmodel: qwen\n---\nYou review {{ input.path }}.\n", filename=A)

CODE = "LAIT204"

RULE = rule(
    CODE,
    "agent-invalid-value",
    Severity.ERROR,
    "An agent setting has the wrong type or is out of range.",
    "`temperature` is 0.0–2.0, `top_p` 0.0–1.0, `max_tokens` and `max_tool_rounds` at least 1, "
    "`reasoning_effort` one of none/minimal/low/medium/high/xhigh, capability lists are lists of names.",
    Example("---\ntemperature: 3\n---\nYou review code.\n", filename=A),
    GOOD,
)
