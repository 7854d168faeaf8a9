"""LAIT003 alias-expansion: an alias cannot be expanded safely."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT003"

RULE = rule(
    CODE,
    "alias-expansion",
    Severity.ERROR,
    "An alias cannot be expanded safely.",
    "Anchors and aliases are allowed, and a diagnostic inside an aliased node points at the alias. An alias "
    "that refers to the node containing it, or aliases that would expand to more than 100,000 nodes (the "
    "'billion laughs' attack), are reported at the alias instead of exhausting memory.",
    Example("steps: &s\n  - jq: '.'\n  - group: *s\n"),
    Example("steps:\n  - id: a\n    jq: &expr '.'\n  - id: b\n    jq: *expr\n", filename="aliases.yml"),
)
