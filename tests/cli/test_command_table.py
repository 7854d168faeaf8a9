"""The static command table (lait_cli.lazy_group.COMMANDS) names exactly the commands the modules define:
every ``lait_cli`` module is imported and its ``register`` run on a fresh Typer, and the names, help
lines and visibility must match the table. A new command without its table line, a renamed one or an
edited help text fails here, not in front of a user."""

from __future__ import annotations

import importlib
import pkgutil

import typer

import lait_cli
import lait_cli.commands
from lait_cli import dispatch as commands
from lait_cli.command_table import COMMANDS, TYPER_SETTINGS, command_names
from lait_cli.lazy_group import LazyCommands, visible_names


def _defined() -> dict[str, tuple[str, str, bool]]:
    """name -> (module, first help line, hidden) for every command a lait_cli module registers."""
    found: dict[str, tuple[str, str, bool]] = {}
    for info in pkgutil.iter_modules(lait_cli.commands.__path__):
        if info.name == "__main__":  # running it is the CLI
            continue
        module = importlib.import_module(f"lait_cli.commands.{info.name}")
        register = getattr(module, "register", None)
        if not callable(register):
            continue
        app = typer.Typer(**TYPER_SETTINGS)
        register(app)
        for name, command in typer.main.get_group(app).commands.items():
            assert name not in found, f"{name} is registered by {found[name][0]} and {module.__name__}"
            text = (command.help or "").strip()
            found[name] = (module.__name__, text.splitlines()[0] if text else "", bool(command.hidden))
    return found


def test_the_table_names_exactly_the_registered_commands() -> None:
    defined = _defined()
    table = {name: (e.module, e.help, e.hidden) for name, e in COMMANDS.items()}
    assert table == defined


def test_reference_names_without_a_command_are_stand_ins_only() -> None:
    missing = set(commands.missing_commands(COMMANDS))
    assert missing == set(commands.REFERENCE_COMMANDS) - set(_defined())
    assert set(commands.stand_ins()) == missing


def test_names_and_visibility_import_no_command_module() -> None:
    lazy = LazyCommands({"deps": lambda: typer.main.get_command(typer.Typer())})
    assert list(lazy)[: len(COMMANDS)] == list(COMMANDS)
    assert "lint" in lazy and "deps" in lazy and "nonsense" not in lazy
    assert visible_names(lazy) == list(command_names())
    assert "__complete" not in visible_names(lazy) and "deps" not in visible_names(lazy)
    assert lazy._loaded == {}  # nothing was built to answer these
    assert lazy["schema"].name == "schema"
    assert set(lazy._loaded) == {"schema"}
