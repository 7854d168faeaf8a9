"""LAIT206 schema-source: an `input_schema`/`output_schema`/`schemas:` entry is not a schema."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

A = "agents/reviewer.md"

CODE = "LAIT206"

RULE = rule(
    CODE,
    "schema-source",
    Severity.ERROR,
    "An `input_schema`/`output_schema`/`schemas:` entry is not a schema.",
    "A schema source is an inline JSON Schema mapping, a boolean, or `{file: path}` with exactly one "
    "non-empty `file` key (relative to the file it is written in). In workflow steps it may also be the "
    "name of a `schemas:` entry.",
    Example("---\noutput_schema: {file: ''}\n---\nYou review code.\n", filename=A),
    Example("---\noutput_schema: {type: object}\n---\nYou review code.\n", filename=A),
)
