"""LAIT505 unknown-tool: a `tools:` list names a shell tool that is not under `tools:` in lait.config.yml."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CONFIG = (
    "mcp_servers:\n  fs: {command: mcp-fs}\n  locked: {command: mcp-x, allowed_tools: []}\n"
    "skills:\n  pdf: skills/pdf\nagents:\n  reviewer: agents/reviewer.md\n"
    "tools:\n  grep: {command: [rg, '--', '{{ input.pattern }}']}\n"
)

CODE = "LAIT505"

RULE = rule(
    CODE,
    "unknown-tool",
    Severity.ERROR,
    "A `tools:` list names a shell tool that is not under `tools:` in lait.config.yml.",
    "Shell tools are offered to the model as `tool__<name>`.",
    Example("steps:\n  - prompt: Search\n    tools: [rg]\n", config=CONFIG),
    Example("steps:\n  - prompt: Search\n    tools: [grep]\n", config=CONFIG),
)
