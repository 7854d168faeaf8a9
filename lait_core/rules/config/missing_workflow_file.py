"""LAIT105 missing-workflow-file: a `workflows:` registry entry names a file that does not exist."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.rules.registry import Example, rule

C = "lait.config.yml"

CODE = "LAIT105"

RULE = rule(
    CODE,
    "missing-workflow-file",
    Severity.ERROR,
    "A `workflows:` registry entry names a file that does not exist.",
    "`lait run NAME` looks the name up in `workflows:`; the path is relative to the config file that "
    "defines it.",
    Example("workflows:\n  triage: ./flows/triage.yml\n", filename=C),
    Example(
        "workflows:\n  triage: ./flows/triage.yml\n",
        filename=C,
        extra=(("flows/triage.yml", "steps:\n  - jq: '.'\n"),),
    ),
)
