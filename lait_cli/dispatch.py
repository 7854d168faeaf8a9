"""How an argument list reaches a command (docs/cli.md): the option tables, the one argv scanner
and the dispatch.

- :data:`GLOBAL_OPTIONS` are valid everywhere: before the subcommand (the root callback in
  ``main.py`` stores them in ``GLOBALS``) and after it, at any depth (``lait run wf.yml x
  --no-env``, ``lait agent --no-config list``): :func:`hoist_globals` moves those given after the
  subcommand in front of it, except where a command declares the option itself (``lait lint
  --config``), and stops at ``--``.
- :data:`CHAT_OPTIONS` is the one declaration of how bare chat (``lait [OPTIONS] [PROMPT]``) reads
  argv: each option, whether it takes a value, and what the send-ahead path
  (:mod:`lait_cli.support.send_ahead`) makes of it. ``tests/cli/test_send_ahead.py`` checks it against the chat
  command's typer parameters (:func:`lait_cli.commands.single_shot.chat`).
- :func:`scan` is the one reader of argv: options (with ``=VALUE`` or the values that follow),
  positional arguments and ``--``. :func:`scan_arguments`, :func:`hoist_globals`, the send-ahead path
  and shell completion all read argv through it.
- :func:`select` picks the click command that handles an argument list: the subcommand tree, or
  bare chat whose options are flattened onto ``lait`` itself.
- :data:`lait_cli.command_table.REFERENCE_COMMANDS` is the one list of the reference's subcommand
  names. A first positional argument that names one of them is that subcommand, never a prompt. A
  name with no command yet gets a stand-in that exits 2 with ``lait: 'lait NAME' is not available in
  this version`` -- computed as "reference names minus the command table"
  (:data:`lait_cli.command_table.COMMANDS`), so a new command needs its line in that table only.

``--no-env`` is acted on before any of this (:func:`lait_cli.support.environment.load_env`); the option
exists for ``--help`` and validation.

Top-level imports are the standard library only (the send-ahead path reads argv with this module
before typer is imported); typer is imported where a click command is built.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from lait_cli.command_table import REFERENCE_COMMANDS

if TYPE_CHECKING:
    import typer

GLOBAL_OPTIONS: dict[str, int] = {
    "--config": 1,
    "--no-config": 0,
    "--no-env": 0,
    "--verbose": 0,
    "-v": 0,
    "--approve-tools": 0,
    "--cache": 0,
    "--no-cache": 0,
}
"""The global options (docs/cli.md; ``--help`` and ``--version`` aside) -> how many values each takes.
The root callback in ``main.py`` declares them (and stores them in ``GLOBALS``)."""

CONFLICTS: tuple[tuple[str, str], ...] = (("config", "no_config"), ("cache", "no_cache"))
"""Pairs of ``GLOBALS`` attributes that cannot both be given."""

GLOBAL_VALUE_OPTIONS = frozenset(o for o, n in GLOBAL_OPTIONS.items() if n)
GLOBAL_FLAGS = frozenset(o for o, n in GLOBAL_OPTIONS.items() if not n)
VERSION_FLAGS = frozenset({"--version", "-V"})


@dataclass(frozen=True, slots=True)
class ChatOption:
    """How bare chat reads one of its options."""

    values: int = 0
    """How many values follow it (0: a flag)."""
    ahead: str | None = None
    """The name the send-ahead path reads it under (:mod:`lait_cli.support.send_ahead`); None: an argv with this
    option is left to the normal path."""
    envvar: str | None = None
    """The environment variable typer reads when the option is absent."""


VALUE = ChatOption(1)
FLAG = ChatOption(0)
CHAT_OPTIONS: dict[str, ChatOption] = {
    "--model": ChatOption(1, "model", "LLM_MODEL"),
    "--base-url": ChatOption(1, "base_url", "OPENAI_BASE_URL"),
    "--api-key": ChatOption(1, "api_key", "OPENAI_API_KEY"),
    "--system": ChatOption(1, "system"),
    "--system-file": VALUE,
    "--show-reasoning": ChatOption(0, "show_reasoning"),
    "--show-usage": ChatOption(0, "show_usage"),
    "--reasoning-effort": ChatOption(1, "reasoning_effort", "LLM_REASONING_EFFORT"),
    "--temperature": ChatOption(1, "temperature", "LLM_TEMPERATURE"),
    "--top-p": ChatOption(1, "top_p", "LLM_TOP_P"),
    "--max-tokens": ChatOption(1, "max_tokens", "LLM_MAX_TOKENS"),
    "--tool": VALUE,
    "--mcp": VALUE,
    "--subagent": VALUE,
    "--output": VALUE,
    "-o": VALUE,
    "--json": FLAG,
    "--render": ChatOption(0, "render"),
    "--quiet": ChatOption(0, "quiet"),
    "--stream": ChatOption(0, "stream"),
    "--json-schema": VALUE,
    "--schema-name": VALUE,
    "--file": VALUE,
    "--image": VALUE,
    "--session": VALUE,
    "--prompt-name": VALUE,
    "-p": VALUE,
    "--var": VALUE,
    "--approve-tools": FLAG,
    "--record": VALUE,
    "--replay": VALUE,
    "--no-history": ChatOption(0, "no_history"),
    "--cache": FLAG,
    "--no-cache": ChatOption(0, "no_cache"),
    "--config": VALUE,
    "--no-config": ChatOption(0, "no_config"),
    "--no-env": ChatOption(0, "no_env"),
    "--verbose": ChatOption(0, "verbose"),
    "-v": ChatOption(0, "verbose"),
    "--version": FLAG,
    "-V": FLAG,
}
"""Every option of bare chat (``--help`` aside); ``-vv`` counts as ``-v`` given twice. The send-ahead
path handles an option only when it can compute its effect on the first request from argv and the
environment: the request's own fields, and the flags that leave it alone or that it accounts for
(``--stream``, ``--show-usage``, ``--quiet``)."""

CHAT_VALUE_OPTIONS = frozenset(o for o, spec in CHAT_OPTIONS.items() if spec.values)
"""The chat options that take a value: the scan for the first positional argument skips it."""


def _usage_exit(message: str) -> Exception:
    import typer

    sys.stderr.write(f"lait: {message}\n")
    return typer.Exit(2)


# -- the argv scanner ------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Token:
    """One item of an argument list: an option with its values, a positional argument, or ``--``."""

    kind: Literal["option", "positional", "dashdash"]
    index: int
    """Where it starts in the arguments."""
    span: int
    """How many arguments it takes up (an option and the values that follow it)."""
    name: str
    """The option's name (``--model`` of ``--model=m``; a short option as written: ``-vv``,
    ``-ofile``), or the positional argument itself."""
    inline: str | None = None
    """The value given with ``=`` (``--model=m``)."""
    values: tuple[str, ...] = ()
    """The values that follow the option (fewer than it takes at the end of the arguments)."""
    after_dashdash: bool = False
    """A positional argument after a literal ``--`` (so a prompt or an argument, never a command)."""


def scan(args: list[str], arity: Callable[[str], int]) -> Iterator[Token]:
    """The arguments as tokens. ``arity(name)`` says how many values an option takes (0 for one it
    does not know); it is asked when the scan reaches the option, so a caller may change what it
    answers between tokens (:func:`hoist_globals` does, as it walks down the subcommands). An option
    with ``=VALUE`` or a short option with its value attached (``-ofile``) takes no more."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            yield Token("dashdash", i, 1, arg)
            for j in range(i + 1, len(args)):
                yield Token("positional", j, 1, args[j], after_dashdash=True)
            return
        if arg == "-" or not arg.startswith("-"):
            yield Token("positional", i, 1, arg)
            i += 1
            continue
        if arg.startswith("--"):
            name, eq, inline = arg.partition("=")
            n = 0 if eq else arity(name)
            value: str | None = inline if eq else None
        else:
            name, value = arg, None
            n = arity(name) if len(arg) == 2 else 0
        values = tuple(args[i + 1 : i + 1 + n])
        yield Token("option", i, 1 + len(values), name, value, values)
        i += 1 + len(values)


