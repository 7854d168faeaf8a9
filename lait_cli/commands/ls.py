"""`lait ls`: the language server over stdio (same as `lait-ls`)."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    app.command(name="ls", help="Run the language server over stdio (same as lait-ls).")(ls)


def ls() -> None:
    from lait_ls.server import main

    main()
