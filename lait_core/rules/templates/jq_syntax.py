"""LAIT402 jq-syntax: a jq expression does not compile."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT402"

RULE = rule(
    CODE,
    "jq-syntax",
    Severity.ERROR,
    "A jq expression does not compile.",
    "`when`, `input`, `output`, `jq`, `with`, `for_each`, `while`, `until`, switch case `when` and the "
    "top-level `output` are jq, compiled with `$steps`, `$inputs` and `$loop` declared; any other variable "
    "(`$vars` was removed in version 2) or an unknown function is an error.",
    Example("steps:\n  - jq: '.items | map(.name'\n"),
    Example("steps:\n  - jq: '.items | map(.name)'\n"),
)
