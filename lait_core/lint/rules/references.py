"""LAIT4xx: templates, jq and the references inside them."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.registry import Example, rule

E = Severity.ERROR
W = Severity.WARNING

rule(
    "LAIT401",
    "template-syntax",
    E,
    "A Handlebars template does not parse.",
    "Templates are `prompt`, `system`, `ask`, `write`, `run` items, `files`/`images` items and agent bodies. "
    "The diagnostic points at the exact characters, also inside block scalars (`prompt: |`).",
    Example("steps:\n  - prompt: |\n      Summarize {{#if input}}the text{{/each}}\n"),
    Example("steps:\n  - prompt: |\n      Summarize {{#if input}}the text{{/if}}\n"),
)
rule(
    "LAIT402",
    "jq-syntax",
    E,
    "A jq expression does not compile.",
    "`when`, `input`, `output`, `jq`, `with`, `for_each`, `while`, `until`, switch case `when` and the "
    "top-level `output` are jq, compiled with `$steps`, `$inputs` and `$loop` declared; any other variable "
    "(`$vars` was removed in version 2) or an unknown function is an error.",
    Example("steps:\n  - jq: '.items | map(.name'\n"),
    Example("steps:\n  - jq: '.items | map(.name)'\n"),
)
rule(
    "LAIT403",
    "undeclared-input",
    E,
    "A template or jq expression reads an input the workflow does not declare.",
    "`{{ inputs.x }}` and `$inputs.x` must name an entry of `inputs:`; at run time the value would be "
    "missing (a template error, or null in jq).",
    Example("inputs:\n  topic: string\nsteps:\n  - prompt: 'Write about {{ inputs.topc }}'\n"),
    Example("inputs:\n  topic: string\nsteps:\n  - prompt: 'Write about {{ inputs.topic }}'\n"),
)
rule(
    "LAIT404",
    "unknown-step-reference",
    W,
    "A template or jq expression reads a step id that no step in the file has.",
    '`{{ steps.x }}`, `$steps.x` and `$steps["x"]` must name the `id` of a step in the same file '
    "(any step, in any nested list).",
    Example("steps:\n  - id: draft\n    prompt: Draft it\n  - prompt: 'Improve {{ steps.drft }}'\n"),
    Example("steps:\n  - id: draft\n    prompt: Draft it\n  - prompt: 'Improve {{ steps.draft }}'\n"),
)
