"""LAIT404 unknown-step-reference: a template or jq expression reads a step id that no step in the file has."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT404"

RULE = rule(
    CODE,
    "unknown-step-reference",
    Severity.WARNING,
    "A template or jq expression reads a step id that no step in the file has.",
    '`{{ steps.x }}`, `$steps.x` and `$steps["x"]` must name the `id` of a step in the same file '
    "(any step, in any nested list).",
    Example("steps:\n  - id: draft\n    prompt: Draft it\n  - prompt: 'Improve {{ steps.drft }}'\n"),
    Example("steps:\n  - id: draft\n    prompt: Draft it\n  - prompt: 'Improve {{ steps.draft }}'\n"),
)
