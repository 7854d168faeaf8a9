"""LAIT316 unused-agent: an inline agent under `agents:` is never used by an `agent:` step."""

from __future__ import annotations

from collections.abc import Set

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode

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


def check_unused_agents(agents: MappingNode, used: Set[str], out: list[Diagnostic]) -> None:
    """Warn at the key of each entry of a workflow's ``agents:`` whose name is not in ``used``."""
    for name, knode, _v in agents.items():
        if name not in used:
            out.append(
                Diagnostic(
                    CODE,
                    f"agent '{name}' is defined in 'agents:' but never used by an 'agent:' step",
                    knode.range,
                    Severity.WARNING,
                )
            )
