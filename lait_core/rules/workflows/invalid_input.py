"""LAIT314 invalid-input: an `inputs:` entry is not a schema, or its `default` does not match it."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT314"

RULE = rule(
    CODE,
    "invalid-input",
    Severity.ERROR,
    "An `inputs:` entry is not a schema, or its `default` does not match it.",
    "Each input is a JSON Schema mapping, a type name such as `string`, or null; a `default` makes the "
    "input optional and must satisfy the input's own schema.",
    Example("inputs:\n  count: {type: integer, default: many}\nsteps:\n  - jq: '$inputs.count'\n"),
    Example("inputs:\n  count: {type: integer, default: 3}\nsteps:\n  - jq: '$inputs.count'\n"),
)
