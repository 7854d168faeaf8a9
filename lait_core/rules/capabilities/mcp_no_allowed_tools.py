"""LAIT502 mcp-no-allowed-tools: an `mcp:` list names a server whose `allowed_tools` is an empty list."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CONFIG = (
    "mcp_servers:\n  fs: {command: mcp-fs}\n  locked: {command: mcp-x, allowed_tools: []}\n"
    "skills:\n  pdf: skills/pdf\nagents:\n  reviewer: agents/reviewer.md\n"
    "tools:\n  grep: {command: [rg, '--', '{{ input.pattern }}']}\n"
)

CODE = "LAIT502"

RULE = rule(
    CODE,
    "mcp-no-allowed-tools",
    Severity.WARNING,
    "An `mcp:` list names a server whose `allowed_tools` is an empty list.",
    "`allowed_tools: []` forbids every tool of the server (unlike an absent `allowed_tools`, which allows "
    "all), so every call would be rejected at run time.",
    Example("steps:\n  - prompt: Go\n    mcp: [locked]\n", config=CONFIG),
    Example("steps:\n  - prompt: Go\n    mcp: [fs]\n", config=CONFIG),
)
