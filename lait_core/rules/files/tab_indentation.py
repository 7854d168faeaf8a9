"""LAIT008 tab-indentation: a tab character is used where YAML needs spaces."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

OK = Example("steps:\n  - jq: '.'\n")

CODE = "LAIT008"

RULE = rule(
    CODE,
    "tab-indentation",
    Severity.ERROR,
    "A tab character is used where YAML needs spaces.",
    "YAML forbids tabs for indentation; editors that insert tabs produce files every YAML parser rejects. "
    "A tab as separation space (`key:\tvalue`, `-\tvalue`) is valid YAML 1.2 and is not reported.",
    Example("steps:\n\t- jq: '.'\n"),
    OK,
)
