"""`lait` entry point. Top-level imports are typer and the standard library only: a command's module
is imported only when that command runs (:mod:`lait_cli.lazy_group`), and every command imports what it
needs when it runs, so `lait --version`, `lait lint` and a bare chat stay fast."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from lait_cli.command_table import TYPER_SETTINGS
from lait_cli.lazy_group import LazyGroup
from lait_cli.support.common import GLOBALS, print_version

app = typer.Typer(
    name="lait",
    cls=LazyGroup,  # a command's module is imported when the command is looked up (lait_cli.lazy_group)
    no_args_is_help=True,
    help="Lint, explain and run LLM agents and workflows kept as files.",
    **TYPER_SETTINGS,
)


@app.callback()
def root(
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
    config: Annotated[Path | None, typer.Option("--config", help="Use exactly this config file.")] = None,
    no_config: Annotated[bool, typer.Option("--no-config", help="Read no config file at all.")] = False,
    no_env: Annotated[bool, typer.Option("--no-env", help="Do not read ./.env.")] = False,
    verbose: Annotated[
        int, typer.Option("--verbose", "-v", count=True, show_default=False, help="Debug output on stderr.")
    ] = 0,
    approve_tools: Annotated[
        bool, typer.Option("--approve-tools", help="Ask before every tool call (needs a terminal).")
    ] = False,
    cache: Annotated[
        bool, typer.Option("--cache", help="Use the response cache .lait/cache/ (default: default.cache).")
    ] = False,
    no_cache: Annotated[
        bool, typer.Option("--no-cache", help="Neither read nor write the response cache.")
    ] = False,
) -> None:
    from lait_cli.dispatch import check_conflicts

    GLOBALS.config = config
    GLOBALS.no_config = no_config
    GLOBALS.no_env = no_env
    GLOBALS.verbose = verbose
    GLOBALS.approve_tools = approve_tools
    GLOBALS.cache = cache
    GLOBALS.no_cache = no_cache
    check_conflicts(GLOBALS)


def _load_env(argv: list[str]) -> None:
    from lait_cli.support.environment import load_env
    from lait_core.documents.dotenv import DotenvError

    try:
        load_env(argv)
    except DotenvError as exc:
        sys.stderr.write(f"lait: {exc}\n")
        raise SystemExit(1) from None


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    from lait_cli.support import redacting

    redacting.install()  # no credential of a URL, no configured secret is ever printed on stderr
    _load_env(args)
    from lait_cli.dispatch import select

    entry, args = select(app, args)  # the subcommand tree, or bare chat (`lait [OPTIONS] [PROMPT]`)
    try:
        entry(args=args, prog_name="lait")
    except KeyboardInterrupt:
        sys.stderr.write("lait: interrupted\n")
        raise SystemExit(130) from None
    except SystemExit as exc:
        if _typer_swallowed_ctrl_c(exc):  # typer turns Ctrl-C into a silent exit 130
            sys.stderr.write("lait: interrupted\n")
        raise
    except Exception as exc:  # a bug: report it in one line, never as a traceback
        sys.stderr.write(f"lait: internal error: {type(exc).__name__}: {exc}\n")
        if os.environ.get("LAIT_DEBUG"):
            raise
        raise SystemExit(1) from None


def _typer_swallowed_ctrl_c(exc: SystemExit) -> bool:
    """Whether ``exc`` is typer's answer to a ``KeyboardInterrupt`` no command handled: typer raises
    ``Exit(130)`` from it and exits quietly. A command that handles Ctrl-C itself (a run, a chat, an
    MCP call) prints its own line and exits without that chain, so nothing is printed twice."""
    import typer

    seen: BaseException | None = exc.__context__
    for _ in range(8):  # the chain is SystemExit <- typer.Exit <- KeyboardInterrupt
        if seen is None:
            return False
        if isinstance(seen, typer.Exit):
            return exc.code == 130 and isinstance(seen.__cause__, KeyboardInterrupt)
        seen = seen.__context__
    return False


if __name__ == "__main__":
    # `python -m lait_cli.main` is the console script: the same entry (the --version answer, a chat's
    # first request sent ahead), then the importable module's main, whose app and GLOBALS the
    # commands see
    from lait_cli.entry import main as entry

    entry()
