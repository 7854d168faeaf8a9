"""LAIT205 schema-name: `schema_name` is used without `output_schema`, or is not a valid Structured Outputs name."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

A = "agents/reviewer.md"

CODE = "LAIT205"

RULE = rule(
    CODE,
    "schema-name",
    Severity.ERROR,
    "`schema_name` is used without `output_schema`, or is not a valid Structured Outputs name.",
    "The Structured Outputs name must be 1 to 64 characters of A-Z, a-z, 0-9, `_` or `-`. When "
    "`schema_name` is absent the name of the referenced `schemas:` entry is used, so that name must be "
    "valid too.",
    Example("---\nschema_name: review\n---\nYou review code.\n", filename=A),
    Example("---\nschema_name: review\noutput_schema: {type: object}\n---\nYou review code.\n", filename=A),
)
