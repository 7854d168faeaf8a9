"""LAIT304 workflow-invalid-value: a workflow value has the wrong type or range, or `steps` is missing."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT304"

RULE = rule(
    CODE,
    "workflow-invalid-value",
    Severity.ERROR,
    "A workflow value has the wrong type or range, or `steps` is missing.",
    "For example `timeout` is an integer of seconds of at least 1, `default.temperature` is 0.0–2.0, "
    "`default.retry` needs `max_attempts`.",
    Example("timeout: 0\nsteps:\n  - jq: '.'\n"),
    Example("timeout: 60\nsteps:\n  - jq: '.'\n"),
)
