"""LAIT701 test-unknown-key: a test or eval file, or one of its assertions, has a key lait does not know."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT701"

_WORKFLOW = ("wf.yml", "steps:\n  - prompt: Say hi\n")

RULE = rule(
    CODE,
    "test-unknown-key",
    Severity.ERROR,
    "A test or eval file, or one of its assertions, has a key lait does not know.",
    "`lait test` and `lait eval` reject unknown keys, so a misspelt key fails the whole "
    "file before anything runs. A test file has `workflow`, `input`, `inputs`, `replay` and `assert`; an eval "
    "file `target` (`workflow` and `inputs`, or `model` and `prompt`) and `cases` (`input`, `assert`); each "
    "assertion has `type` and the fields of its type (`value`, `expr`, `name`/`min`/`max`/`args_jq`, "
    "`id`/`assert`, the `max_*` bounds of `usage`, `criteria`/`model`/`threshold`). A close match is "
    "offered as a quick fix.",
    Example(
        "workflow: wf.yml\nreplay: tape\nasert:\n  - type: contains\n    value: hi\n",
        "smoke.test.yml",
        extra=(_WORKFLOW, ("tape/.keep", "")),
    ),
    Example(
        "workflow: wf.yml\nreplay: tape\nassert:\n  - type: contains\n    value: hi\n",
        "smoke.test.yml",
        extra=(_WORKFLOW, ("tape/.keep", "")),
    ),
)
