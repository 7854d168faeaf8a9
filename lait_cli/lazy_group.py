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
the table (and the reference's names not offered yet, see :mod:`lait_cli.dispatch`); looking a
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
from typing import Any

import typer
import typer.core
import typer.main

from lait_cli.command_table import COMMANDS, TYPER_SETTINGS
from lait_cli.support.usage import use_lait_commands


def module_commands(module_name: str) -> dict[str, Any]:
    """The click commands (name -> command) that ``module_name``'s ``register`` defines, built by
    typer as the root group would build them."""
    module = importlib.import_module(module_name)
    app = typer.Typer(**TYPER_SETTINGS)
    module.register(app)
    use_lait_commands(app)  # arguments named FILE, [PROMPT], PATH... (lait_cli.support.usage)
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
        from lait_cli.dispatch import stand_ins

        self.commands = LazyCommands(stand_ins(), self.commands)

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)


def visible_names(commands: Mapping[str, Any]) -> list[str]:
    """The names in ``commands`` that are not hidden (the root's from the table, importing nothing)."""
    if isinstance(commands, LazyCommands):
        return [n for n in commands if not commands.hidden(n)]
    return [n for n, c in commands.items() if not getattr(c, "hidden", False)]
