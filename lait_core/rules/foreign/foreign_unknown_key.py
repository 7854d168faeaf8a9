"""LAIT801 foreign-unknown-key: a VS Code/Copilot or Claude Code file has a key its format does not document."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT801"

RULE = rule(
    CODE,
    "foreign-unknown-key",
    Severity.WARNING,
    "A VS Code/Copilot or Claude Code file has a key its format does not document.",
    "lait checks other tools' agent files against their own formats: VS Code and GitHub Copilot custom "
    "agents (`*.agent.md`, `.github/agents/`), prompt files (`*.prompt.md`), instructions "
    "(`*.instructions.md`, `.github/copilot-instructions.md`), Claude Code subagents (`.claude/agents/`), "
    "skills in `.claude/skills/`, `.github/skills/` and `.agents/skills/`, `.mcp.json`, `.vscode/mcp.json` "
    "and the MCP keys of `.claude/settings.json`. Those tools ignore a key they do not know without a word, "
    "so a misspelt key silently does nothing. The message names the closest documented key; the fix "
    "(`lait lint --fix`) is safe when the two differ only in case, `-` or `_`, unsafe otherwise. A retired "
    "key (VS Code's `infer`) is reported too. docs/foreign-formats.md lists every format's fields and the "
    "pages they come from.",
    Example(
        "---\nname: reviewer\ndescription: Reviews code.\ncolour: blue\n---\nYou review code.\n",
        filename=".claude/agents/reviewer.md",
    ),
    Example(
        "---\nname: reviewer\ndescription: Reviews code.\ncolor: blue\n---\nYou review code.\n",
        filename=".claude/agents/reviewer.md",
    ),
)
