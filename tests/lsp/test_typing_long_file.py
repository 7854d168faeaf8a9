"""Typing continuously into a long file still shows diagnostics while typing: an edit does not
cancel a lint in progress once the document has waited long enough (lait_ls.features.diagnostics
MAX_UNPUBLISHED), and the diagnostics after the typing stops are those of the final text."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_for, open_doc

STEPS = 5000  # two lines each: a 10,000-line workflow
TYPING_SECONDS = 5.0
EDIT_EVERY = 0.1
FINDING_LINE = STEPS + 1


def long_workflow() -> str:
    lines = ["# typed into", "steps:"]
    for i in range(STEPS):
        lines += [f"  - id: s{i}", f"    jq: '.a + {i}'"]
    lines.insert(FINDING_LINE, "    temprature: 1")  # one finding in the middle (an unknown step key)
    return "\n".join(lines) + "\n"


async def test_diagnostics_arrive_while_typing_into_a_long_file(
    client: LanguageClient, tmp_path: Path
) -> None:
    client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(
            settings={"lait": {"debounce": 150}}
        )  # the default, not the tests' 0
    )
    wf = tmp_path / "long.yml"
    text = long_workflow()
    wf.write_text(text, encoding="utf-8")
    uri = open_doc(client, wf)
    first = await diagnostics_for(client, uri, timeout=120)
    assert any(d.code == "LAIT309" for d in first)
    client.diagnostics.pop(uri)
    loop = asyncio.get_running_loop()
    version, column, during = 1, len("# typed into"), 0
    stop = loop.time() + TYPING_SECONDS
    while loop.time() < stop:
        version += 1
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[
                    lsp.TextDocumentContentChangePartial(
                        range=lsp.Range(start=lsp.Position(0, column), end=lsp.Position(0, column)), text="x"
                    )
                ],
            )
        )
        column += 1
        await asyncio.sleep(EDIT_EVERY)
        if client.diagnostics.pop(uri, None) is not None:
            during += 1
    assert during >= 1, f"no diagnostics during {TYPING_SECONDS} s of typing ({version - 1} edits)"
    # once the typing stops, the final text's diagnostics arrive (the finding is still there)
    final = await diagnostics_for(client, uri, timeout=120)
    assert any(d.code == "LAIT309" and d.range.start.line == FINDING_LINE for d in final)
