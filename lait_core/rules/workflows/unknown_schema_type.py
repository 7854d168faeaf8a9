"""LAIT317 unknown-schema-type: a JSON Schema uses a `type` lait does not recognize."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT317"

RULE = rule(
    CODE,
    "unknown-schema-type",
    Severity.WARNING,
    "A JSON Schema uses a `type` lait does not recognize.",
    "lait validates `type`, `enum` and `required` (through `properties` and `items`). A type other than "
    "object, array, string, boolean, null, integer or number is not enforced: it matches any value.",
    Example("inputs:\n  count: {type: int}\nsteps:\n  - jq: '$inputs.count'\n"),
    Example("inputs:\n  count: {type: integer}\nsteps:\n  - jq: '$inputs.count'\n"),
)


def unknown_type_message(ctx: str, name: str) -> str:
    return (
        f"{ctx} uses 'type: {name}', which is not a JSON Schema type lait recognizes; it will not be enforced"
        " (treated as matching any value)"
    )
