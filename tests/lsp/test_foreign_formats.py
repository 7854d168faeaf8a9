"""Other tools' files in the real server, one case per format: the diagnostic of a mistake, completion of
a key or a documented value, and hover on a key (its documentation and the page it comes from)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_for, module_client, open_doc

pytestmark = pytest.mark.asyncio(loop_scope="module")
client = module_client()


@dataclass(frozen=True)
class Case:
    path: str
    text: str
    code: str
    """The code the mistake in ``text`` reports."""
    complete_at: tuple[int, int]
    label: str
    """A completion item offered at ``complete_at``."""
    hover_at: tuple[int, int]
    hover: str
    """Text the hover at ``hover_at`` shows."""


CASES = {
    "claude-agent": Case(
        ".claude/agents/reviewer.md",
        "---\nname: reviewer\ndescription: Reviews code.\npermissionMode: \nhooks: []\n---\nReview.\n",
        "LAIT802",
        (3, 16),
        "acceptEdits",
        (4, 2),
        "mapping, not a list",
    ),
    "claude-skill": Case(
        ".claude/skills/pdf/SKILL.md",
        "---\nname: pdf\ndescription: Fill PDFs.\ncontxt: fork\n\n---\nBody.\n",
        "LAIT801",
        (4, 0),
        "when_to_use",
        (1, 1),
        "lowercase letters, digits and hyphens",
    ),
    "claude-mcp": Case(
        ".mcp.json",
        '{"mcpServers": {"web": {"type": "http", "command": "x"}}}\n',
        "LAIT802",
        (0, 33),
        "sse",
        (0, 41),
        "the program to start",
    ),
    "claude-settings": Case(
        ".claude/settings.json",
        '{"enableAllProjectMcpServers": "yes"}\n',
        "LAIT802",
        (0, 1),
        "enabledMcpjsonServers",
        (0, 3),
        "Approve every server",
    ),
    "vscode-agent": Case(
        ".github/agents/planner.agent.md",
        "---\ndescription: Plans.\ntarget: \ninfer: true\n---\nPlan.\n",
        "LAIT801",
        (2, 8),
        "github-copilot",
        (1, 2),
        "code.visualstudio.com",
    ),
    "vscode-prompt": Case(
        ".github/prompts/fix.prompt.md",
        "---\nagent: \ndescripton: Fix.\n---\nFix it.\n",
        "LAIT801",
        (1, 7),
        "plan",
        (1, 1),
        "custom agent",
    ),
    "vscode-instructions": Case(
        ".github/instructions/py.instructions.md",
        "---\napplyTo: '**/*.py'\n\n---\nSee [the guide](missing.md).\n",
        "LAIT804",
        (2, 0),
        "description",
        (1, 2),
        "Glob of the files",
    ),
    "vscode-mcp": Case(
        ".vscode/mcp.json",
        '{\n  // servers\n  "servers": {"docs": {"type": "", "uri": "https://x"}}\n}\n',
        "LAIT801",
        (2, 31),
        "http",
        (2, 24),
        "Transport",
    ),
    "copilot-skill": Case(
        ".github/skills/testing/SKILL.md",
        "---\nname: Testing\ndescription: Tests.\ncontext: \n---\nBody.\n",
        "LAIT802",
        (3, 9),
        "fork",
        (2, 2),
        "when to use it",
    ),
    "agent-skill": Case(
        ".agents/skills/notes/SKILL.md",
        "---\nname: notes\ndescription: Notes.\nlicence: MIT\n\n---\nBody.\n",
        "LAIT801",
        (4, 0),
        "license",
        (1, 1),
        "agentskills.io",
    ),
}


@pytest.mark.parametrize("name", CASES)
async def test_foreign_format_in_the_editor(client: LanguageClient, tmp_path: Path, name: str) -> None:
    case = CASES[name]
    path = tmp_path / name / case.path
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(case.text, encoding="utf-8")
    uri = open_doc(client, path)
    codes = [d.code for d in await diagnostics_for(client, uri)]
    assert case.code in codes, codes

    line, character = case.complete_at
    result = await client.text_document_completion_async(
        lsp.CompletionParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=lsp.Position(line=line, character=character),
        )
    )
    items = result.items if isinstance(result, lsp.CompletionList) else result or []
    assert case.label in [i.label for i in items], [i.label for i in items]

    line, character = case.hover_at
    hover = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=lsp.Position(line=line, character=character),
        )
    )
    assert hover is not None and isinstance(hover.contents, lsp.MarkupContent)
    assert case.hover in hover.contents.value, hover.contents.value
