"""`lait schema config|agent|workflow|test|eval`"""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from lait_cli.support.common import fail


def register(app: typer.Typer) -> None:
    app.command(
        name="schema", help="Print the JSON Schema of a file kind: config, agent, workflow, test or eval."
    )(schema)


def schema(kind: Annotated[str, typer.Argument(help="config, agent, workflow, test or eval.")]) -> None:
    from lait_core.documents.json_schemas import KINDS, schema_text

    if kind not in KINDS:
        raise fail(f"unknown schema kind '{kind}'; expected one of: {', '.join(KINDS)}", 2)
    sys.stdout.write(schema_text(kind))
