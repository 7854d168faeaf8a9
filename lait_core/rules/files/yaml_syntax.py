"""LAIT001 yaml-syntax: the file is not valid YAML."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

OK = Example("steps:\n  - jq: '.'\n")

CODE = "LAIT001"

RULE = rule(
    CODE,
    "yaml-syntax",
    Severity.ERROR,
    "The file is not valid YAML.",
    "lait reads YAML 1.2. A syntax error stops the file from being read at all, so it is reported at the "
    "exact character where the parser gave up. Undefined aliases, more than one document in a file and "
    "complex (non-scalar) mapping keys are reported under this code too.",
    Example("steps:\n  - jq: [1, 2\n"),
    OK,
)
