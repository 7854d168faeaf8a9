"""LAIT501 unknown-mcp-server: an `mcp:` list names a server that is not under `mcp_servers:`."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CONFIG = (
    "mcp_servers:\n  fs: {command: mcp-fs}\n  locked: {command: mcp-x, allowed_tools: []}\n"
    "skills:\n  pdf: skills/pdf\nagents:\n  reviewer: agents/reviewer.md\n"
    "tools:\n  grep: {command: [rg, '--', '{{ input.pattern }}']}\n"
)

CODE = "LAIT501"

RULE = rule(
    CODE,
    "unknown-mcp-server",
    Severity.ERROR,
    "An `mcp:` list names a server that is not under `mcp_servers:`.",
    "Checked in workflow steps, workflow `default:`, inline agents and agent files, when the list is present "
    "and non-empty.",
    Example("steps:\n  - prompt: List files\n    mcp: [files]\n", config=CONFIG),
    Example("steps:\n  - prompt: List files\n    mcp: [fs]\n", config=CONFIG),
)
