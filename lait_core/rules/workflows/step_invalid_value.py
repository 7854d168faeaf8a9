"""LAIT310 step-invalid-value: a step value is wrong for its kind."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT310"

RULE = rule(
    CODE,
    "step-invalid-value",
    Severity.ERROR,
    "A step value is wrong for its kind.",
    "Types and ranges of step keys, and the kind rules: `run` starts with a program, `ask` is not blank, "
    "`choices` are non-empty and contain `default`, `write` has a path, `max_iterations` is at least 1, "
    "`stop`/`break` are `true`, `decide` questions have valid criteria.",
    Example("steps:\n  - ask: Deploy?\n    choices: [yes, no]\n    default: maybe\n"),
    Example("steps:\n  - ask: Deploy?\n    choices: [yes, no]\n    default: no\n"),
)
