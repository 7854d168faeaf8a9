"""LAIT5xx: names of MCP servers, skills, subagents and tools used by workflows and agents."""

from __future__ import annotations

from lait_core.diagnostics import Severity
from lait_core.lint.registry import Example, rule

E = Severity.ERROR
W = Severity.WARNING
CONFIG = (
    "mcp_servers:\n  fs: {command: mcp-fs}\n  locked: {command: mcp-x, allowed_tools: []}\n"
    "skills:\n  pdf: skills/pdf\nagents:\n  reviewer: agents/reviewer.md\n"
    "tools:\n  grep: {command: [rg, '--', '{{ input.pattern }}']}\n"
)

rule(
    "LAIT501",
    "unknown-mcp-server",
    E,
    "An `mcp:` list names a server that is not under `mcp_servers:`.",
    "Checked in workflow steps, workflow `default:`, inline agents and agent files, when the list is present "
    "and non-empty.",
    Example("steps:\n  - prompt: List files\n    mcp: [files]\n", config=CONFIG),
    Example("steps:\n  - prompt: List files\n    mcp: [fs]\n", config=CONFIG),
)
rule(
    "LAIT502",
    "mcp-no-allowed-tools",
    W,
    "An `mcp:` list names a server whose `allowed_tools` is an empty list.",
    "`allowed_tools: []` forbids every tool of the server (unlike an absent `allowed_tools`, which allows "
    "all), so every call would be rejected at run time.",
    Example("steps:\n  - prompt: Go\n    mcp: [locked]\n", config=CONFIG),
    Example("steps:\n  - prompt: Go\n    mcp: [fs]\n", config=CONFIG),
)
rule(
    "LAIT503",
    "unknown-skill",
    E,
    "A `skills:` list names a skill that is not under `skills:` in lait.config.yml.",
    "Skill names refer to the config registry.",
    Example("steps:\n  - prompt: Fill it\n    skills: [pdfs]\n", config=CONFIG),
    Example("steps:\n  - prompt: Fill it\n    skills: [pdf]\n", config=CONFIG),
)
rule(
    "LAIT504",
    "unknown-subagent",
    E,
    "A `subagents:` list names an agent that is not under `agents:` in lait.config.yml.",
    "Subagents are offered to the model as `agent__<name>` tools and come from the config registry.",
    Example("steps:\n  - prompt: Review\n    subagents: [critic]\n", config=CONFIG),
    Example("steps:\n  - prompt: Review\n    subagents: [reviewer]\n", config=CONFIG),
)
rule(
    "LAIT505",
    "unknown-tool",
    E,
    "A `tools:` list names a shell tool that is not under `tools:` in lait.config.yml.",
    "Shell tools are offered to the model as `tool__<name>`.",
    Example("steps:\n  - prompt: Search\n    tools: [rg]\n", config=CONFIG),
    Example("steps:\n  - prompt: Search\n    tools: [grep]\n", config=CONFIG),
)
rule(
    "LAIT506",
    "names-not-checked",
    W,
    "Names could not be checked because there is no lait.config.yml.",
    "Without a config (none found upward from the file's directory, no global config, or `--no-config`), "
    "capability names and registry names of `agent:`/`workflow:` steps cannot be checked. Reported once per "
    "file, as its last diagnostic.",
    Example("steps:\n  - prompt: List files\n    mcp: [fs]\n"),
    Example("steps:\n  - prompt: List files\n    mcp: [fs]\n", config=CONFIG),
)
