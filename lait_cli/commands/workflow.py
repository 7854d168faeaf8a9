"""`lait workflow list`: the workflows registered under ``workflows:`` of lait.config.yml (docs/cli.md);
the listing is :func:`lait_cli.support.registry_lists.print_registry`."""

from __future__ import annotations

import typer

from lait_cli.support.options import ConfigOption, NoConfigOption
from lait_cli.support.registry_lists import print_registry
from lait_cli.support.run_setup import Common

workflow_app = typer.Typer(
    name="workflow",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="List the workflows registered in lait.config.yml.",
)


def register(app: typer.Typer) -> None:
    app.add_typer(workflow_app, name="workflow", help="List the workflows registered in lait.config.yml.")


@workflow_app.command(name="list", help="List the workflows registered under 'workflows:'.")
def list_workflows(config: ConfigOption = None, no_config: NoConfigOption = False) -> None:
    print_registry("workflows", Common(config, no_config).merged())