def global_arity(name: str) -> int:
    return GLOBAL_OPTIONS.get(name, 0)


def chat_arity(name: str) -> int:
    spec = CHAT_OPTIONS.get(name)
    return spec.values if spec is not None else global_arity(name)


def check_conflicts(values: Any) -> None:
    """Exit 2 when both options of a conflicting pair are set on ``values`` (``GLOBALS``)."""
    for first, second in CONFLICTS:
        if getattr(values, first, None) and getattr(values, second, None):
            a, b = (f"--{name.replace('_', '-')}" for name in (first, second))
            raise _usage_exit(f"{a} and {b} cannot be used together")


# -- stand-ins for the reference's commands not offered yet --------------------------------------
STAND_IN = "_lait_stand_in"
"""The attribute that marks a stand-in's callback."""


def _not_available(name: str) -> Callable[[], None]:
    def stand_in() -> None:
        raise _usage_exit(f"'lait {name}' is not available in this version")

    setattr(stand_in, STAND_IN, True)
    return stand_in


def missing_commands(registered: Iterable[str]) -> list[str]:
    """The reference's subcommands with no registered command (in the reference's order)."""
    have = set(registered)
    return [name for name in REFERENCE_COMMANDS if name not in have]


def stand_in_command(name: str) -> Any:
    """The hidden click command that answers ``lait NAME ...`` with "not available" (exit 2)."""
    import typer
    import typer.main

    from lait_cli.command_table import TYPER_SETTINGS

    app = typer.Typer(**TYPER_SETTINGS)
    app.command(
        name=name,
        hidden=True,
        add_help_option=False,
        context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
    )(_not_available(name))
    return typer.main.get_group(app).commands[name]


