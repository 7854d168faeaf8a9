"""Skills (docs/mcp.md, docs/workflows.md).

A skill is a Markdown file (or a directory holding ``SKILL.md``) registered under ``skills:``;
its optional frontmatter has ``name`` (default: the registry key) and ``description``; its body is
never templated. By default every listed skill's full section is appended to the system prompt::

    <system>\n\n---\n\n## Skill: <name>\n\n<description>\n\n<body>\n\n## Skill: <next>...

With ``default.skill_progressive_disclosure: true`` the system prompt gets only the name, the
description and a hint, and a no-argument ``skill__<name>`` tool returns the full section.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from lait_core.engine.llm.chat_types import ToolNameError
from lait_core.engine.run.run_files import read_skill
from lait_core.engine.tools.base import (
    DEFAULT_PARAMETERS,
    CallContext,
    Tool,
    ToolKind,
    ToolResult,
    ToolSource,
)
from lait_core.engine.tools.naming import SKILL_PREFIX, qualify

if TYPE_CHECKING:
    from lait_core.engine.run.run_session import RunSession

SEPARATOR = "\n\n---\n\n"


@dataclass(frozen=True, slots=True)
class Skill:
    key: str
    """The registry key under ``skills:``."""
    name: str
    description: str | None
    body: str

    @property
    def tool_name(self) -> str:
        return qualify(SKILL_PREFIX, self.name)

    def section(self) -> str:
        """The full block: heading, description, body."""
        head = f"## Skill: {self.name}\n"
        if self.description:
            head += f"\n{self.description}\n"
        return f"{head}\n{self.body}"

    def summary(self) -> str:
        """The progressive-disclosure block: heading, description, the hint naming the tool."""
        head = f"## Skill: {self.name}\n"
        if self.description:
            head += f"\n{self.description}\n"
        hint = (
            f"(Call the `{self.tool_name}` tool to read this skill's full instructions before following it.)"
        )
        return f"{head}\n{hint}"


def load_skills(session: RunSession, names: Sequence[str]) -> list[Skill]:
    """The skills named, in order (ConfigurationError for unknown names and bad files)."""
    from lait_core.engine.llm.chat_types import ConfigurationError

    skills: list[Skill] = []
    for key in names:
        registered = session.config.skills.get(key)
        if registered is None:
            raise ConfigurationError(f"unknown skill '{key}'; define it under 'skills:' in lait.config.yml")
        doc = read_skill(session.resolve_path(registered), session.cache)
        front = doc.frontmatter
        name = front.name if front is not None and front.name else key
        description = front.description if front is not None else None
        skills.append(Skill(key, name, description, doc.body))
    return skills


def skills_text(skills: Sequence[Skill], *, progressive: bool) -> str:
    """The skill blocks, joined by blank lines."""
    return "\n\n".join(s.summary() if progressive else s.section() for s in skills)


def with_skills(system: str | None, skills: Sequence[Skill], *, progressive: bool) -> str | None:
    """The system prompt with the skills appended (the skills alone when there is no prompt)."""
    if not skills:
        return system
    text = skills_text(skills, progressive=progressive)
    return text if system is None else f"{system}{SEPARATOR}{text}"


class SkillToolSource(ToolSource):
    """``skill__<name>`` tools (progressive disclosure): each returns its skill's full section."""

    kind = ToolKind.SKILL

    def __init__(self, skills: Sequence[Skill]) -> None:
        self.skills = list(skills)

    async def list_tools(self) -> list[Tool]:
        tools: list[Tool] = []
        for skill in self.skills:
            if not skill.name:
                raise ToolNameError(f"skill '{skill.key}' has an empty name")
            description = f"Read the full instructions of the '{skill.name}' skill before following it."
            if skill.description:
                description += f" The skill: {skill.description}"
            tools.append(
                Tool(skill.tool_name, skill.name, description, dict(DEFAULT_PARAMETERS), self.kind, self)
            )
        return tools

    async def call(self, tool: Tool, arguments: str, ctx: CallContext) -> ToolResult:
        for skill in self.skills:
            if skill.name == tool.name:
                return ToolResult(skill.section())
        return ToolResult(f"unknown skill '{tool.name}'", is_error=True)  # pragma: no cover
