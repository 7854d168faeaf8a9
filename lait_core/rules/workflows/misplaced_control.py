"""LAIT312 misplaced-control: `break`, `stop`, `ask` or `write` is where it cannot run."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT312"

RULE = rule(
    CODE,
    "misplaced-control",
    Severity.ERROR,
    "`break`, `stop`, `ask` or `write` is where it cannot run.",
    "`break` must be inside a `for_each`/`while`/`until` body and not across a `parallel` branch or a "
    "concurrent `for_each`; `stop` and `ask` cannot run inside a parallel branch or a concurrent "
    "`for_each`; a `write` with a fixed path inside a concurrent `for_each` would race. A child "
    "workflow inherits the placement of the `workflow:` step that calls it: an `ask` or fixed-path `write` "
    "in the child (or its children) is reported at that step, as the run refuses it there.",
    Example("steps:\n  - break: true\n"),
    Example(
        "steps:\n  - while: '. < 3'\n    max_iterations: 5\n    steps:\n      - jq: '. + 1'\n"
        "      - when: '. == 2'\n        break: true\n"
    ),
)
