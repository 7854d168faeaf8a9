"""LAIT209 foreign-agent-format: an agent file is in Claude Code's subagent format, not lait's."""

from __future__ import annotations

from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Severity

CODE = "LAIT209"

RULE = rule(
    CODE,
    "foreign-agent-format",
    Severity.WARNING,
    "An agent file is in Claude Code's subagent format, not lait's.",
    "Claude Code keeps subagents as Markdown with frontmatter too, but `tools: Read, Grep` is a string of "
    "its own tool names, `model: sonnet` one of its model aliases, and keys such as `color`, `effort`, "
    "`permissionMode` or `mcpServers` have no lait counterpart. Such a file (one with a key only Claude Code "
    "uses or a `tools` string, or any file in `.claude/agents/` that is not a valid lait agent) gets this one "
    "diagnostic naming every key that differs, instead of an error per key. A file in `.claude/agents/` is "
    "linted as what it is, a Claude Code subagent (LAIT801-LAIT804). To run it with lait, convert it: "
    "`lait import PATH` writes a lait agent (`tools` from lait.config.yml, `model` an alias from `models:` "
    "or a model id, `mcp` the servers) and prints what could not be carried over.",
    Example(
        "---\nname: reviewer\ndescription: Reviews code.\ntools: Read, Grep\nmodel: sonnet\ncolor: blue\n---\n"
        "You review code.\n",
        filename="agents/reviewer.md",
    ),
    Example(
        "---\nname: reviewer\ndescription: Reviews code.\nmodel: qwen\n---\nYou review code.\n",
        filename="agents/reviewer.md",
    ),
)
