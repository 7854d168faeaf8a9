"""Live diagnostics through a real LSP client."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_for, open_doc


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
