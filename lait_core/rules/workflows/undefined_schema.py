"""LAIT313 undefined-schema: a schema reference names no `schemas:` entry."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT313"

RULE = rule(
    CODE,
    "undefined-schema",
    Severity.ERROR,
    "A schema reference names no `schemas:` entry.",
    "`input_schema`/`output_schema` given as a string must be the name of an entry under `schemas:` in the "
    "same file.",
    Example("steps:\n  - prompt: Hi\n    output_schema: answer\n"),
    Example("schemas:\n  answer: {type: object}\nsteps:\n  - prompt: Hi\n    output_schema: answer\n"),
)
