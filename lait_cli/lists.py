"""`lait workflow list`, `lait skill list` (and the body of `lait agent list`): the registry
entries of lait.config.yml, one per line as ``name  path  description``. An entry whose file is
missing or invalid is still listed, marked ``(broken: ...)``, with a ``warning:`` on stderr; the
exit code stays 0."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import typer

from lait_cli.options import ConfigOption, NoConfigOption
from lait_cli.runner import Common

Section = Literal["workflows", "agents", "skills"]

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


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    path: Path
    description: str | None
    problem: str | None = None


def _first_error(diagnostics: list[object]) -> str | None:
    from lait_core.diagnostics import Diagnostic

    for d in diagnostics:
        if isinstance(d, Diagnostic) and d.severity == "error":
            start = d.range.start
            return f"line {start.line + 1}:{start.character + 1}: {d.message}"
    return None


def describe_entry(section: Section, name: str, path: Path) -> Entry:
    """Read one registered file for its description; a problem makes it a broken entry."""
    from lait_core.source.files import read_source

    file = path
    if section == "skills" and path.is_dir():
        file = path / "SKILL.md"
        if not file.exists():
            return Entry(name, path, None, "the directory has no SKILL.md")
    if not file.exists():
        return Entry(name, path, None, "no such file")
    loaded = read_source(file)
    if loaded.text is None:
        assert loaded.problem is not None
        return Entry(name, path, None, loaded.problem.message)
    description: str | None
    problem: str | None
    if section == "workflows":
        from lait_core.documents.workflow import parse_workflow

        wf = parse_workflow(loaded.text, str(file))
        problem = _first_error(list(wf.diagnostics))
        description = wf.model.description if wf.model is not None else None
    elif section == "agents":
        from lait_core.documents.agent import parse_agent

        agent = parse_agent(loaded.text, str(file))
        problem = _first_error(list(agent.diagnostics))
        description = agent.frontmatter.description if agent.frontmatter is not None else None
    else:
        from lait_core.documents.skill import parse_skill

        skill = parse_skill(loaded.text, str(file))
        problem = _first_error(list(skill.diagnostics))
        description = skill.frontmatter.description if skill.frontmatter is not None else None
    return Entry(name, path, description, problem)


def registry_entries(section: Section, registry: dict[str, str]) -> list[Entry]:
    """The entries in name order (paths were joined onto their config file's folder on load)."""
    return [describe_entry(section, name, Path(registry[name]).expanduser()) for name in sorted(registry)]


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