def stand_ins() -> dict[str, Callable[[], Any]]:
    """A stand-in (its builder) for each reference name the command table lacks."""
    from lait_cli.command_table import COMMANDS

    return {name: functools.partial(stand_in_command, name) for name in missing_commands(COMMANDS)}


# -- global options after the subcommand ---------------------------------------------------------
# The command tree is read through the attributes click's commands and options have (``commands``,
# ``params``, ``opts``, ``is_flag``, ``count``, ``nargs``), whichever click typer ships.
def _option_arity(command: Any) -> dict[str, int]:
    """Option spelling -> number of values it takes, for ``command``'s own options."""
    arity: dict[str, int] = {}
    for param in getattr(command, "params", ()):
        if getattr(param, "param_type_name", "") != "option":
            continue
        flag = bool(getattr(param, "is_flag", False)) or bool(getattr(param, "count", False))
        n = 0 if flag else max(1, int(getattr(param, "nargs", 1) or 1))
        for opt in (*getattr(param, "opts", ()), *getattr(param, "secondary_opts", ())):
            arity[opt] = n
    return arity


def _global_spelling(name: str, own: dict[str, int]) -> bool:
    """Whether the option ``name`` is a global option the command does not declare itself."""
    if name.startswith("--"):
        return name in GLOBAL_OPTIONS and name not in own
    return re.fullmatch(r"-v+", name) is not None and "-v" not in own


def hoist_globals(tree: Any, args: list[str]) -> list[str]:
    """``args`` with every global option given after the subcommand (at any depth, up to ``--``)
    moved in front of it, where the root command reads it; options a command declares itself stay.

    ``lait run wf.yml x --no-env`` becomes ``lait --no-env run wf.yml x``.
    """
    command: Any = tree
    own = _option_arity(tree)
    head: list[str] = []  # the root's options, up to the subcommand
    hoisted: list[str] = []
    rest: list[str] = []
    in_head = True

    def arity(name: str) -> int:
        if name in own:
            return own[name]
        return 0 if in_head else global_arity(name)

    for token in scan(args, arity):
        piece = args[token.index : token.index + token.span]
        if token.kind == "dashdash":
            rest.extend(args[token.index :])
            break
        if token.kind == "positional":
            in_head = False
            commands = getattr(command, "commands", None)
            if isinstance(commands, Mapping) and token.name in commands:
                command = commands[token.name]
                own = _option_arity(command)
            rest.append(token.name)
        elif in_head:
            head.extend(piece)
        elif _global_spelling(token.name, own):
            hoisted.extend(piece)
        else:
            rest.extend(piece)
    return [*head, *hoisted, *rest]


