"""The subcommand table and the click group that imports a command's module only when that command
is looked up (issue 17: start-up).

:data:`COMMANDS` names every subcommand: the module whose ``register(app)`` defines it and the
first line of its help (what ``lait --help`` lists). ``lait --help``, the dispatch's "is the first
positional a command?" and the stand-ins need nothing else, so a bare chat or ``lait lint`` imports
no other command module. ``tests/cli/test_command_table.py`` imports every module of ``lait_cli``
and checks that the table names exactly the commands their ``register`` functions define, with the
same help line and visibility: the table cannot drift from the modules.

:class:`LazyGroup` is the root's click group (typer's documented ``cls=`` extension: a subclass of
``typer.core.TyperGroup``). Its ``commands`` mapping (:class:`LazyCommands`) knows every name from
the table (and the reference's names not offered yet, see :mod:`lait_cli.commands`); looking a
name up imports its module, lets the module register its commands on a fresh ``typer.Typer`` with
the root's settings and keeps the click commands typer builds from it, so a command looks and
behaves exactly as if it had been registered on the root. Iterating the names imports nothing;
iterating the commands (``items()``, ``values()``: the man pages, a command group's ``--help``)
imports them all.

Top-level imports are typer and the standard library only.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping, MutableMapping
from dataclasses import dataclass
from typing import Any

import typer
import typer.core
import typer.main

from lait_cli.usage import use_lait_commands

TYPER_SETTINGS: dict[str, Any] = {
    "add_completion": False,
    "pretty_exceptions_enable": False,
    "rich_markup_mode": None,
}
"""The settings of the root ``typer.Typer`` (``lait_cli.main.app``), also given to the Typer each
command module registers on, so its commands are built as the root would build them."""


@dataclass(frozen=True, slots=True)
class Entry:
    module: str
    """The ``lait_cli`` module whose ``register(app)`` defines the command."""
    help: str
    """The first line of the command's help (``lait --help`` lists it)."""
    hidden: bool = False


COMMANDS: dict[str, Entry] = {
    "lint": Entry("lait_cli.lint", "Check config, agent and workflow files; exit 3 on errors."),
    "schema": Entry(
        "lait_cli.schema", "Print the JSON Schema of a file kind: config, agent, workflow, test or eval."
    ),
    "rule": Entry("lait_cli.rule", "Explain a lint rule (or list them all with --all)."),
    "ls": Entry("lait_cli.ls", "Run the language server over stdio (same as lait-ls)."),
    "run": Entry("lait_cli.run", "Run a workflow (a file, or a name from the config's 'workflows:')."),
    "graph": Entry("lait_cli.graph", "Print a workflow's control-flow graph (Mermaid or DOT)."),
    "doctor": Entry(
        "lait_cli.doctor",
        "Check the setup: config files, ${VAR} references, models and providers (reachable, key "
        "accepted, model ids listed), the local model server, the embedded model, MCP servers, "
        "registered files and shell tools. Each check is OK, WARN or NG (with a fix); any NG exits 1.",
    ),
    "init": Entry(
        "lait_cli.init",
        "Write a starter lait.config.yml in the current directory, or with a kind a commented "
        "workflow.yml or agent.md (at PATH). Never overwrites a file. The files lint clean and run on "
        "the built-in embedded model.",
    ),
    "models": Entry(
        "lait_cli.models",
        "List the configured model aliases ('*': the default), or with --remote the models a server offers.",
    ),
    "serve": Entry(
        "lait_cli.serve",
        "Serve the config's agents and workflows as MCP tools (agent__<name>, workflow__<name>) over "
        "stdio, or streamable HTTP with --http.",
    ),
    "chat": Entry(
        "lait_cli.chat_command",
        "Chat in a REPL: every turn streams, tools included. /exit, /clear, /model NAME, /system TEXT, "
        "/help; Ctrl-R searches the history; Esc-Enter or a trailing \\ adds a line; Ctrl-C cancels a turn.",
    ),
    "completions": Entry(
        "lait_cli.completion", "Print a shell completion script: bash, zsh, fish or powershell."
    ),
    "__complete": Entry("lait_cli.completion", "", hidden=True),
    "man": Entry("lait_cli.man", "Write roff man pages (lait.1, lait-run.1, ...) into DIR."),
    "compare": Entry(
        "lait_cli.compare",
        "Send the same PROMPT (or stdin) to every --model at once and report time, usage, cost and the "
        "answers side by side (a table on a terminal; --json or --markdown otherwise).",
    ),
    "test": Entry(
        "lait_cli.test",
        "Run test files (a workflow replayed from its cassette, then assertions on its output and "
        "trajectory). Directories are searched for .yml/.yaml files.",
    ),
    "eval": Entry(
        "lait_cli.eval",
        "Run an eval file's cases against the live model (each --repeat N times) and report the pass "
        "rate of each case.",
    ),
    "mcp": Entry("lait_cli.mcp", "Show the configured MCP servers and their tools; call a tool."),
    "agent": Entry("lait_cli.agent", "Run agent files; list the registered agents."),
    "workflow": Entry("lait_cli.lists", "List the workflows registered in lait.config.yml."),
    "skill": Entry("lait_cli.lists", "List the skills registered in lait.config.yml."),
    "prompt": Entry("lait_cli.prompt", "List and run the named prompts of lait.config.yml ('prompts:')."),
    "sessions": Entry("lait_cli.sessions", "List, show and delete saved chat sessions (.lait/sessions/)."),
    "trace": Entry("lait_cli.trace", "Show or export a trace file written with --trace-file."),
    "history": Entry("lait_cli.history", "List, show and search past runs (newest first)."),
    "cache": Entry("lait_cli.cache", "Manage the response cache (.lait/cache/)."),
    "runs": Entry("lait_cli.runs", "List and show checkpointed workflow runs (.lait/runs/)."),
}
"""Every subcommand -> where it is defined and its help line, in the order ``lait --help`` lists
them."""


