"""LAIT006 file-too-large: a file is larger than 16 MiB."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

OK = Example("steps:\n  - jq: '.'\n")

CODE = "LAIT006"

RULE = rule(
    CODE,
    "file-too-large",
    Severity.ERROR,
    "A file is larger than 16 MiB.",
    "Every file lait reads (config, workflow, agent, schema) is capped at 16 MiB, like the original lait.",
    Example("", filename="huge.yml"),
    OK,
)
