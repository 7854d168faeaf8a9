"""LAIT503 unknown-skill: a `skills:` list names a skill that is not under `skills:` in lait.config.yml."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CONFIG = (
    "mcp_servers:\n  fs: {command: mcp-fs}\n  locked: {command: mcp-x, allowed_tools: []}\n"
    "skills:\n  pdf: skills/pdf\nagents:\n  reviewer: agents/reviewer.md\n"
    "tools:\n  grep: {command: [rg, '--', '{{ input.pattern }}']}\n"
)

CODE = "LAIT503"

RULE = rule(
    CODE,
    "unknown-skill",
    Severity.ERROR,
    "A `skills:` list names a skill that is not under `skills:` in lait.config.yml.",
    "Skill names refer to the config registry.",
    Example("steps:\n  - prompt: Fill it\n    skills: [pdfs]\n", config=CONFIG),
    Example("steps:\n  - prompt: Fill it\n    skills: [pdf]\n", config=CONFIG),
)
