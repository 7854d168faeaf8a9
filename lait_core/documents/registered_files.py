"""The files registered under ``workflows:``, ``agents:`` and ``skills:`` of lait.config.yml: each
entry read for its description, or marked broken with the first problem found (no such file, not
readable, or the first error of its parse). Used by the list commands and ``lait doctor``."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

Section = Literal["workflows", "agents", "skills"]


@dataclass(frozen=True, slots=True)
class Entry:
    name: str
    path: Path
    description: str | None
    problem: str | None = None


def _first_error(diagnostics: list[object]) -> str | None:
    from lait_core.syntax.diagnostics import Diagnostic

    for d in diagnostics:
        if isinstance(d, Diagnostic) and d.severity == "error":
            start = d.range.start
            return f"line {start.line + 1}:{start.character + 1}: {d.message}"
    return None


def describe_entry(section: Section, name: str, path: Path) -> Entry:
    """Read one registered file for its description; a problem makes it a broken entry."""
    from lait_core.syntax.bounded_read import read_source

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
        from lait_core.documents.workflow_file import parse_workflow

        wf = parse_workflow(loaded.text, str(file))
        problem = _first_error(list(wf.diagnostics))
        description = wf.model.description if wf.model is not None else None
    elif section == "agents":
        from lait_core.documents.agent_file import parse_agent

        agent = parse_agent(loaded.text, str(file))
        problem = _first_error(list(agent.diagnostics))
        description = agent.frontmatter.description if agent.frontmatter is not None else None
    else:
        from lait_core.documents.skill_file import parse_skill

        skill = parse_skill(loaded.text, str(file))
        problem = _first_error(list(skill.diagnostics))
        description = skill.frontmatter.description if skill.frontmatter is not None else None
    return Entry(name, path, description, problem)


def registry_entries(section: Section, registry: dict[str, str]) -> list[Entry]:
    """The entries in name order (paths were joined onto their config file's folder on load)."""
    return [describe_entry(section, name, Path(registry[name]).expanduser()) for name in sorted(registry)]
