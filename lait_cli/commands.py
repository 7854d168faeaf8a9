"""The command table and how an argument list reaches a command (docs/cli.md).

- :data:`REFERENCE_COMMANDS` is the one list of the reference's subcommand names. A first
  positional argument that names one of them is that subcommand, never a prompt. A name with no
  command yet gets a stand-in that exits 2 with ``lait: 'lait NAME' is not available in this
  version`` — computed as "reference names minus the command table" (:data:`lait_cli.lazy.COMMANDS`),
  so a new command needs its line in that table only.
- :data:`GLOBAL_OPTIONS` are valid everywhere: before the subcommand (the root callback in
  ``main.py`` stores them in ``GLOBALS``) and after it, at any depth (``lait run wf.yml x
  --no-env``, ``lait agent --no-config list``): :func:`hoist_globals` moves those given after the
  subcommand in front of it, except where a command declares the option itself (``lait lint
  --config``), and stops at ``--``.
- :func:`select` picks the click command that handles an argument list: the subcommand tree, or
  bare chat (``lait [OPTIONS] [PROMPT]``) whose options are flattened onto ``lait`` itself.

``--no-env`` is acted on before any of this (``main._load_env`` scans argv up to ``--``); the option
exists for ``--help`` and validation.

Top-level imports are typer and the standard library only.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import typer
import typer.main

from lait_cli.command_table import REFERENCE_COMMANDS

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


def _usage_exit(message: str) -> typer.Exit:
    sys.stderr.write(f"lait: {message}\n")
    return typer.Exit(2)


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
    from lait_cli.lazy import TYPER_SETTINGS

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


def _global_spelling(token: str, own: dict[str, int]) -> tuple[str, int] | None:
    """(name, values) when ``token`` is a global option the command does not declare itself."""
    if token.startswith("--"):
        name = token.split("=", 1)[0]
        if name in GLOBAL_OPTIONS and name not in own:
            return name, 0 if "=" in token else GLOBAL_OPTIONS[name]
        return None
    if re.fullmatch(r"-v+", token) and "-v" not in own:
        return "-v", 0
    return None


def _skip(token: str, own: dict[str, int]) -> int:
    """How many tokens after ``token`` are its values (``token`` is one of the command's options)."""
    if token.startswith("--"):
        return 0 if "=" in token else own.get(token, 0)
    # a short option, maybe with its value attached (``-ofile``) or bundled flags (``-qv``)
    name = token[:2]
    return own.get(name, 0) if len(token) == 2 else 0


def hoist_globals(tree: Any, args: list[str]) -> list[str]:
    """``args`` with every global option given after the subcommand (at any depth, up to ``--``)
    moved in front of it, where the root command reads it; options a command declares itself stay.

    ``lait run wf.yml x --no-env`` becomes ``lait --no-env run wf.yml x``.
    """
    root_arity = _option_arity(tree)
    head: list[str] = []
    i = 0
    while i < len(args):  # the root's options, up to the subcommand
        token = args[i]
        if token == "--" or not token.startswith("-") or token == "-":
            break
        n = _skip(token, root_arity) if token.split("=", 1)[0] in root_arity else 0
        head.extend(args[i : i + 1 + n])
        i += 1 + n
    hoisted: list[str] = []
    rest: list[str] = []
    command: Any = tree
    while i < len(args):
        token = args[i]
        if token == "--":
            rest.extend(args[i:])
            break
        commands = getattr(command, "commands", None)
        if not token.startswith("-") or token == "-":
            if isinstance(commands, Mapping) and token in commands:
                command = commands[token]
            rest.append(token)
            i += 1
            continue
        own = _option_arity(command)
        spelled = _global_spelling(token, own)
        if spelled is not None:
            n = spelled[1]
            hoisted.extend(args[i : i + 1 + n])
            i += 1 + n
            continue
        n = _skip(token, own)
        rest.extend(args[i : i + 1 + n])
        i += 1 + n
    return [*head, *hoisted, *rest]


def build(app: typer.Typer) -> Any:
    """The click command tree of ``app``: its root group imports a command's module when the command
    is looked up (:class:`lait_cli.lazy.LazyGroup`)."""
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


def scan_arguments(args: list[str], value_options: frozenset[str]) -> Scan:
    """The first positional argument, skipping options and the values of ``value_options``."""
    options: list[str] = []
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "--":
            rest = args[i + 1 :]
            return Scan(rest[0] if rest else None, True, tuple(options), i + 1 if rest else -1)
        if arg == "-" or not arg.startswith("-"):
            return Scan(arg, False, tuple(options), i)
        name = arg.split("=", 1)[0] if arg.startswith("--") else arg
        options.append(name)
        takes_value = name in GLOBAL_VALUE_OPTIONS or name in value_options
        i += 2 if takes_value and "=" not in arg else 1
    return Scan(None, False, tuple(options))


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
    from lait_cli.chat import CHAT_VALUE_OPTIONS, chat_app
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
