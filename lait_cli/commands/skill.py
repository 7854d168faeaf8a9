"""`lait skill list`: the skills registered under ``skills:`` of lait.config.yml (docs/cli.md);
the listing is :func:`lait_cli.support.registry_lists.print_registry`."""

from __future__ import annotations

import typer

from lait_cli.support.options import ConfigOption, NoConfigOption
from lait_cli.support.registry_lists import print_registry
from lait_cli.support.run_setup import Common

skill_app = typer.Typer(
    name="skill",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="List the skills registered in lait.config.yml.",
)


def register(app: typer.Typer) -> None:
    app.add_typer(skill_app, name="skill", help="List the skills registered in lait.config.yml.")


@skill_app.command(name="list", help="List the skills registered under 'skills:'.")
def list_skills(config: ConfigOption = None, no_config: NoConfigOption = False) -> None:
    print_registry("skills", Common(config, no_config).merged())
