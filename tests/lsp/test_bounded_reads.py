"""Issue 19 in the language server: a FIFO where lait expects a file -- an ``output_schema``
file, an ``agent:`` file, a module in a jq ``include`` search path, ``/dev/stdin`` -- is a located
diagnostic; the server never blocks on it (the old one froze: hover and shutdown unanswered).
The client fixture's teardown sends shutdown and waits for its answer."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_for, open_doc

WORKFLOWS = {
    "schema": ("steps:\n  - id: a\n    prompt: hi\n    output_schema: {file: fifo.json}\n", "fifo.json", 3),
    "stdin": ("steps:\n  - id: a\n    prompt: hi\n    output_schema: {file: /dev/stdin}\n", None, 3),
    "agent": ("steps:\n  - agent: ./a.md\n", "a.md", 1),
    # libjq takes a relative search path from the working directory, not the file's folder
    "jq-include": ('steps:\n  - id: a\n    jq: \'include "m" {search: "{root}/lib"}; .\'\n', "lib/m.jq", 2),
}


@pytest.mark.parametrize("case", list(WORKFLOWS))
async def test_a_fifo_reference_is_a_diagnostic_and_the_server_answers(
    client: LanguageClient, tmp_path: Path, case: str
) -> None:
    text, fifo, line = WORKFLOWS[case]
    if fifo is not None:
        (tmp_path / fifo).parent.mkdir(parents=True, exist_ok=True)
        os.mkfifo(tmp_path / fifo)
    path = tmp_path / "wf.yml"
    path.write_text(text.replace("{root}", str(tmp_path)), encoding="utf-8")
    uri = open_doc(client, path)
    diagnostics = await diagnostics_for(client, uri, timeout=30)
    refused = [d for d in diagnostics if "not a regular file" in d.message]
    assert refused, [d.message for d in diagnostics]
    assert refused[0].range.start.line == line
    assert "FIFO (named pipe)" in refused[0].message or "character device" in refused[0].message
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(0, 1))
        ),
        30,
    )
    assert hover is not None


async def test_deeply_nested_jq_is_a_located_diagnostic(client: LanguageClient, tmp_path: Path) -> None:
    from tests.cli.test_bounded_reads import deep_workflow

    path = tmp_path / "deep.yml"
    path.write_text(deep_workflow(), encoding="utf-8")
    uri = open_doc(client, path)
    diagnostics = await diagnostics_for(client, uri, timeout=60)
    assert [(d.range.start.line, d.range.start.character, d.message) for d in diagnostics] == [
        (
            2 + 2 * i,
            9 + 1024,
            f"the 'jq' of step 's{i}': invalid jq: the jq expression nests deeper than 1024 levels",
        )
        for i in range(8)
    ]
    hover = await asyncio.wait_for(
        client.text_document_hover_async(
            lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=lsp.Position(0, 1))
        ),
        30,
    )
    assert hover is not None
