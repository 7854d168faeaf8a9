"""LAIT207 skill-frontmatter: a SKILL.md frontmatter is invalid."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT207"

RULE = rule(
    CODE,
    "skill-frontmatter",
    Severity.ERROR,
    "A SKILL.md frontmatter is invalid.",
    "Skills are checked as skills, not as agents (the original linted them as agents and failed on skill "
    "keys): the frontmatter is optional, `name` and `description` must be strings, other keys are allowed.",
    Example(
        "---\nname: [pdf]\ndescription: Fill PDF forms.\n---\nUse pdftk.\n", filename="skills/pdf/SKILL.md"
    ),
    Example(
        "---\nname: pdf\ndescription: Fill PDF forms.\n---\nUse pdftk.\n", filename="skills/pdf/SKILL.md"
    ),
)
