"""LAIT111: a named prompt's template names a variable a named prompt does not have."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.registry import Example, rule

C = "lait.config.yml"

rule(
    "LAIT111",
    "prompt-unknown-name",
    Severity.WARNING,
    "A named prompt's template names a variable other than `input` and `vars`.",
    "A named prompt (`lait -p NAME`, `lait prompt run NAME`) renders its `template` with two names: "
    "`input` (the text after the prompt's name) and `vars` (its `vars:` defaults overridden by "
    "`--var KEY=VALUE`). Templates render strictly, so any other name, such as `{{ words }}` for "
    "`{{ vars.words }}`, fails every run. Names inside `{{#each}}` and `{{#with}}` blocks are the "
    "current item's and are not checked.",
    Example("prompts:\n  summary:\n    template: 'In {{ words }} words: {{ input }}'\n", filename=C),
    Example(
        "prompts:\n  summary:\n    template: 'In {{ vars.words }} words: {{ input }}'\n    vars: {words: '20'}\n",
        filename=C,
    ),
)
