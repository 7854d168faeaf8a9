"""`lait rule CODE` / `lait rule --all` / `lait rule --all --format markdown` (docs/rules.md)"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from lait_cli.support.common import fail


def register(app: typer.Typer) -> None:
    app.command(name="rule", help="Explain a lint rule (or list them all with --all).")(rule)


def rule(
    code: Annotated[str | None, typer.Argument(help="A rule code such as LAIT303, or its name.")] = None,
    all_: Annotated[bool, typer.Option("--all", help="List every rule.")] = False,
    format_: Annotated[
        str,
        typer.Option(
            "--format",
            metavar="text|markdown",
            help="With --all: 'markdown' prints every rule's doc as one page (docs/rules.md).",
        ),
    ] = "text",
) -> None:
    from lait_core.rules.registry import all_rules, get_rule

    if format_ not in ("text", "markdown"):
        raise fail(f"--format must be 'text' or 'markdown', not '{format_}'", 2)
    rules = all_rules()
    if format_ == "markdown":
        if code is not None:
            raise fail(
                "--format markdown lists every rule; leave out CODE (`lait rule CODE` is Markdown already)", 2
            )
        from lait_core.rules.catalogue import markdown_catalogue

        sys.stdout.write(markdown_catalogue(rules))
        return
    if all_ or code is None:
        width = max(len(r.name) for r in rules)
        for r in rules:
            sys.stdout.write(f"{r.code}  {r.name:<{width}}  {r.severity.value:<7}  {r.summary}\n")
        return
    found = get_rule(code) or next((r for r in rules if r.name == code), None)
    if found is None:
        raise fail(f"no rule '{code}'; `lait rule --all` lists them", 2)
    sys.stdout.write(found.render())
