"""LAIT401 template-syntax: a Handlebars template does not parse."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT401"

RULE = rule(
    CODE,
    "template-syntax",
    Severity.ERROR,
    "A Handlebars template does not parse.",
    "Templates are `prompt`, `system`, `ask`, `write`, `run` items, `files`/`images` items and agent bodies. "
    "The diagnostic points at the exact characters, also inside block scalars (`prompt: |`).",
    Example("steps:\n  - prompt: |\n      Summarize {{#if input}}the text{{/each}}\n"),
    Example("steps:\n  - prompt: |\n      Summarize {{#if input}}the text{{/if}}\n"),
)
