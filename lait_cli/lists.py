"""`lait workflow list`, `lait skill list` (and the body of `lait agent list`): the registry
entries of lait.config.yml, one per line as ``name  path  description``. An entry whose file is
missing or invalid is still listed, marked ``(broken: ...)``, with a ``warning:`` on stderr; the
exit code stays 0."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

from lait_cli.options import ConfigOption, NoConfigOption
from lait_cli.runner import Common
from lait_core.registry import Entry, Section, registry_entries

workflow_app = typer.Typer(
    name="workflow",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="List the workflows registered in lait.config.yml.",
)
skill_app = typer.Typer(
    name="skill",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="List the skills registered in lait.config.yml.",
)


def register(app: typer.Typer) -> None:
    app.add_typer(workflow_app, name="workflow", help="List the workflows registered in lait.config.yml.")
    app.add_typer(skill_app, name="skill", help="List the skills registered in lait.config.yml.")


@workflow_app.command(name="list", help="List the workflows registered under 'workflows:'.")
def list_workflows(config: ConfigOption = None, no_config: NoConfigOption = False) -> None:
    print_registry("workflows", Common(config, no_config).merged())


@skill_app.command(name="list", help="List the skills registered under 'skills:'.")
def list_skills(config: ConfigOption = None, no_config: NoConfigOption = False) -> None:
    print_registry("skills", Common(config, no_config).merged())


def shown_path(path: Path) -> str:
    """Relative to the working directory when below it, else as is."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return rel if not rel.startswith("..") else str(path)


def format_entries(entries: list[Entry]) -> str:
    if not entries:
        return ""
    rows = [
        (
            e.name,
            shown_path(e.path),
            f"(broken: {e.problem})"
            if e.problem
            else (" ".join(e.description.split()) if e.description else ""),
        )
        for e in entries
    ]
    name_width = max(len(r[0]) for r in rows)
    path_width = max(len(r[1]) for r in rows)
    lines = [f"{n:<{name_width}}  {p:<{path_width}}  {d}".rstrip() for n, p, d in rows]
    return "\n".join(lines) + "\n"


def print_registry(section: Section, common: Common) -> None:
    from lait_cli.runner import load_run_config

    config, _folder = load_run_config(common)
    registry: dict[str, str] = getattr(config, section)
    entries = registry_entries(section, registry)
    if not entries:
        sys.stderr.write(f"lait: no {section} are registered under '{section}:' in lait.config.yml\n")
        return
    sys.stdout.write(format_entries(entries))
    for e in entries:
        if e.problem:
            sys.stderr.write(f"warning: {section}.{e.name} ({shown_path(e.path)}): {e.problem}\n")
