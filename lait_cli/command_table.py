"""The names of lait's subcommands, without importing any of them or typer: the reference's names
(docs/cli.md) and this version's command table. :mod:`lait_cli.lazy_group` builds the click
group from the table; :mod:`lait_cli.dispatch` and the send-ahead path (:mod:`lait_cli.support.send_ahead`) use the
names to tell a subcommand from a chat's prompt.

Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

REFERENCE_COMMANDS: tuple[str, ...] = (
    "run",
    "agent",
    "lint",
    "models",
    "completions",
    "man",
    "init",
    "sessions",
    "chat",
    "prompt",
    "history",
    "graph",
    "workflow",
    "skill",
    "runs",
    "cache",
    "deps",
    "schema",
    "doctor",
    "compare",
    "test",
    "eval",
    "trace",
    "serve",
    "decide",
)
"""Every subcommand of the reference (docs/cli.md), in its table's order."""


@dataclass(frozen=True, slots=True)
class Entry:
    module: str
    """The ``lait_cli`` module whose ``register(app)`` defines the command."""
    help: str
    """The first line of the command's help (``lait --help`` lists it)."""
    hidden: bool = False


COMMANDS: dict[str, Entry] = {
    "lint": Entry("lait_cli.commands.lint", "Check config, agent and workflow files; exit 3 on errors."),
    "schema": Entry(
        "lait_cli.commands.schema",
        "Print the JSON Schema of a file kind: config, agent, workflow, test or eval.",
    ),
    "rule": Entry("lait_cli.commands.rule", "Explain a lint rule (or list them all with --all)."),
    "import": Entry(
        "lait_cli.commands.import_files",
        "Convert a Claude Code subagent, a VS Code agent or an MCP config (.mcp.json, .vscode/mcp.json) into "
        "lait files; --check for CI.",
    ),
    "ls": Entry("lait_cli.commands.ls", "Run the language server over stdio (same as lait-ls)."),
    "run": Entry(
        "lait_cli.commands.run", "Run a workflow (a file, or a name from the config's 'workflows:')."
    ),
    "graph": Entry("lait_cli.commands.graph", "Print a workflow's control-flow graph (Mermaid or DOT)."),
    "doctor": Entry(
        "lait_cli.commands.doctor",
        "Check the setup: config files, ${VAR} references, models and providers (reachable, key "
        "accepted, model ids listed), the local model server, the embedded model, MCP servers, "
        "registered files and shell tools. Each check is OK, WARN or NG (with a fix); any NG exits 1.",
    ),
    "init": Entry(
        "lait_cli.commands.init",
        "Write a starter lait.config.yml in the current directory, or with a kind a commented "
        "workflow.yml or agent.md (at PATH). Never overwrites a file. The files lint clean and run on "
        "the built-in embedded model.",
    ),
    "models": Entry(
        "lait_cli.commands.models",
        "List the configured model aliases ('*': the default), or with --remote the models a server offers.",
    ),
    "serve": Entry(
        "lait_cli.commands.serve",
        "Serve the config's agents and workflows as MCP tools (agent__<name>, workflow__<name>) over "
        "stdio, or streamable HTTP with --http.",
    ),
    "chat": Entry(
        "lait_cli.commands.chat",
        "Chat in a REPL: every turn streams, tools included. /exit, /clear, /model NAME, /system TEXT, "
        "/help; Ctrl-R searches the history; Esc-Enter or a trailing \\ adds a line; Ctrl-C cancels a turn.",
    ),
    "completions": Entry(
        "lait_cli.commands.completions", "Print a shell completion script: bash, zsh, fish or powershell."
    ),
    "__complete": Entry("lait_cli.commands.completions", "", hidden=True),
    "man": Entry("lait_cli.commands.man", "Write roff man pages (lait.1, lait-run.1, ...) into DIR."),
    "compare": Entry(
        "lait_cli.commands.compare",
        "Send the same PROMPT (or stdin) to every --model at once and report time, usage, cost and the "
        "answers side by side (a table on a terminal; --json or --markdown otherwise).",
    ),
    "test": Entry(
        "lait_cli.commands.test",
        "Run test files (a workflow replayed from its cassette, then assertions on its output and "
        "trajectory). Directories are searched for .yml/.yaml files.",
    ),
    "eval": Entry(
        "lait_cli.commands.eval",
        "Run an eval file's cases against the live model (each --repeat N times) and report the pass "
        "rate of each case.",
    ),
    "mcp": Entry("lait_cli.commands.mcp", "Show the configured MCP servers and their tools; call a tool."),
    "policy": Entry(
        "lait_cli.commands.policy", "Check what the tool approval policy decides for a call, running nothing."
    ),
    "grants": Entry(
        "lait_cli.commands.grants",
        "List and revoke the project's standing tool approvals (.lait/grants.yml).",
    ),
    "agent": Entry("lait_cli.commands.agent", "Run agent files; list the registered agents."),
    "workflow": Entry("lait_cli.commands.workflow", "List the workflows registered in lait.config.yml."),
    "skill": Entry("lait_cli.commands.skill", "List the skills registered in lait.config.yml."),
    "prompt": Entry(
        "lait_cli.commands.prompt", "List and run the named prompts of lait.config.yml ('prompts:')."
    ),
    "sessions": Entry(
        "lait_cli.commands.sessions", "List, show and delete saved chat sessions (.lait/sessions/)."
    ),
    "trace": Entry("lait_cli.commands.trace", "Show or export a trace file written with --trace-file."),
    "history": Entry("lait_cli.commands.history", "List, show and search past runs (newest first)."),
    "cache": Entry("lait_cli.commands.cache", "Manage the response cache (.lait/cache/)."),
    "runs": Entry("lait_cli.commands.runs", "List and show checkpointed workflow runs (.lait/runs/)."),
}
"""Every subcommand -> where it is defined and its help line, in the order ``lait --help`` lists
them."""


def command_names(*, hidden: bool = False) -> dict[str, str]:
    """The subcommands (name -> help line), hidden ones only with ``hidden``; no module imported."""
    return {name: entry.help for name, entry in COMMANDS.items() if hidden or not entry.hidden}


TYPER_SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
}
"""The settings of the root ``typer.Typer`` (``lait_cli.main.app``), also given to the Typer each
command module registers on, so its commands are built as the root would build them."""
