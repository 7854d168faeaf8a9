"""LAIT305 invalid-identifier: a step id or a name in `inputs:`/`schemas:`/`agents:`/`parallel:` is not an identifier."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT305"

RULE = rule(
    CODE,
    "invalid-identifier",
    Severity.ERROR,
    "A step id or a name in `inputs:`/`schemas:`/`agents:`/`parallel:` is not an identifier.",
    "Names must start with a letter or `_` followed by letters, digits, `_` or `-`, so they can be used as "
    "`steps.<id>`, `$inputs.<name>` and so on.",
    Example("inputs:\n  1st: string\nsteps:\n  - jq: '.'\n"),
    Example("inputs:\n  first: string\nsteps:\n  - jq: '.'\n"),
)
