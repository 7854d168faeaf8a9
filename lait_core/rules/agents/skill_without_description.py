"""LAIT208 skill-without-description: a skill has no `description`."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT208"

RULE = rule(
    CODE,
    "skill-without-description",
    Severity.WARNING,
    "A skill has no `description`.",
    "With progressive disclosure the model only sees each skill's name and description, so a skill without "
    "a description is rarely used well.",
    Example("---\nname: pdf\n---\nUse pdftk.\n", filename="skills/pdf/SKILL.md"),
    Example(
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pdftk.\n", filename="skills/pdf/SKILL.md"
    ),
)
