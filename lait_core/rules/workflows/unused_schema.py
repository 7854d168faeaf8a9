"""LAIT315 unused-schema: a `schemas:` entry is never referenced."""

from __future__ import annotations

from collections.abc import Set

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode

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


def check_unused_schemas(schemas: MappingNode, used: Set[str], out: list[Diagnostic]) -> None:
    """Warn at the key of each entry of a workflow's ``schemas:`` whose name is not in ``used``."""
    for name, knode, _v in schemas.items():
        if name not in used:
            out.append(
                Diagnostic(
                    CODE,
                    f"schema '{name}' is defined in 'schemas:' but never referenced",
                    knode.range,
                    Severity.WARNING,
                )
            )
