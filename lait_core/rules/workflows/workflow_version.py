"""LAIT302 workflow-version: the file is a version 1 workflow, or names an unsupported version."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

OK = Example("steps:\n  - id: hello\n    jq: '\"hi\"'\n")

CODE = "LAIT302"

RULE = rule(
    CODE,
    "workflow-version",
    Severity.ERROR,
    "The file is a version 1 workflow, or names an unsupported version.",
    "lait reads version 2 workflows, where each step has one kind key (`prompt:`, `run:`, `jq:` ...). A "
    "`nodes:` key or `version: 1` means the old format: rewrite it (see the migration guide). Any version "
    "other than 2 is unsupported; omit `version:` to use the latest.",
    Example("version: 1\nnodes:\n  a: {type: transform, jq: '.'}\nsteps:\n  - use: a\n"),
    OK,
)
