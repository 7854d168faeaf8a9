"""LAIT005 not-text: a file is binary or not UTF-8."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

OK = Example("steps:\n  - jq: '.'\n")

CODE = "LAIT005"

RULE = rule(
    CODE,
    "not-text",
    Severity.ERROR,
    "A file is binary or not UTF-8.",
    "lait files are UTF-8 text. A file with NUL bytes is binary; invalid UTF-8 is reported at the first bad "
    "byte.",
    Example("name: caf\udce9\nsteps:\n  - jq: '.'\n"),
    OK,
)
