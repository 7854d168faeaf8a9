"""LAIT803 foreign-unknown-name: a VS Code/Copilot or Claude Code file names something that does not exist."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT803"

RULE = rule(
    CODE,
    "foreign-unknown-name",
    Severity.WARNING,
    "A VS Code/Copilot or Claude Code file names something that does not exist.",
    "Checked names: a Claude Code subagent's `tools`/`disallowedTools` against Claude Code's built-in "
    "tools (`Read`, `Grep`, `Bash(git *)`, ...) and `mcp__<server>__<tool>` against `.mcp.json`; its "
    "`model` against Claude Code's aliases and `claude-*` ids; its `mcpServers` names and the MCP keys of "
    "`.claude/settings.json` against `.mcp.json`; `<server>/*` in a VS Code agent's or prompt's `tools` "
    "against `.vscode/mcp.json`; a prompt's `agent`, an agent's `agents` and a handoff's `agent` against "
    "the agents in `.github/agents/`; `${input:id}` in `.vscode/mcp.json` against its `inputs`. Each check "
    "runs only when the file it resolves against exists (no `.mcp.json`, no MCP server check).",
    Example(
        "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grp\n---\nYou review code.\n",
        filename=".claude/agents/reviewer.md",
    ),
    Example(
        "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep\n---\nYou review code.\n",
        filename=".claude/agents/reviewer.md",
    ),
)
