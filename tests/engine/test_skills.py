"""Skills (docs/mcp.md): SKILL.md directories, the name default, bodies never
templated, an agent's frontmatter skills, a skill body returned by its progressive tool and the
located errors of bad skill files."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.engine.llm.chat_types import ConfigurationError
from lait_core.engine.run.agent_run import load_agent, run_agent
from lait_core.engine.tools.base import CallContext
from lait_core.engine.tools.skill_tools import SkillToolSource, load_skills, skills_text, with_skills
from tests.engine.agent_support import make_config, open_session, system_of, write
from tests.peers.openai_server import ScriptedOpenAIServer, text


async def test_load_skills_directory_and_file(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    write(
        tmp_path / ".claude/skills/pdf/SKILL.md", "---\ndescription: PDFs.\n---\n\nUse {{ pdftotext }}.\n\n"
    )
    write(tmp_path / "notes.md", "---\nname: note-taking\n---\nTake notes.")
    config = make_config(llm_server, tmp_path, skills={"pdf": ".claude/skills/pdf", "notes": "notes.md"})
    async with open_session(config, tmp_path) as session:
        pdf, notes = load_skills(session, ["pdf", "notes"])
        assert load_skills(session, ["pdf"])[0] == pdf  # cached per run
    assert (pdf.name, pdf.description, pdf.body) == ("pdf", "PDFs.", "Use {{ pdftotext }}.")
    assert (notes.name, notes.description) == ("note-taking", None)
    assert skills_text([pdf, notes], progressive=False) == (
        "## Skill: pdf\n\nPDFs.\n\nUse {{ pdftotext }}.\n\n## Skill: note-taking\n\nTake notes."
    )
    assert with_skills("S", [notes], progressive=False) == "S\n\n---\n\n## Skill: note-taking\n\nTake notes."
    assert with_skills("S", [], progressive=False) == "S"
    source = SkillToolSource([pdf, notes])
    tools = await source.list_tools()
    assert [t.qualified_name for t in tools] == ["skill__pdf", "skill__note-taking"]
    from lait_core.engine.run.interaction import HeadlessInteraction

    result = await source.call(tools[1], "", CallContext(HeadlessInteraction(), "c1"))
    assert result.text == "## Skill: note-taking\n\nTake notes." and not result.is_error


async def test_agent_frontmatter_skills(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    write(tmp_path / "s.md", "Skill text {{ not rendered }}")
    write(tmp_path / "agent.md", "---\nskills: [s]\n---\nHello {{ input }}")
    config = make_config(
        llm_server, tmp_path, skills={"s": "s.md"}, default={"model": "m", "skills": ["other"]}
    )
    agent = load_agent("agent.md", config=config, config_dir=tmp_path, base_dir=tmp_path)
    llm_server.push(text("ok"))
    async with open_session(config, tmp_path) as session:
        await run_agent(session, agent, "you")
    (body,) = llm_server.bodies
    assert system_of(body) == "Hello you\n\n---\n\n## Skill: s\n\nSkill text {{ not rendered }}"


async def test_missing_skill_file(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    config = make_config(llm_server, tmp_path, skills={"gone": "gone.md", "dir": "empty"})
    async with open_session(config, tmp_path) as session:
        with pytest.raises(ConfigurationError, match=r"gone\.md:1:1: no such file"):
            load_skills(session, ["gone"])
        with pytest.raises(ConfigurationError, match=r"empty/SKILL\.md:1:1: no such file"):
            load_skills(session, ["dir"])
