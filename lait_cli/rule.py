"""`lait rule CODE` / `lait rule --all`"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from lait_cli.common import fail


def register(app: typer.Typer) -> None:
    app.command(name="rule", help="Explain a lint rule (or list them all with --all).")(rule)


def rule(
    code: Annotated[str | None, typer.Argument(help="A rule code such as LAIT303, or its name.")] = None,
    all_: Annotated[bool, typer.Option("--all", help="List every rule.")] = False,
) -> None:
    from lait_core.lint.registry import all_rules, get_rule

    rules = all_rules()
    if all_ or code is None:
        width = max(len(r.name) for r in rules)
        for r in rules:
            sys.stdout.write(f"{r.code}  {r.name:<{width}}  {r.severity.value:<7}  {r.summary}\n")
        return
    found = get_rule(code) or next((r for r in rules if r.name == code), None)
    if found is None:
        raise fail(f"no rule '{code}'; `lait rule --all` lists them", 2)
    sys.stdout.write(found.render())
