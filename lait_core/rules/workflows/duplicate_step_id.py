"""LAIT311 duplicate-step-id: two steps in one file have the same `id`."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT311"

RULE = rule(
    CODE,
    "duplicate-step-id",
    Severity.ERROR,
    "Two steps in one file have the same `id`.",
    "Ids are unique across the whole file, nested lists and `on_error` included, because `steps.<id>` "
    "names exactly one recorded value. The diagnostic points at the first use as a related location.",
    Example("steps:\n  - id: a\n    jq: '1'\n  - id: a\n    jq: '2'\n"),
    Example("steps:\n  - id: a\n    jq: '1'\n  - id: b\n    jq: '2'\n"),
)
