"""LAIT306 inline-agent-system: an inline agent under `agents:` has no `system:` prompt."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT306"

RULE = rule(
    CODE,
    "inline-agent-system",
    Severity.ERROR,
    "An inline agent under `agents:` has no `system:` prompt.",
    "A workflow's inline agent is an agent file without a file: its `system:` key replaces the Markdown "
    "body and is required.",
    Example("agents:\n  critic: {model: qwen}\nsteps:\n  - agent: critic\n"),
    Example("agents:\n  critic: {model: qwen, system: You criticise.}\nsteps:\n  - agent: critic\n"),
)
