"""Issue 12 item 6: a Claude Code agent file gets one diagnostic (LAIT209) naming the format and the
keys that differ; a Markdown file registered under `skills:` is checked as a skill wherever it lives."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.documents.agent_file import parse_agent
from lait_core.lint.discovery import FileKind, lait_kind
from lait_core.lint.engine import Linter, LintOptions

CLAUDE = """---
name: code-reviewer
description: Reviews code.
tools: Read, Grep
model: sonnet
effort: high
color: blue
---
You review code.
"""


def test_claude_code_agent_is_one_diagnostic_naming_the_differences() -> None:
    doc = parse_agent(CLAUDE, ".claude/agents/reviewer.md")
    assert [d.code for d in doc.diagnostics] == ["LAIT209"]
    message = doc.diagnostics[0].message
    assert "Claude Code agent file" in message
    for part in ("'tools: Read, Grep'", "'model: sonnet'", "'color'", "'effort'"):
        assert part in message
    assert doc.diagnostics[0].range.start.line == 3  # at `tools:`, the first key that differs
    assert not doc.ok
    # the same keys elsewhere are recognised by content, not only by folder
    assert [d.code for d in parse_agent(CLAUDE, "agents/reviewer.md").diagnostics] == ["LAIT209"]


def test_lait_agents_are_not_foreign() -> None:
    lait = "---\nname: r\nmodel: qwen\ntools: [grep]\n---\nReview.\n"
    assert parse_agent(lait, ".claude/agents/r.md").diagnostics == []
    typo = "---\nname: r\nmodle: qwen\n---\nReview.\n"
    assert [d.code for d in parse_agent(typo, "agents/r.md").diagnostics] == ["LAIT202"]
    # in .claude/agents/, an invalid file is explained as Claude Code's format
    assert [d.code for d in parse_agent(typo, ".claude/agents/r.md").diagnostics] == ["LAIT209"]


def test_a_file_registered_under_skills_is_a_skill(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "lait.config.yml").write_text("skills:\n  style: ./docs/style-guide.md\n", encoding="utf-8")
    skill = tmp_path / "docs" / "style-guide.md"
    text = "---\nname: style\ndescription: House style.\nlicense: MIT\n---\nWrite plainly.\n"
    skill.write_text(text, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    home = tmp_path / "xdg"
    home.mkdir()
    result = Linter(LintOptions(environ={"XDG_CONFIG_HOME": str(home)})).lint_paths(["docs/style-guide.md"])
    assert [d.code for d in result.diagnostics] == []  # as an agent, `license` would be LAIT202
    assert lait_kind(skill, text, skills={"style": str(skill)}) is FileKind.SKILL
    assert lait_kind(skill, text) is None
