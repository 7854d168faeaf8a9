"""LAIT301 workflow-not-mapping: the workflow file is not a YAML mapping."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

OK = Example("steps:\n  - id: hello\n    jq: '\"hi\"'\n")

CODE = "LAIT301"

RULE = rule(
    CODE,
    "workflow-not-mapping",
    Severity.ERROR,
    "The workflow file is not a YAML mapping.",
    "A workflow is a mapping with at least `steps:`.",
    Example("- jq: '.'\n"),
    OK,
)
