"""How a command's positional arguments are named: in its usage line, in the Arguments section of
its ``--help`` and in its man page (:mod:`lait_cli.commands.man`), one way everywhere.

The classic convention (click's own, and the reference's): a required argument is ``FILE``, an
optional one ``[PROMPT]``, one that takes several ``PATH...`` (``[PATH]...`` when none is needed);
the name is the argument's metavar, else its parameter name in capitals. Recent typer versions print
required arguments in braces (``{paths}...``) and add a type label to each (``paths... <list[str]>``);
:class:`LaitCommand` prints them as above instead, with public click hooks only
(``collect_usage_pieces``, ``format_options``). :func:`use_lait_commands` makes every command of a
``typer.Typer`` (and of the groups added to it) a :class:`LaitCommand` before typer builds them.

Top-level imports are typer only. (Recent typer versions carry their own copy of click, so click's
classes are not named here: a parameter is an argument when its ``param_type_name`` says so.)
"""

from __future__ import annotations

from typing import Any

import typer
import typer.core


def argument_name(param: Any) -> str:
    """``FILE``, ``[PROMPT]``, ``PATH...`` or ``[PATH]...``; a metavar written with its brackets
    (``[workflow|agent]``) is kept as written."""
    name = str(param.metavar or (param.name or "").upper())
    if name.startswith("["):
        return name
    more = param.nargs != 1
    name = name.removesuffix("...")
    if param.required:
        return name + ("..." if more else "")
    return f"[{name}]" + ("..." if more else "")


class LaitCommand(typer.core.TyperCommand):
    """A typer command whose arguments are named by :func:`argument_name`."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces: list[str] = [self.options_metavar] if self.options_metavar else []
        for param in self.get_params(ctx):
            if param.param_type_name == "argument":
                pieces.append(argument_name(param))
            else:
                pieces.extend(param.get_usage_pieces(ctx))
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        args: list[tuple[str, str]] = []
        opts: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is None:
                continue
            if param.param_type_name == "argument":
                args.append((argument_name(param), record[1]))
            else:
                opts.append(record)
        if args:
            with formatter.section("Arguments"):
                formatter.write_dl(args)
        if opts:
            with formatter.section("Options"):
                formatter.write_dl(opts)


def use_lait_commands(app: typer.Typer) -> None:
    """Every command registered on ``app`` or on a group added to it (that names no class of its
    own than typer's) becomes a :class:`LaitCommand`."""
    for info in app.registered_commands:
        # not given: None, typer's placeholder (false too) or, in recent versions, TyperCommand itself
        if not info.cls or info.cls is typer.core.TyperCommand:
            info.cls = LaitCommand
    for group in app.registered_groups:
        sub: Any = group.typer_instance
        if isinstance(sub, typer.Typer):
            use_lait_commands(sub)
