"""LAIT104 tool-definition: a shell tool under `tools:` cannot be offered to the model."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.rules.registry import Example, rule

C = "lait.config.yml"

CODE = "LAIT104"

RULE = rule(
    CODE,
    "tool-definition",
    Severity.ERROR,
    "A shell tool under `tools:` cannot be offered to the model.",
    "Every `tools:` entry is checked whether or not anything uses it: `command` must be a non-empty argv "
    "list, and `parameters` (the JSON Schema the model sees) must be a JSON object.",
    Example("tools:\n  grep:\n    command: []\n", filename=C),
    Example(
        "tools:\n  grep:\n    command: [rg, '--', '{{ input.pattern }}']\n    parameters: {type: object}\n",
        filename=C,
    ),
)
