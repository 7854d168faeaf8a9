"""Which other tool's format a file is in (by its path), and the fields each format documents.

Every field list below comes from the tools' public documentation (cited per format in
``source`` and in docs/foreign-formats.md). Where a page is silent about a type or a value set,
the field is typed loosely (``any``) rather than guessed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from enum import StrEnum
from itertools import pairwise
from typing import Literal


class Format(StrEnum):
    CLAUDE_AGENT = "claude-agent"
    """Claude Code subagent: ``.claude/agents/**/*.md``."""
    CLAUDE_SKILL = "claude-skill"
    """Claude Code skill: ``.claude/skills/<name>/SKILL.md``."""
    CLAUDE_MCP = "claude-mcp"
    """Claude Code project MCP servers: ``.mcp.json``."""
    CLAUDE_SETTINGS = "claude-settings"
    """Claude Code settings (only the MCP section is checked): ``.claude/settings.json``."""
    VSCODE_AGENT = "vscode-agent"
    """VS Code / GitHub Copilot custom agent: ``*.agent.md`` or ``.github/agents/*.md``."""
    VSCODE_PROMPT = "vscode-prompt"
    """VS Code prompt file: ``*.prompt.md``."""
    VSCODE_INSTRUCTIONS = "vscode-instructions"
    """VS Code / Copilot instructions: ``*.instructions.md``, ``.github/copilot-instructions.md``."""
    VSCODE_MCP = "vscode-mcp"
    """VS Code MCP servers: ``.vscode/mcp.json``."""
    COPILOT_SKILL = "copilot-skill"
    """VS Code / Copilot skill: ``.github/skills/<name>/SKILL.md``."""
    AGENT_SKILL = "agent-skill"
    """An Agent Skills skill for any host: ``.agents/skills/<name>/SKILL.md``."""


FieldType = Literal["string", "bool", "int", "names", "strings", "models", "mapping", "map", "list", "any"]
"""``names``: a comma-separated string or a list of strings; ``strings``: a list of strings;
``models``: a string or a list of strings; ``mapping``: fixed keys (``children``) or any mapping;
``map``: any keys, each value a mapping with ``children``; ``list``: a list (of mappings with
``children`` when given)."""

NameKind = Literal["", "claude-tool", "claude-model", "vscode-tool", "vscode-agent", "mcp-server", "input"]


@dataclass(frozen=True, slots=True)
class Field:
    name: str
    type: FieldType
    doc: str
    values: tuple[str, ...] = ()
    """The documented values; another value is an error (unless ``open_values``)."""
    required: bool = False
    names: NameKind = ""
    """What the value's names must resolve to (LAIT803)."""
    children: tuple[Field, ...] = ()
    open_values: bool = False
    """``values`` are the common ones, not all (a model id is fine too)."""
    deprecated: str = ""


@dataclass(frozen=True, slots=True)
class FormatSpec:
    format: Format
    title: str
    source: tuple[str, ...]
    fields: tuple[Field, ...]
    markdown: bool = True
    json_comments: bool = False
    """JSON with comments and trailing commas (VS Code's JSONC)."""
    open_keys: bool = False
    """Other top-level keys are not checked (only the documented section is)."""
    host_prompt_limit: int = 0
    """Most characters the host takes in the body (0: none documented)."""
    examples: dict[str, str] = field(default_factory=dict)

    def field(self, name: str) -> Field | None:
        return next((f for f in self.fields if f.name == name), None)


VSCODE_AGENT_DOC = "https://code.visualstudio.com/docs/copilot/customization/custom-agents"
GITHUB_AGENT_DOC = "https://docs.github.com/en/copilot/reference/custom-agents-configuration"
VSCODE_PROMPT_DOC = "https://code.visualstudio.com/docs/copilot/customization/prompt-files"
VSCODE_INSTRUCTIONS_DOC = "https://code.visualstudio.com/docs/copilot/customization/custom-instructions"
VSCODE_SKILLS_DOC = "https://code.visualstudio.com/docs/copilot/customization/agent-skills"
VSCODE_MCP_DOC = "https://code.visualstudio.com/docs/copilot/reference/mcp-configuration"
CLAUDE_AGENT_DOC = "https://code.claude.com/docs/en/sub-agents"
CLAUDE_SKILL_DOC = "https://code.claude.com/docs/en/skills"
CLAUDE_MCP_DOC = "https://code.claude.com/docs/en/mcp"
CLAUDE_SETTINGS_DOC = "https://code.claude.com/docs/en/settings"

GITHUB_PROMPT_LIMIT = 30_000
"""GitHub's custom agent configuration reference: "The prompt can be a maximum of 30,000 characters"."""

_HOOKS = Field(
    "hooks",
    "mapping",
    "Lifecycle hooks scoped to this file, by event name (`PreToolUse`, `PostToolUse`, `Stop`, ...): a mapping, "
    "not a list.",
)

# -- Claude Code ---------------------------------------------------------------------------------
CLAUDE_AGENT = FormatSpec(
    Format.CLAUDE_AGENT,
    "Claude Code subagent",
    (CLAUDE_AGENT_DOC, VSCODE_AGENT_DOC + "#_claude-agent-format"),
    (
        Field("name", "string", "Unique identifier, lowercase letters and hyphens.", required=True),
        Field("description", "string", "When Claude should delegate to this subagent.", required=True),
        Field(
            "tools",
            "names",
            "Tools the subagent may use (comma-separated or a list); all tools when omitted.",
            names="claude-tool",
        ),
        Field(
            "disallowedTools",
            "names",
            "Tools removed from the inherited or listed ones.",
            names="claude-tool",
        ),
        Field(
            "model",
            "string",
            "`sonnet`, `opus`, `haiku`, a full model id, or `inherit` (the default).",
            values=("sonnet", "opus", "haiku", "inherit"),
            open_values=True,
            names="claude-model",
        ),
        Field(
            "permissionMode",
            "string",
            "How tool permissions are handled.",
            values=("default", "acceptEdits", "auto", "dontAsk", "bypassPermissions", "plan"),
        ),
        Field("maxTurns", "int", "Most agentic turns before the subagent stops."),
        Field("skills", "names", "Skills preloaded into the subagent's context."),
        Field(
            "mcpServers",
            "list",
            "MCP servers of this subagent: server names (from `.mcp.json`) or `{name: config}` mappings.",
            names="mcp-server",
        ),
        _HOOKS,
        Field("memory", "string", "Persistent memory scope.", values=("user", "project", "local")),
        Field("background", "bool", "Always run as a background task."),
        Field(
            "effort",
            "string",
            "Reasoning effort of the subagent's model.",
            values=("low", "medium", "high", "xhigh", "max"),
        ),
        Field("isolation", "string", "`worktree`: run in a temporary git worktree.", values=("worktree",)),
        Field(
            "color",
            "string",
            "Display color in the terminal.",
            values=("red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan"),
        ),
        Field("initialPrompt", "string", "A first user turn sent when the subagent runs as the main agent."),
    ),
)

_SKILL_BASE = (
    Field(
        "name",
        "string",
        "The skill's name: lowercase letters, digits and hyphens, at most 64 characters, the name of its folder.",
        required=True,
    ),
    Field(
        "description",
        "string",
        "What the skill does and when to use it (at most 1024 characters).",
        required=True,
    ),
    Field("license", "string", "The skill's license."),
    Field("compatibility", "string", "Environment requirements."),
    Field("metadata", "mapping", "Further string properties."),
    Field("allowed-tools", "any", "Tools the skill may use without asking."),
)
_CLAUDE_SKILL_FIELDS = (
    Field("when_to_use", "string", "More text on when Claude should use the skill."),
    Field("argument-hint", "string", "Hint shown after `/skill-name`."),
    Field("arguments", "any", "Named arguments of the slash command."),
    Field("disable-model-invocation", "bool", "`true`: only a person can invoke the skill."),
    Field("user-invocable", "bool", "`false`: hidden from the `/` menu."),
    Field("model", "string", "Model used while the skill runs.", names="claude-model"),
    Field("effort", "string", "Effort level override.", values=("low", "medium", "high", "xhigh", "max")),
    Field("context", "string", "`fork`: run in an isolated subagent context.", values=("fork", "inherit")),
    Field("agent", "string", "Subagent type used with `context: fork`."),
    _HOOKS,
    Field("paths", "names", "Glob patterns limiting when the skill loads by itself."),
    Field("shell", "string", "Shell for `!` command blocks.", values=("bash", "powershell")),
)
_COPILOT_SKILL_FIELDS = (
    Field("argument-hint", "string", "Hint shown when the skill is invoked as a slash command."),
    Field("user-invocable", "bool", "`false`: hidden from the `/` menu (default `true`)."),
    Field("disable-model-invocation", "bool", "`true`: the agent never loads the skill by itself."),
    Field(
        "context", "string", "`fork`: run in a dedicated subagent context (experimental).", values=("fork",)
    ),
)
CLAUDE_SKILL = FormatSpec(
    Format.CLAUDE_SKILL,
    "Claude Code skill",
    (CLAUDE_SKILL_DOC, "https://agentskills.io/specification"),
    _SKILL_BASE + _CLAUDE_SKILL_FIELDS,
)
COPILOT_SKILL = FormatSpec(
    Format.COPILOT_SKILL,
    "VS Code / GitHub Copilot skill",
    (VSCODE_SKILLS_DOC, "https://agentskills.io/specification"),
    _SKILL_BASE + _COPILOT_SKILL_FIELDS,
)


def _union(*groups: tuple[Field, ...]) -> tuple[Field, ...]:
    seen: dict[str, Field] = {}
    for group in groups:
        for f in group:
            seen.setdefault(f.name, f)
    return tuple(seen.values())


AGENT_SKILL = FormatSpec(
    Format.AGENT_SKILL,
    "Agent Skills skill (any host)",
    ("https://agentskills.io/specification", CLAUDE_SKILL_DOC, VSCODE_SKILLS_DOC),
    _union(_SKILL_BASE, _CLAUDE_SKILL_FIELDS, _COPILOT_SKILL_FIELDS),
)

_MCP_SERVER_COMMON = (
    Field(
        "type", "string", "Transport: `stdio` (default), `http` or `sse`.", values=("stdio", "http", "sse")
    ),
    Field("command", "string", "stdio: the program to start."),
    Field("args", "strings", "stdio: its arguments."),
    Field("env", "mapping", "stdio: extra environment variables."),
    Field("url", "string", "http/sse: the server's URL."),
    Field("headers", "mapping", "http/sse: HTTP headers."),
)
CLAUDE_MCP = FormatSpec(
    Format.CLAUDE_MCP,
    "Claude Code project MCP servers (.mcp.json)",
    (CLAUDE_MCP_DOC,),
    (
        Field(
            "mcpServers",
            "map",
            "MCP servers by name.",
            required=True,
            children=(
                *_MCP_SERVER_COMMON,
                Field("headersHelper", "string", "http/sse: a command printing headers as JSON."),
            ),
        ),
    ),
    markdown=False,
)
CLAUDE_SETTINGS = FormatSpec(
    Format.CLAUDE_SETTINGS,
    "Claude Code settings (MCP section)",
    (CLAUDE_SETTINGS_DOC, CLAUDE_MCP_DOC),
    (
        Field("enableAllProjectMcpServers", "bool", "Approve every server of the project's `.mcp.json`."),
        Field("enabledMcpjsonServers", "strings", "Servers of `.mcp.json` to approve.", names="mcp-server"),
        Field("disabledMcpjsonServers", "strings", "Servers of `.mcp.json` to reject.", names="mcp-server"),
    ),
    markdown=False,
    json_comments=False,
    open_keys=True,
)

# -- VS Code / GitHub Copilot ----------------------------------------------------------------------
_HANDOFF = (
    Field("label", "string", "The button's text.", required=True),
    Field("agent", "string", "The agent to switch to.", required=True, names="vscode-agent"),
    Field("prompt", "string", "The prompt sent to that agent."),
    Field("send", "bool", "Submit the prompt at once (default `false`)."),
    Field("model", "string", "The model the handoff runs with, as `Model Name (vendor)`."),
)
_VSCODE_TOOLS = Field(
    "tools",
    "names",
    "Tool or tool set names; `<server>/*` for every tool of an MCP server. Unavailable tools are ignored.",
    names="vscode-tool",
)
VSCODE_AGENT = FormatSpec(
    Format.VSCODE_AGENT,
    "VS Code / GitHub Copilot custom agent",
    (VSCODE_AGENT_DOC, GITHUB_AGENT_DOC),
    (
        Field("description", "string", "What the agent does; shown in the chat input (required by GitHub)."),
        Field("name", "string", "The agent's name (default: the file name)."),
        Field("argument-hint", "string", "Hint shown in the chat input."),
        _VSCODE_TOOLS,
        Field(
            "agents", "names", "Agents usable as subagents; `*` for all, `[]` for none.", names="vscode-agent"
        ),
        Field("model", "models", "A model name, or a list tried in order."),
        Field("user-invocable", "bool", "`false`: only usable as a subagent (default `true`)."),
        Field("disable-model-invocation", "bool", "`true`: never invoked as a subagent (default `false`)."),
        Field(
            "infer",
            "bool",
            "Retired: use `user-invocable` and `disable-model-invocation`.",
            deprecated="use 'user-invocable' and 'disable-model-invocation' instead",
        ),
        Field("target", "string", "Where the agent runs.", values=("vscode", "github-copilot")),
        Field("mcp-servers", "mapping", "MCP servers for GitHub's cloud agent (not used by VS Code)."),
        Field("metadata", "mapping", "Name/value annotations (GitHub only)."),
        Field("handoffs", "list", "Suggested next agents, shown as buttons.", children=_HANDOFF),
        _HOOKS,
    ),
    host_prompt_limit=GITHUB_PROMPT_LIMIT,
)
VSCODE_PROMPT = FormatSpec(
    Format.VSCODE_PROMPT,
    "VS Code prompt file",
    (VSCODE_PROMPT_DOC,),
    (
        Field("description", "string", "A short description of the prompt."),
        Field("name", "string", "The name typed after `/` (default: the file name)."),
        Field("argument-hint", "string", "Hint shown in the chat input."),
        Field(
            "agent",
            "string",
            "`ask`, `agent`, `plan`, or a custom agent's name.",
            values=("ask", "agent", "plan", "edit"),
            open_values=True,
            names="vscode-agent",
        ),
        Field("model", "string", "The model the prompt runs with."),
        _VSCODE_TOOLS,
        Field("mode", "string", "Former name of `agent`.", deprecated="renamed to 'agent'"),
    ),
)
VSCODE_INSTRUCTIONS = FormatSpec(
    Format.VSCODE_INSTRUCTIONS,
    "VS Code / Copilot instructions",
    (VSCODE_INSTRUCTIONS_DOC,),
    (
        Field("name", "string", "Display name (default: the file name)."),
        Field("description", "string", "Shown on hover in the Chat view."),
        Field(
            "applyTo",
            "string",
            "Glob of the files the instructions apply to, relative to the workspace root.",
        ),
    ),
)
_VSCODE_SERVER = (
    *_MCP_SERVER_COMMON,
    Field("envFile", "string", "stdio: a file of more environment variables."),
    Field("sandboxEnabled", "bool", "stdio: run sandboxed (macOS and Linux)."),
    Field(
        "sandbox",
        "mapping",
        "stdio: file system and network rules of the sandbox.",
        children=(
            Field("filesystem", "mapping", "`allowWrite`, `denyRead`, `denyWrite`: lists of paths."),
            Field("network", "mapping", "`allowedDomains`, `deniedDomains`: lists of domains."),
        ),
    ),
    Field(
        "oauth", "mapping", "http: OAuth settings.", children=(Field("clientId", "string", "The client id."),)
    ),
    Field(
        "dev",
        "mapping",
        "Development mode.",
        children=(Field("watch", "string", "Glob to watch."), Field("debug", "any", "Debugger settings.")),
    ),
)
VSCODE_MCP = FormatSpec(
    Format.VSCODE_MCP,
    "VS Code MCP servers (.vscode/mcp.json)",
    (VSCODE_MCP_DOC,),
    (
        Field("servers", "map", "MCP servers by name.", children=_VSCODE_SERVER),
        Field(
            "inputs",
            "list",
            "Input variables (`${input:id}`) VS Code asks for.",
            children=(
                Field(
                    "type", "string", "Kind of prompt.", values=("promptString", "pickString"), required=True
                ),
                Field("id", "string", "The id used in `${input:id}`.", required=True),
                Field("description", "string", "The prompt text.", required=True),
                Field("password", "bool", "Hide the typed value."),
                Field("default", "any", "Default value."),
                Field("options", "any", "Choices of a `pickString`."),
            ),
        ),
    ),
    markdown=False,
    json_comments=True,
)

SPECS: dict[Format, FormatSpec] = {
    s.format: s
    for s in (
        CLAUDE_AGENT,
        CLAUDE_SKILL,
        CLAUDE_MCP,
        CLAUDE_SETTINGS,
        VSCODE_AGENT,
        VSCODE_PROMPT,
        VSCODE_INSTRUCTIONS,
        VSCODE_MCP,
        COPILOT_SKILL,
        AGENT_SKILL,
    )
}

# -- recognising a path --------------------------------------------------------------------------
FOREIGN_DIRS: dict[str, tuple[str, ...]] = {
    ".github": ("agents", "prompts", "instructions", "skills", "copilot-instructions.md"),
    ".claude": ("agents", "skills", "settings.json", "settings.local.json"),
    ".vscode": ("mcp.json",),
    ".agents": ("skills",),
}
"""The dot-folders a directory walk enters, and the only entries inside them it looks at."""
FOREIGN_SUFFIXES = (".agent.md", ".prompt.md", ".instructions.md", ".chatmode.md")


def _under(parts: list[str], top: str, sub: str) -> bool:
    return any(a == top and b == sub for a, b in pairwise(parts[:-1]))


def foreign_format(path: str | os.PathLike[str]) -> Format | None:
    """The foreign format of ``path`` by its name and folders, or None (a lait file or neither)."""
    text = os.fspath(path).replace("\\", "/")
    parts = text.split("/")
    name = parts[-1]
    parent = parts[-2] if len(parts) > 1 else ""
    if name == ".mcp.json":
        return Format.CLAUDE_MCP
    if name == "mcp.json":
        return Format.VSCODE_MCP if parent == ".vscode" else None
    if name in ("settings.json", "settings.local.json"):
        return Format.CLAUDE_SETTINGS if parent == ".claude" else None
    if not name.endswith(".md"):
        return None
    if name == "SKILL.md":
        if _under(parts, ".claude", "skills"):
            return Format.CLAUDE_SKILL
        if _under(parts, ".github", "skills"):
            return Format.COPILOT_SKILL
        if _under(parts, ".agents", "skills"):
            return Format.AGENT_SKILL
        return None
    lower = name.lower()
    if lower.endswith((".agent.md", ".chatmode.md")):
        return Format.VSCODE_AGENT
    if lower.endswith(".prompt.md"):
        return Format.VSCODE_PROMPT
    if lower.endswith(".instructions.md") or (name == "copilot-instructions.md" and parent == ".github"):
        return Format.VSCODE_INSTRUCTIONS
    if _under(parts, ".claude", "agents"):
        return Format.CLAUDE_AGENT
    if _under(parts, ".github", "agents"):
        return Format.VSCODE_AGENT
    return None


def spec_of(path: str | os.PathLike[str]) -> FormatSpec | None:
    fmt = foreign_format(path)
    return SPECS[fmt] if fmt is not None else None
