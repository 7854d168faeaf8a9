"""Live diagnostics through a real LSP client."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_for, module_client, open_doc

# One server for the whole module (every test works on files of its own tmp_path).
pytestmark = pytest.mark.asyncio(loop_scope="module")
client = module_client()


async def test_open_workflow_publishes_located_diagnostics(client: LanguageClient, tmp_path: Path) -> None:
    wf = tmp_path / "flow.yml"
    text = "inputs:\n  topic: string\nsteps:\n  - prompt: |\n      日本語 {{ inputs.topc }} 😀\n"
    wf.write_text(text)
    uri = open_doc(client, wf)
    diags = await diagnostics_for(client, uri)
    by_code = {d.code: d for d in diags}
    d = by_code["LAIT403"]
    # line 5, after "      日本語 {{ " (6 spaces, 3 CJK, space, "{{ ", "inputs.") -> utf-16 == code points here
    assert (d.range.start.line, d.range.start.character) == (4, 20)
    assert d.range.end.character - d.range.start.character == len("topc")
    assert d.code_description is not None and d.code_description.href.startswith("file:")
    assert d.source == "lait"


async def test_change_fixes_the_diagnostic(client: LanguageClient, tmp_path: Path) -> None:
    wf = tmp_path / "flow.yml"
    wf.write_text("steps:\n  - prompt: hi\n    temprature: 0.2\n")
    uri = open_doc(client, wf)
    diags = await diagnostics_for(client, uri)
    assert [d.code for d in diags if d.code != "LAIT506"] == ["LAIT309"]
    client.diagnostics.pop(uri)
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                lsp.TextDocumentContentChangePartial(
                    range=lsp.Range(
                        start=lsp.Position(line=2, character=4), end=lsp.Position(line=2, character=14)
                    ),
                    text="temperature",
                )
            ],
        )
    )
    diags = await diagnostics_for(client, uri)
    assert [d.code for d in diags if d.code != "LAIT506"] == []


async def test_other_yaml_gets_nothing(client: LanguageClient, tmp_path: Path) -> None:
    other = tmp_path / "docker-compose.yml"
    other.write_text("services:\n  web:\n    image: nginx\n    bogus: [\n")
    uri = open_doc(client, other)
    diags = await diagnostics_for(client, uri)
    assert diags == []


async def test_editing_the_config_rechecks_open_workflows(client: LanguageClient, tmp_path: Path) -> None:
    config = tmp_path / "lait.config.yml"
    config.write_text("mcp_servers:\n  web: {command: mcp-web}\n")
    wf = tmp_path / "flow.yml"
    wf.write_text("steps:\n  - prompt: list files\n    mcp: [fs]\n")
    wf_uri = open_doc(client, wf)
    diags = await diagnostics_for(client, wf_uri)
    assert [d.code for d in diags] == ["LAIT501"]
    config_uri = open_doc(client, config)
    await diagnostics_for(client, config_uri)
    client.diagnostics.pop(wf_uri, None)
    # add the server in the editor buffer only (unsaved): the open workflow is checked again
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=config_uri, version=2),
            content_changes=[
                lsp.TextDocumentContentChangePartial(
                    range=lsp.Range(
                        start=lsp.Position(line=2, character=0), end=lsp.Position(line=2, character=0)
                    ),
                    text="  fs: {command: mcp-fs}\n",
                )
            ],
        )
    )
    diags = await diagnostics_for(client, wf_uri)
    assert [d.code for d in diags] == []


async def test_saving_an_agent_rechecks_workflows_that_use_it(client: LanguageClient, tmp_path: Path) -> None:
    (tmp_path / "lait.config.yml").write_text("mcp_servers:\n  fs: {command: mcp-fs}\n")
    agent = tmp_path / "agents" / "helper.md"
    agent.parent.mkdir()
    agent.write_text("---\nmodel: m\ntemperature: 5\n---\nYou help.\n")
    wf = tmp_path / "flow.yml"
    wf.write_text("steps:\n  - agent: ./agents/helper.md\n")
    wf_uri = open_doc(client, wf)
    diags = await diagnostics_for(client, wf_uri)
    assert [d.code for d in diags] == ["LAIT319"]
    agent_uri = open_doc(client, agent)
    await diagnostics_for(client, agent_uri)
    client.diagnostics.pop(wf_uri, None)
    agent.write_text("---\nmodel: m\ntemperature: 0.5\n---\nYou help.\n")
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=agent_uri, version=2),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=agent.read_text())],
        )
    )
    client.text_document_did_save(
        lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=agent_uri))
    )
    diags = await diagnostics_for(client, wf_uri)
    assert [d.code for d in diags] == []
