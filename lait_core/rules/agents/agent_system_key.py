"""LAIT203 agent-system-key: the agent frontmatter sets `system`."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

A = "agents/reviewer.md"
GOOD = Example("---\nmodel: qwen\n---\nYou review {{ input.path }}.\n", filename=A)

CODE = "LAIT203"

RULE = rule(
    CODE,
    "agent-system-key",
    Severity.ERROR,
    "The agent frontmatter sets `system`.",
    "An agent file's Markdown body is its system prompt, so `system:` in the frontmatter is rejected rather "
    "than silently competing with the body.",
    Example("---\nsystem: You review code.\n---\n", filename=A),
    GOOD,
)
