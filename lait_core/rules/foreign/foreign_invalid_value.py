"""LAIT802 foreign-invalid-value: a VS Code/Copilot or Claude Code file has a wrong value or lacks a key its host requires."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT802"

RULE = rule(
    CODE,
    "foreign-invalid-value",
    Severity.ERROR,
    "A VS Code/Copilot or Claude Code file has a wrong value or lacks a key its host requires.",
    "The hosts drop such a file without a word: a Claude Code subagent with `hooks: []` (a list where a "
    "mapping belongs) or without `name` never appears, a skill whose `name` is not lowercase-with-hyphens "
    "or differs from its folder is skipped, an `.mcp.json` that is not JSON loads no server. lait reports "
    "the wrong type (with what it found), a value outside the documented ones (`permissionMode`, "
    "`memory`, `effort`, `target`, an MCP server's `type`, ...) with the closest one, a missing required "
    "key (`name`/`description` of subagents and skills, `command` or `url` of an MCP server, the "
    "`label`/`agent` of a handoff), and JSON syntax errors.",
    Example(
        "---\nname: reviewer\ndescription: Reviews code.\nhooks: []\n---\nYou review code.\n",
        filename=".claude/agents/reviewer.md",
    ),
    Example(
        "---\nname: reviewer\ndescription: Reviews code.\nhooks: {}\n---\nYou review code.\n",
        filename=".claude/agents/reviewer.md",
    ),
)
