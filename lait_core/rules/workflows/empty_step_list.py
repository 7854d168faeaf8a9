"""LAIT307 empty-step-list: a step list is empty."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

OK = Example("steps:\n  - id: hello\n    jq: '\"hi\"'\n")

CODE = "LAIT307"

RULE = rule(
    CODE,
    "empty-step-list",
    Severity.ERROR,
    "A step list is empty.",
    "`steps`, `on_error`, `group`, switch cases, `else`, parallel branches and loop bodies must each contain "
    "at least one step.",
    Example("steps: []\n"),
    OK,
)
