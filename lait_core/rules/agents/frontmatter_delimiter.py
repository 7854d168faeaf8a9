"""LAIT201 frontmatter-delimiter: an agent file does not start with, or does not close, its `---` frontmatter."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

A = "agents/reviewer.md"
GOOD = Example("---\nmodel: qwen\n---\nYou review {{ input.path }}.\n", filename=A)

CODE = "LAIT201"

RULE = rule(
    CODE,
    "frontmatter-delimiter",
    Severity.ERROR,
    "An agent file does not start with, or does not close, its `---` frontmatter.",
    "The first line must be exactly `---` and the frontmatter ends at the next line that is exactly `---`. "
    "Everything after it is the system prompt template. (Markdown files without a leading `---` are not "
    "picked up when a directory is linted; this rule fires for files named explicitly or a frontmatter "
    "that never closes.)",
    Example("---\nmodel: qwen\nYou review code.\n", filename=A),
    GOOD,
)
