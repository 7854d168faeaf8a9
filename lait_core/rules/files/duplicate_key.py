"""LAIT002 duplicate-key: a mapping has the same key twice."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

OK = Example("steps:\n  - jq: '.'\n")

CODE = "LAIT002"

RULE = rule(
    CODE,
    "duplicate-key",
    Severity.ERROR,
    "A mapping has the same key twice.",
    "YAML mappings need unique keys; many tools silently keep the last one, which hides mistakes. lait "
    "keeps the first one, reports the second, and points at the first as a related location.",
    Example("name: a\nname: b\nsteps:\n  - jq: '.'\n"),
    OK,
)
