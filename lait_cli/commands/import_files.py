"""`lait import PATH... [--check] [--force]`: other tools' agents and MCP configs as lait files."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated

import typer

from lait_cli.support.common import fail


def register(app: typer.Typer) -> None:
    app.command(
        name="import",
        help="Convert a Claude Code subagent, a VS Code agent or an MCP config (.mcp.json, .vscode/mcp.json) into "
        "lait files; --check for CI.\n\nWrites agents/<name>.md and mcp_servers: entries of lait.config.yml and "
        "prints what could not be carried over. --check: exit 1 when the import would change or lose anything.",
    )(import_files)


def _shown(path: Path) -> str:
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return rel if not rel.startswith("..") else str(path)


def import_files(
    paths: Annotated[list[Path], typer.Argument(metavar="PATH", help="Files to import.")],
    check: Annotated[
        bool,
        typer.Option("--check", help="Write nothing; exit 1 if the import would change or lose anything."),
    ] = False,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an agent file that differs.")] = False,
    allow_lost: Annotated[
        bool, typer.Option("--allow-lost", help="With --check, what cannot be carried over does not fail.")
    ] = False,
) -> None:
    from lait_core.commands.foreign_import import ImportError_, plan_import

    stale = False
    for path in paths:
        if not path.is_file():
            raise fail(f"cannot import '{path}': no such file", 1)
        try:
            plan = plan_import(path)
        except ImportError_ as exc:
            raise fail(str(exc), 1) from None
        changed = [f for f in plan.files if f.changes]
        for line in plan.lost:
            sys.stderr.write(f"lait: not carried over: {line}\n")
        if check:
            for f in changed:
                what = "missing" if f.old is None else "out of date"
                sys.stderr.write(f"lait: {_shown(f.path)} is {what} (run 'lait import {path}')\n")
            stale = stale or bool(changed) or (bool(plan.lost) and not allow_lost)
            continue
        for f in changed:
            in_place = f.path.resolve() == path.resolve()  # converting the file itself (LAIT209's advice)
            if f.old is not None and f.path.name != "lait.config.yml" and not force and not in_place:
                raise fail(f"'{_shown(f.path)}' exists and differs; --force overwrites it", 1)
        for f in changed:
            try:
                f.path.parent.mkdir(parents=True, exist_ok=True)
                tmp = f.path.with_name(f.path.name + ".lait-import.tmp")
                tmp.write_text(f.text, encoding="utf-8")
                os.replace(tmp, f.path)
            except OSError as exc:
                raise fail(f"cannot write '{_shown(f.path)}': {exc.strerror or exc}", 1) from None
            sys.stdout.write(f"wrote {_shown(f.path)}\n")
        if not changed:
            sys.stdout.write(f"{_shown(path)}: already imported, nothing to write\n")
    if check:
        if stale:
            raise typer.Exit(1)
        sys.stderr.write("lait: imports are up to date\n")