def command_names(*, hidden: bool = False) -> dict[str, str]:
    """The subcommands (name -> help line), hidden ones only with ``hidden``; no module imported."""
    return {name: entry.help for name, entry in COMMANDS.items() if hidden or not entry.hidden}


def module_commands(module_name: str) -> dict[str, Any]:
    """The click commands (name -> command) that ``module_name``'s ``register`` defines, built by
    typer as the root group would build them."""
    module = importlib.import_module(module_name)
    app = typer.Typer(**TYPER_SETTINGS)
    module.register(app)
    use_lait_commands(app)  # arguments named FILE, [PROMPT], PATH... (lait_cli.usage)
    return dict(typer.main.get_group(app).commands)


class LazyCommands(MutableMapping[str, Any]):
    """The root group's subcommands: every name known up front, each command built on first lookup.

    ``extra`` maps further names (the stand-ins for reference commands not offered yet) to a
    function that builds their command."""

    def __init__(self, extra: Mapping[str, Any], loaded: Mapping[str, Any] | None = None) -> None:
        self._extra = dict(extra)
        self._loaded: dict[str, Any] = dict(loaded or {})

    def _names(self) -> list[str]:
        names = [*COMMANDS, *(n for n in self._extra if n not in COMMANDS)]
        return names + [n for n in self._loaded if n not in COMMANDS and n not in self._extra]

    def hidden(self, name: str) -> bool:
        """Whether ``name`` is hidden (from the table, without importing anything)."""
        if name in self._loaded:
            return bool(getattr(self._loaded[name], "hidden", False))
        entry = COMMANDS.get(name)
        return entry.hidden if entry is not None else name in self._extra

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and (name in COMMANDS or name in self._extra or name in self._loaded)

    def __getitem__(self, name: str) -> Any:
        if name not in self._loaded:
            entry = COMMANDS.get(name)
            if entry is not None:
                for found, command in module_commands(entry.module).items():
                    self._loaded.setdefault(found, command)
            elif name in self._extra:
                self._loaded[name] = self._extra[name]()
        return self._loaded[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._loaded[name] = command

    def __delitem__(self, name: str) -> None:
        del self._loaded[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._names())

    def __len__(self) -> int:
        return len(self._names())


class LazyGroup(typer.core.TyperGroup):
    """The root group: subcommands from :data:`COMMANDS`, imported when looked up."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        from lait_cli.commands import stand_ins

        self.commands = LazyCommands(stand_ins(), self.commands)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)


def visible_names(commands: Mapping[str, Any]) -> list[str]:
    """The names in ``commands`` that are not hidden (the root's from the table, importing nothing)."""
    if isinstance(commands, LazyCommands):
        return [n for n in commands if not commands.hidden(n)]
    return [n for n, c in commands.items() if not getattr(c, "hidden", False)]
