"""Agent files written for another tool: Claude Code's subagent format (`.claude/agents/*.md`).

Such a file is Markdown with YAML frontmatter like a lait agent, but its keys mean other things
(`tools: Read, Grep` is a string of Claude Code's own tool names, `model: sonnet` a Claude Code
alias) and several have no lait counterpart (`color`, `effort`, `permissionMode`, ...). Instead of
one unknown-key or wrong-type error per key, the file gets one diagnostic (LAIT209) that names the
format and every key that differs.
"""

from __future__ import annotations

from itertools import pairwise

from lait_core.documents.document_models import AgentFrontmatter
from lait_core.rules.agents.foreign_agent_format import CODE as CODE_FOREIGN
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

CLAUDE_CODE_ONLY = (
    "color",
    "effort",
    "permissionMode",
    "disallowedTools",
    "maxTurns",
    "mcpServers",
    "hooks",
    "memory",
    "background",
    "isolation",
    "disabled",
)
"""Frontmatter keys of Claude Code subagents that a lait agent does not have."""

CLAUDE_CODE_MODELS = ("sonnet", "opus", "haiku", "inherit")

_LAIT_KEYS = tuple(AgentFrontmatter.model_fields)


def _in_claude_folder(path: str) -> bool:
    parts = path.replace("\\", "/").split("/")
    return any(a == ".claude" and b == "agents" for a, b in pairwise(parts))


def _text(node: Node | None) -> str | None:
    value = node.to_python() if isinstance(node, ScalarNode) else None
    return value if isinstance(value, str) else None


def claude_code_agent(root: MappingNode, path: str) -> Diagnostic | None:
    """One diagnostic when ``root`` (an agent file's frontmatter) is in Claude Code's format: it has
    a key only Claude Code uses, a comma-separated ``tools`` string, or the file lives in
    ``.claude/agents/`` and its frontmatter is not a valid lait agent's; else None."""
    tools = root.get("tools")
    tools_text = _text(tools)
    model_text = _text(root.get("model"))
    own = [k for k in CLAUDE_CODE_ONLY if k in root]
    unknown = [str(k) for k in root if k not in _LAIT_KEYS and k not in CLAUDE_CODE_ONLY]
    skills = root.get("skills")
    differs: list[str] = []
    if tools_text is not None:
        differs.append(
            f"'tools: {tools_text}' is a string of Claude Code tool names (a lait agent's 'tools' is a list of"
            " shell tools defined under 'tools:' in lait.config.yml)"
        )
    if model_text in CLAUDE_CODE_MODELS:
        differs.append(
            f"'model: {model_text}' is a Claude Code model alias (a lait agent's 'model' is an alias from"
            " 'models:' in lait.config.yml or a model id)"
        )
    if skills is not None and not isinstance(skills, SequenceNode):
        differs.append("'skills' is a string (a lait agent's 'skills' is a list of names from 'skills:')")
    if "mcpServers" in root:
        differs.append("'mcpServers' (a lait agent's 'mcp' lists servers from 'mcp_servers:')")
        own.remove("mcpServers")
    if own:
        what = "Claude Code keys" if len(own) > 1 else "a Claude Code key"
        differs.append(", ".join(f"'{k}'" for k in own) + f" ({what} with no lait counterpart)")
    if unknown:
        what = "keys" if len(unknown) > 1 else "a key"
        differs.append(", ".join(f"'{k}'" for k in unknown) + f" ({what} neither format has)")
    claude = bool(own) or "mcpServers" in root or tools_text is not None
    if not claude and not (_in_claude_folder(path) and differs):
        return None
    first = next(
        (
            key
            for key, _k, _v in root.items()
            if key in CLAUDE_CODE_ONLY or key in unknown or key in ("tools", "model", "skills")
        ),
        None,
    )
    at = root.key_node(first) if first is not None else None
    return Diagnostic(
        CODE_FOREIGN,
        "this is a Claude Code agent file (the format of .claude/agents/*.md), not a lait agent; it differs in: "
        + "; ".join(differs)
        + ". A lait agent's frontmatter takes: "
        + ", ".join(_LAIT_KEYS)
        + f". Convert it with 'lait import {path or 'FILE'}'.",
        (at or root).range,
        Severity.WARNING,
    )
