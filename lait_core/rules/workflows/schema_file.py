"""LAIT318 schema-file: a `{file: ...}` schema cannot be read or is not JSON."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT318"

RULE = rule(
    CODE,
    "schema-file",
    Severity.ERROR,
    "A `{file: ...}` schema cannot be read or is not JSON.",
    "Schema files are resolved against the file they are written in (the workflow's or the agent file's "
    "directory).",
    Example(
        "schemas:\n  answer: {file: schemas/answer.json}\nsteps:\n  - prompt: Hi\n    output_schema: answer\n"
    ),
    Example(
        "schemas:\n  answer: {file: schemas/answer.json}\nsteps:\n  - prompt: Hi\n    output_schema: answer\n",
        extra=(("schemas/answer.json", '{"type": "object"}\n'),),
    ),
)
