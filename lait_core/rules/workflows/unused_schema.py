"""LAIT315 unused-schema: a `schemas:` entry is never referenced."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.rules.registry import Example, rule

CODE = "LAIT315"

RULE = rule(
    CODE,
    "unused-schema",
    Severity.WARNING,
    "A `schemas:` entry is never referenced.",
    "Neither a step nor the workflow's `input_schema` refers to it.",
    Example("schemas:\n  answer: {type: object}\nsteps:\n  - prompt: Hi\n"),
    Example("schemas:\n  answer: {type: object}\nsteps:\n  - prompt: Hi\n    output_schema: answer\n"),
)
