"""What every command shares: the global options, the one-line failure and the version flag.

Commands import these from here, never from :mod:`lait_cli.main` (the entry point imports the
commands, not the other way round)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from lait_core import __version__


class Globals:
    """The global options (docs/cli.md), given before or after the subcommand
    (``lait_cli.dispatch`` adds them to every command)."""

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


def check_explicit_config(path: Path) -> None:
    """Exit 3 unless ``--config PATH`` names a regular file, saying what it is instead."""
    if path.is_file():
        return
    if path.is_dir():
        why = "it is a directory, not a file (name the lait.config.yml inside it)"
    elif path.exists():
        why = "it is not a regular file"
    else:
        why = "no such file"
    raise fail(f"failed to read YAML configuration file '{path}': {why}", 3)


def check_output_path(path: Path | None, what: str) -> None:
    """Exit 2 for an ``-o PATH`` that cannot be written (a directory, a file in a missing folder),
    checked before anything runs: no model call or lint is spent on ``what`` (the result, the
    answer, the report) only to lose it."""
    if path is None:
        return
    if path.is_dir():
        raise fail(f"-o '{path}' is a directory; name a file to write {what} to", 2)
    if not path.parent.is_dir():
        raise fail(f"-o '{path}': the folder '{path.parent}' does not exist", 2)


def print_version(value: bool) -> None:
    if value:
        sys.stdout.write(f"lait {__version__}\n")
        raise typer.Exit(0)
