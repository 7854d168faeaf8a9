"""An incomplete edit (issue 25): while a file does not parse (an unfinished ``mcp: [``), lait-ls keeps
the code lenses, inlay hints and semantic tokens of its last text that did, on the lines the edit
did not touch (moved with the lines added before them), and the other files' diagnostics do not see
the broken unsaved text: they keep seeing the last good one, the unsaved text again once it parses,
and the file as saved after a save, whatever it is."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import open_doc
from tests.lsp.run_support import run_client

WORKFLOW = """\
schemas:
  out:
    type: object
    properties: {kind: {type: string}, summary: {type: string}}
steps:
  - id: classify
    prompt: "Classify {{ input }}"
    output_schema: out
  - id: route
    when: '$steps.classify.kind == "bug"'
    jq: '{kind: $steps.classify.kind}'
"""


def change(client: LanguageClient, uri: str, version: int, text: str) -> None:
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
            content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


async def results(client: LanguageClient, uri: str) -> tuple[list[int], list[tuple[int, str]], list[int]]:
    doc = lsp.TextDocumentIdentifier(uri=uri)
    lenses = await client.text_document_code_lens_async(lsp.CodeLensParams(text_document=doc)) or []
    hints = await client.text_document_inlay_hint_async(
        lsp.InlayHintParams(
            text_document=doc, range=lsp.Range(start=lsp.Position(0, 0), end=lsp.Position(100, 0))
        )
    )
    tokens = await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(text_document=doc)
    )
    lines = []
    line = 0
    for i in range(0, len(tokens.data if tokens else []), 5):
        line += tokens.data[i]  # type: ignore[union-attr]
        lines.append(line)
    return (
        [lens.range.start.line for lens in lenses],
        [(h.position.line, str(h.label)) for h in hints or []],
        lines,
    )


async def test_lenses_hints_and_tokens_outlive_an_incomplete_edit(tmp_path: Path) -> None:
    path = tmp_path / "flow.yml"
    path.write_text(WORKFLOW, encoding="utf-8")
    async with run_client(tmp_path, init={"inlayHints": {"outputType": True}}) as client:
        uri = open_doc(client, path)
        lenses, hints, tokens = await results(client, uri)
        assert lenses == [4, 4] and hints == [(5, "{kind?, summary?}"), (8, "{kind}")], (lenses, hints)
        assert tokens and min(tokens) >= 6  # the templates and jq programs of the steps
        broken = WORKFLOW.replace("    output_schema: out\n", "    output_schema: out\n    mcp: [\n")
        change(client, uri, 2, broken)
        kept_lenses, kept_hints, kept_tokens = await results(client, uri)
        assert kept_lenses == lenses  # above the edit
        assert kept_hints == [(5, "{kind?, summary?}"), (9, "{kind}")]  # the one below moved down
        assert kept_tokens == [line if line < 8 else line + 1 for line in tokens]
        change(client, uri, 3, broken.replace("    mcp: [\n", "    mcp: []\n"))  # parses again
        assert (await results(client, uri))[1] == [(5, "{kind?, summary?}"), (9, "{kind}")]


async def test_dependants_do_not_see_an_unsaved_broken_edit(tmp_path: Path) -> None:
    child = tmp_path / "child.yml"
    child.write_text("steps:\n  - jq: '.'\n", encoding="utf-8")
    parent = tmp_path / "parent.yml"
    parent.write_text("steps:\n  - workflow: ./child.yml\n", encoding="utf-8")

    async with run_client(tmp_path) as client:

        async def parent_after_edit(version: int) -> list[str]:
            client.diagnostics.pop(parent_uri, None)
            change(client, parent_uri, version, f"# edit {version}\nsteps:\n  - workflow: ./child.yml\n")
            for _ in range(1000):
                if parent_uri in client.diagnostics:
                    return [d.message for d in client.diagnostics[parent_uri]]
                await asyncio.sleep(0.01)
            raise TimeoutError("no diagnostics for parent.yml")

        child_uri = open_doc(client, child)
        parent_uri = open_doc(client, parent)
        assert await parent_after_edit(2) == []
        change(client, child_uri, 2, "steps:\n  - jq: '.'\n    mcp: [\n")  # unfinished, unsaved
        assert await parent_after_edit(3) == []  # not red: it sees the last good child
        change(client, child_uri, 3, "steps:\n  - jq: '.'\n    temperature: 3\n")  # parses, unsaved
        [live] = await parent_after_edit(4)
        assert "runs workflow './child.yml', which has 1 error" in live  # a good unsaved text is seen
        broken = "steps:\n  - jq: '.'\n    mcp: [\n"
        change(client, child_uri, 4, broken)
        [still] = await parent_after_edit(5)
        assert still == live  # the last good text, not the broken one
        child.write_text(broken, encoding="utf-8")
        client.text_document_did_save(
            lsp.DidSaveTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=child_uri))
        )
        [saved] = await parent_after_edit(6)
        assert "YAML syntax error" in saved  # saved: what lait lint and a run see
