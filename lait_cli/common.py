"""What every command shares: the global options, the one-line failure and the version flag.

Commands import these from here, never from :mod:`lait_cli.main` (the entry point imports the
commands, not the other way round)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from lait_core import __version__


class Globals:
    """The global options (spec tools-mcp-cli 1.2), given before or after the subcommand
    (``lait_cli.commands`` adds them to every command)."""

    config: Path | None = None
    no_config: bool = False
    no_env: bool = False
    verbose: int = 0
    approve_tools: bool = False
    cache: bool = False
    """``--cache``: use the response cache whatever ``default.cache`` says."""
    no_cache: bool = False
    """``--no-cache``: neither read nor write the cache, whatever ``default.cache`` says."""


GLOBALS = Globals()


def fail(message: str, code: int = 1) -> typer.Exit:
    sys.stderr.write(f"lait: {message}\n")
    return typer.Exit(code)


def _version(value: bool) -> None:
    if value:
        sys.stdout.write(f"lait {__version__}\n")
        raise typer.Exit(0)
