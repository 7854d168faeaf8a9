"""LAIT308 step-kind: a step has no kind key, more than one, or is not a mapping."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

OK = Example("steps:\n  - id: hello\n    jq: '\"hi\"'\n")

CODE = "LAIT308"

RULE = rule(
    CODE,
    "step-kind",
    Severity.ERROR,
    "A step has no kind key, more than one, or is not a mapping.",
    "Each step has exactly one of: prompt, agent, run, decide, workflow, jq, ask, write, group, switch, "
    "parallel, for_each, while, until, stop, break.",
    Example("steps:\n  - prompt: Hi\n    run: [echo]\n"),
    OK,
)
