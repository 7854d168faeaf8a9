"""LAIT007 unknown-file-type: a path given on the command line is not a lait file type."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

OK = Example("steps:\n  - jq: '.'\n")

CODE = "LAIT007"

RULE = rule(
    CODE,
    "unknown-file-type",
    Severity.ERROR,
    "A path given on the command line is not a lait file type.",
    "Explicit paths are linted whatever their name: `.yml`/`.yaml` files are workflows (or "
    "`lait.config.yml`), `.md` files are agents (`SKILL.md` is a skill). Anything else cannot be checked.",
    Example("hello\n", filename="notes.txt"),
    OK,
)
