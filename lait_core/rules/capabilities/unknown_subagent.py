"""LAIT504 unknown-subagent: a `subagents:` list names an agent that is not under `agents:` in lait.config.yml."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CONFIG = (
    "mcp_servers:\n  fs: {command: mcp-fs}\n  locked: {command: mcp-x, allowed_tools: []}\n"
    "skills:\n  pdf: skills/pdf\nagents:\n  reviewer: agents/reviewer.md\n"
    "tools:\n  grep: {command: [rg, '--', '{{ input.pattern }}']}\n"
)

CODE = "LAIT504"

RULE = rule(
    CODE,
    "unknown-subagent",
    Severity.ERROR,
    "A `subagents:` list names an agent that is not under `agents:` in lait.config.yml.",
    "Subagents are offered to the model as `agent__<name>` tools and come from the config registry.",
    Example("steps:\n  - prompt: Review\n    subagents: [critic]\n", config=CONFIG),
    Example("steps:\n  - prompt: Review\n    subagents: [reviewer]\n", config=CONFIG),
)
