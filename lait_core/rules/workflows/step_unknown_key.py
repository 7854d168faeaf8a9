"""LAIT309 step-unknown-key: a step has a key its kind does not accept."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT309"

RULE = rule(
    CODE,
    "step-unknown-key",
    Severity.ERROR,
    "A step has a key its kind does not accept.",
    "Each kind accepts its own keys plus `id`, `when`, `input`, `output` (and `retry`, `timeout`, "
    "`on_error` except for stop/break). An `agent:` step cannot set `system` or schemas, for example.",
    Example("steps:\n  - prompt: Hi\n    temprature: 0.2\n"),
    Example("steps:\n  - prompt: Hi\n    temperature: 0.2\n"),
)
