"""`lait cache clear`: delete the response cache ``.lait/cache/`` (a missing folder is fine)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from lait_cli.support.common import fail

cache_app = typer.Typer(
    name="cache",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Manage the response cache (.lait/cache/).",
)


def register(app: typer.Typer) -> None:
    app.add_typer(cache_app, name="cache", help="Manage the response cache (.lait/cache/).")


@cache_app.command(name="clear", help="Delete .lait/cache/ in the current directory.")
def clear() -> None:
    from lait_core.engine.records.response_cache import CACHE_DIR, clear_cache

    try:
        clear_cache(Path.cwd() / CACHE_DIR)
    except OSError as exc:
        raise fail(f"cannot delete '{CACHE_DIR}': {exc.strerror or exc}") from None
    sys.stdout.write("cache cleared\n")
