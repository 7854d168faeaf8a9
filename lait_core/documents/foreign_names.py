"""Names other tools' files refer to: Claude Code's tools and models, VS Code's tool sets and agents."""

from __future__ import annotations

import re

CLAUDE_TOOLS = (
    "Agent",
    "AskUserQuestion",
    "Bash",
    "BashOutput",
    "Edit",
    "ExitPlanMode",
    "Glob",
    "Grep",
    "KillShell",
    "LS",
    "MultiEdit",
    "NotebookEdit",
    "NotebookRead",
    "Read",
    "Skill",
    "SlashCommand",
    "Task",
    "TodoWrite",
    "WebFetch",
    "WebSearch",
    "Write",
)
"""Claude Code's built-in tool names (a subagent's ``tools``/``disallowedTools``)."""

CLAUDE_MODEL_ALIASES = ("sonnet", "opus", "haiku", "inherit", "opusplan")
_CLAUDE_MODEL_ID = re.compile(r"claude-[a-z0-9.\-]+(?:\[1m\])?")
_CLAUDE_TOOL = re.compile(r"(?P<name>[A-Za-z_][A-Za-z0-9_]*)(?:\((?P<arg>.*)\))?")
_MCP_TOOL = re.compile(r"mcp__(?P<server>[A-Za-z0-9_.\-]+?)(?:__(?P<tool>.+))?")

VSCODE_BUILTIN_TOOLSETS = (
    "agent",
    "edit",
    "execute",
    "read",
    "search",
    "todo",
    "vscode",
    "web",
    "new",
    "runCommands",
    "runTasks",
    "github",
    "playwright",
)
"""Tool-set prefixes VS Code and GitHub's cloud agent provide themselves (``search/codebase``)."""
VSCODE_BUILTIN_AGENTS = ("ask", "agent", "plan", "edit")


def claude_tool(entry: str) -> tuple[str, str | None]:
    """(tool name, MCP server or None) of a Claude Code tool entry such as ``Bash(git *)`` or
    ``mcp__github__get_issue``."""
    mcp = _MCP_TOOL.fullmatch(entry)
    if mcp:
        return entry, mcp.group("server")
    match = _CLAUDE_TOOL.fullmatch(entry)
    return (match.group("name") if match else entry), None


def is_claude_model(value: str) -> bool:
    return value in CLAUDE_MODEL_ALIASES or bool(_CLAUDE_MODEL_ID.fullmatch(value))


def split_names(value: object) -> list[str] | None:
    """The names of a ``names`` field: a comma-separated string (Claude Code also takes spaces) or a
    list of strings; None when it is neither."""
    if isinstance(value, str):
        return [n for n in re.split(r"[,\s]+(?![^()]*\))", value) if n]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return list(value)
    return None
