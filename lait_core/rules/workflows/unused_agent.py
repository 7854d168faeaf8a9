"""LAIT316 unused-agent: an inline agent under `agents:` is never used by an `agent:` step."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.rules.registry import Example, rule

CODE = "LAIT316"

RULE = rule(
    CODE,
    "unused-agent",
    Severity.WARNING,
    "An inline agent under `agents:` is never used by an `agent:` step.",
    "Inline agents are usable only by `agent:` steps of the same file (not as subagents).",
    Example("agents:\n  critic: {system: You criticise.}\nsteps:\n  - prompt: Hi\n"),
    Example("agents:\n  critic: {system: You criticise.}\nsteps:\n  - agent: critic\n"),
)
