"""`lait init [workflow|agent] [PATH]`: write a starter file (docs/cli.md).

No kind: ``lait.config.yml`` in the current directory. ``workflow``/``agent``: a commented
``workflow.yml``/``agent.md`` (or PATH). An existing file is never overwritten (exit 1). PATH
without a kind is a usage error (exit 2). The scaffolds are in :mod:`lait_core.commands.starter_files`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from lait_cli.support.common import fail

HELP = (
    "Write a starter lait.config.yml in the current directory, or with a kind a commented "
    "workflow.yml or agent.md (at PATH). Never overwrites a file. The files lint clean and run on the "
    "built-in embedded model."
)
KINDS = ("workflow", "agent")


def register(app: typer.Typer) -> None:
    app.command(name="init", help=HELP)(init)


def init(
    kind: Annotated[
        str | None, typer.Argument(metavar="[workflow|agent]", help="What to write.", show_default=False)
    ] = None,
    path: Annotated[
        Path | None, typer.Argument(metavar="[PATH]", help="Where (needs a kind).", show_default=False)
    ] = None,
) -> None:
    from lait_core.commands.starter_files import DEFAULT_PATHS, ScaffoldExists, write

    if kind is not None and kind not in KINDS:
        raise fail(f"unknown kind '{kind}'; expected 'workflow' or 'agent' (PATH requires a kind)", 2)
    scaffold = "config" if kind is None else kind
    target = path or Path(DEFAULT_PATHS[scaffold])  # type: ignore[index]
    try:
        written = write(scaffold, target)  # type: ignore[arg-type]
    except ScaffoldExists as exc:
        raise fail(str(exc), 1) from None
    except OSError as exc:
        raise fail(f"cannot write '{target}': {exc.strerror or exc}", 1) from None
    sys.stderr.write(f"wrote {written}\n")
    if scaffold == "workflow":
        sys.stderr.write(f'next: lait lint {written} && lait run {written} "What is lait?"\n')
    elif scaffold == "agent":
        sys.stderr.write(f'next: lait lint {written} && lait agent run {written} "some text"\n')
    else:
        sys.stderr.write("next: lait doctor\n")
