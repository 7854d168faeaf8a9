"""LAIT109: a named prompt uses a variable it does not declare."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.registry import Example, rule

C = "lait.config.yml"

rule(
    "LAIT109",
    "prompt-undeclared-var",
    Severity.WARNING,
    "A named prompt's template uses `{{ vars.X }}` that its `vars:` does not declare.",
    "Named prompts (`lait -p NAME`, `lait prompt run NAME`) render their `template` with `input` and "
    "`vars`: the prompt's `vars:` defaults overridden by `--var KEY=VALUE`. Templates are strict, so a "
    "variable without a default fails the run unless every invocation passes it with `--var`.",
    Example("prompts:\n  summary:\n    template: 'In {{ vars.words }} words: {{ input }}'\n", filename=C),
    Example(
        "prompts:\n  summary:\n    template: 'In {{ vars.words }} words: {{ input }}'\n    vars: {words: '20'}\n",
        filename=C,
    ),
)
