"""Workspace symbols across closed files and selection ranges, through the real server."""

from __future__ import annotations

import itertools
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, open_doc
from tests.lsp.markers import marked, write_project

CONFIG = """\
mcp_servers:
  «git»: {command: git-mcp}
tools:
  «grep»: {command: [grep, "{{ input.p }}"]}
agents:
  «reviewer»: agents/reviewer.md
"""

WORKFLOW = """\
inputs:
  «repo»: string
steps:
  - id: «fetch»
    run: [gh, "{{ inputs.repo }}"]
  - id: «summarize»
    prompt: 😀 {{ steps.fetch }}
"""


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER, server_env={"XDG_CONFIG_HOME": "/nonexistent-lait-test"})
)
async def client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[LanguageClient]:
    (tmp_path / "project").mkdir()
    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            root_uri=(tmp_path / "project").as_uri(),
            initialization_options={"debounce": 0},
        )
    )
    yield lsp_client
    await lsp_client.shutdown_session()


async def query(client: LanguageClient, text: str) -> list[lsp.SymbolInformation]:
    """The answer (the client's converter reads the WorkspaceSymbol items as SymbolInformation: the
    fields used here are the same)."""
    result = await client.workspace_symbol_async(lsp.WorkspaceSymbolParams(query=text))
    out = []
    for s in result or []:
        assert isinstance(s, lsp.SymbolInformation | lsp.WorkspaceSymbol)
        assert isinstance(s.location, lsp.Location)
        out.append(lsp.SymbolInformation(name=s.name, kind=s.kind, location=s.location))
    return out


@pytest.mark.asyncio
async def test_workspace_symbols_of_closed_files(client: LanguageClient, tmp_path: Path) -> None:
    root = tmp_path / "project"
    files = write_project(
        root,
        {
            "lait.config.yml": CONFIG,
            "workflows/main.yml": WORKFLOW,
            "agents/reviewer.md": "---\nmodel: m\n---\nYou review.\n",
            "notes/other.yml": "inputs:\n  nope: string\n",  # not a lait file
        },
    )
    found = await query(client, "")
    by_name = {(s.name, s.location.uri): s for s in found}
    for rel in ("lait.config.yml", "workflows/main.yml"):
        uri = (root / rel).as_uri()
        text = files[rel].text
        for rng in files[rel].ranges:
            name = text.split("\n")[rng.start.line][rng.start.character : rng.end.character]
            symbol = by_name[(name, uri)]
            assert symbol.location.range == rng
    kinds = {s.name: s.kind for s in found}
    assert kinds["fetch"] == lsp.SymbolKind.Function and kinds["git"] == lsp.SymbolKind.Interface
    assert kinds["main"] == lsp.SymbolKind.File and "reviewer" in kinds
    assert "nope" not in kinds
    assert [s.name for s in await query(client, "smz")] == ["summarize"]


@pytest.mark.asyncio
async def test_selection_ranges_grow_from_the_word(client: LanguageClient, tmp_path: Path) -> None:
    m = marked(
        "steps:\n  - id: a\n    jq: |\n      [«$steps.f‸etch»[] | length]\n  - id: b\n    prompt: hi\n"
    )
    path = tmp_path / "project" / "flow.yml"
    path.write_text(m.text, encoding="utf-8")
    uri = open_doc(client, path)
    result = await client.text_document_selection_range_async(
        lsp.SelectionRangeParams(text_document=lsp.TextDocumentIdentifier(uri=uri), positions=[m.at])
    )
    assert result is not None and len(result) == 1
    chain: list[lsp.Range] = []
    node: lsp.SelectionRange | None = result[0]
    while node is not None:
        chain.append(node.range)
        node = node.parent
    assert chain[0] == m.ranges[0]
    for inner, outer in itertools.pairwise(chain):
        assert (outer.start.line, outer.start.character) <= (inner.start.line, inner.start.character)
        assert (inner.end.line, inner.end.character) <= (outer.end.line, outer.end.character)
        assert inner != outer
    lines = m.text.split("\n")
    texts = ["\n".join(lines[r.start.line : r.end.line + 1]) for r in chain]
    assert any(t.strip().startswith("jq: |") for t in texts)  # the key/value pair
    assert any(t.strip().startswith("- id: a") or t.strip().startswith("id: a") for t in texts)  # the step
    assert chain[-1].start == lsp.Position(line=0, character=0)  # the whole document