def build(app: typer.Typer) -> Any:
    """The click command tree of ``app``: its root group imports a command's module when the command
    is looked up (:class:`lait_cli.lazy_group.LazyGroup`)."""
    import typer.main

    return typer.main.get_command(app)


# -- dispatch ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Scan:
    positional: str | None
    """The first positional argument (None: there is none)."""
    after_dashdash: bool
    """It came after a literal ``--`` (so it is a prompt, never a subcommand)."""
    options: tuple[str, ...]
    """The option names before it."""
    index: int = -1
    """Its index in the arguments (-1: there is none)."""


def scan_arguments(args: list[str], value_options: frozenset[str] = CHAT_VALUE_OPTIONS) -> Scan:
    """The first positional argument, skipping options and the values of ``value_options`` (and of
    the global options)."""
    options: list[str] = []
    dashdash = False
    for token in scan(args, lambda name: 1 if name in value_options else global_arity(name)):
        if token.kind == "option":
            options.append(token.name)
        elif token.kind == "dashdash":
            dashdash = True
        else:
            return Scan(token.name, token.after_dashdash, tuple(options), token.index)
    return Scan(None, dashdash, tuple(options))


def is_global(option: str) -> bool:
    return (
        option in GLOBAL_FLAGS
        or option in GLOBAL_VALUE_OPTIONS
        or option in VERSION_FLAGS
        or option == "--help"
        or re.fullmatch(r"-v+", option) is not None
    )


def select(app: typer.Typer, args: list[str]) -> tuple[Any, list[str]]:
    """The click command that handles ``args`` and the arguments to give it: the subcommand tree
    (also for ``--version`` and a bare ``lait`` on a terminal) with global options hoisted in front
    of the subcommand, else bare chat (whose command has every global option itself).

    Exits with 2 when a chat option precedes a subcommand (docs/cli.md).
    """
    import typer.main

    from lait_cli.command_table import command_names

    scan = scan_arguments(args, CHAT_VALUE_OPTIONS)
    subcommand = scan.positional is not None and not scan.after_dashdash
    every = command_names(hidden=True)
    if subcommand and (scan.positional in every or scan.positional in REFERENCE_COMMANDS):
        for option in scan.options:
            if not is_global(option):
                sys.stderr.write(
                    f"lait: the argument '{option}' cannot be used with subcommand '{scan.positional}'\n"
                )
                raise SystemExit(2)
        tree = build(app)
        return tree, hoist_globals(tree, args)
    if scan.positional is None and not scan.after_dashdash and any(o in VERSION_FLAGS for o in scan.options):
        return build(app), args
    if subcommand and scan.positional is not None:
        _refuse_mistyped_command(scan.positional, args[scan.index + 1 :], every, CHAT_VALUE_OPTIONS)
    from lait_cli.commands.single_shot import (
        chat_app,  # only a chat needs the chat command (and what it imports)
    )

    return typer.main.get_command(chat_app(command_names())), args


def _refuse_mistyped_command(
    word: str, rest: list[str], commands: Iterable[str], value_options: frozenset[str]
) -> None:
    """Exit 2 naming the command meant when ``lait WORD ARG...`` cannot be a chat (a chat takes one
    prompt, so a second positional is an error anyway) and WORD is a near miss of a command name
    (``lait lnt .``). A single word stays a prompt, as in the reference (``lait lnt`` asks the model)."""
    if not re.fullmatch(r"[a-z][a-z-]*", word):
        return
    if scan_arguments(rest, value_options).positional is None:
        return
    import difflib

    close = difflib.get_close_matches(word, sorted(set(commands) | set(REFERENCE_COMMANDS)), n=1, cutoff=0.75)
    if close:
        sys.stderr.write(
            f"lait: '{word}' is not a command; did you mean '{close[0]}'? "
            f'(a prompt of several words goes in quotes: lait "{word} ...")\n'
        )
        raise SystemExit(2)
