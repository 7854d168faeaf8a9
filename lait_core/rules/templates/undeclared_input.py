"""LAIT403 undeclared-input: a template or jq expression reads an input the workflow does not declare."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT403"

RULE = rule(
    CODE,
    "undeclared-input",
    Severity.ERROR,
    "A template or jq expression reads an input the workflow does not declare.",
    "`{{ inputs.x }}` and `$inputs.x` must name an entry of `inputs:`; at run time the value would be "
    "missing (a template error, or null in jq).",
    Example("inputs:\n  topic: string\nsteps:\n  - prompt: 'Write about {{ inputs.topc }}'\n"),
    Example("inputs:\n  topic: string\nsteps:\n  - prompt: 'Write about {{ inputs.topic }}'\n"),
)
