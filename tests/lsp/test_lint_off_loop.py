"""lait-ls never blocks on one document's lint: the lint runs on a worker thread, so hover and
completion on another document (also right after an edit of it, from its new text) and the shutdown
are answered while a huge workflow is being linted, and the next edit cancels the stale lint (it stops part-way; its result is never published).

A real LSP client (pytest-lsp) against lait-ls in a subprocess. The huge workflow takes seconds to
lint; the assertions are about order (what was answered before what), never about durations.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient
from pytest_lsp.client import DEFAULT_CLIENT_FEATURES

ROOT = Path(__file__).resolve().parents[2]
SERVER = [sys.executable, "-m", "lait_ls.server"]
SMALL = "inputs:\n  topic: {type: string}\nsteps:\n  - id: first\n    prompt: 'About {{ inputs.topic }}'\n"


def huge_workflow(steps: int = 12_000) -> str:
    """About 1.7 MB: a step per 4 lines, each with a template and two jq expressions."""
    parts = ["inputs:\n  topic: {type: string}\nsteps:\n"]
    for i in range(steps):
        prev = max(i - 1, 0)
        parts.append(
            f"  - id: s{i}\n    prompt: 'Tell me about {{{{ inputs.topic }}}} and {{{{ steps.s{prev} }}}}'\n"
            f"    when: '$steps.s{prev} | length > {i}'\n    output: '.x + {i}'\n"
        )
    return "".join(parts)


class Recorder(LanguageClient):
    def __init__(self) -> None:
        super().__init__()
        self.published: list[tuple[str, int | None]] = []
        self.log: list[str] = []


def make_client() -> Recorder:
    client = Recorder()
    for method, func in DEFAULT_CLIENT_FEATURES.items():
        if method != lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS:
            client.feature(method)(func)

    @client.feature(lsp.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def published(params: lsp.PublishDiagnosticsParams) -> None:
        client.published.append((params.uri, params.version))
        client.diagnostics[params.uri] = params.diagnostics

    return client


@contextlib.asynccontextmanager
async def server(tmp_path: Path, warm_gate: Path | None = None) -> AsyncIterator[Recorder]:
    env = {
        **os.environ,
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "PYTHONPATH": str(ROOT),
        "LAIT_LOG": "INFO",
    }
    if warm_gate is not None:  # each navigation-index warm-up waits until this file exists
        env["LAIT_LS_TEST_WARM_GATE"] = str(warm_gate)
    config = ClientServerConfig(server_command=SERVER, server_env=env, client_factory=make_client)
    client = await config.start()
    assert isinstance(client, Recorder)
    process = client._server
    assert process is not None and process.stderr is not None
    if client._stderr_forwarder is not None:  # read the server's log here instead
        client._stderr_forwarder.cancel()
    stderr = process.stderr

    async def collect() -> None:
        while line := await stderr.readline():
            client.log.append(line.decode("utf-8", "replace"))

    reader = asyncio.create_task(collect())
    await client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(),
            root_uri=tmp_path.as_uri(),
            initialization_options={"debounce": 0},
        )
    )
    try:
        yield client
    finally:
        if process.returncode is None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(client.shutdown_session(), 30)
        await client.stop()
        reader.cancel()


def project(tmp_path: Path) -> tuple[Path, Path]:
    (tmp_path / "lait.config.yml").write_text("default:\n  model: m\n", encoding="utf-8")
    big, small = tmp_path / "huge.yml", tmp_path / "small.yml"
    big.write_text(huge_workflow(), encoding="utf-8")
    small.write_text(SMALL, encoding="utf-8")
    return big, small


def open_doc(client: LanguageClient, path: Path, text: str | None = None) -> str:
    uri = path.as_uri()
    text = path.read_text(encoding="utf-8") if text is None else text
    item = lsp.TextDocumentItem(uri=uri, language_id="yaml", version=1, text=text)
    client.text_document_did_open(lsp.DidOpenTextDocumentParams(text_document=item))
    return uri


async def until(predicate: Any, timeout: float = 120.0) -> None:
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.02)


async def test_hover_completion_and_shutdown_do_not_wait_for_a_huge_lint(tmp_path: Path) -> None:
    big, small = project(tmp_path)
    async with server(tmp_path) as client:
        small_uri = open_doc(client, small)
        await until(lambda: small_uri in client.diagnostics)
        big_uri = open_doc(client, big)
        await until(lambda: any(f"lint of {big}" in line for line in client.log))
        hover = await client.text_document_hover_async(
            lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=small_uri),
                position=lsp.Position(line=4, character=6),
            )
        )
        completion = await client.text_document_completion_async(
            lsp.CompletionParams(
                text_document=lsp.TextDocumentIdentifier(uri=small_uri),
                position=lsp.Position(line=3, character=4),
            )
        )
        assert big_uri not in client.diagnostics  # answered while the huge document is still being linted
        assert hover is not None and "prompt" in str(hover.contents)
        assert completion is not None
        items = completion.items if isinstance(completion, lsp.CompletionList) else completion
        assert "output" in [i.label for i in items]
        # an edit of the small document (which also starts the huge one's lint again): a hover on
        # the new line is answered from the new text, while the lint thread is still busy with the
        # huge lint (the small document's warm-up waits behind it)
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=small_uri, version=2),
                content_changes=[
                    lsp.TextDocumentContentChangeWholeDocument(
                        text=SMALL + "  - id: second\n    jq: '$steps.first | length'\n"
                    )
                ],
            )
        )
        edited_hover = await client.text_document_hover_async(
            lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=small_uri),
                position=lsp.Position(line=6, character=6),
            )
        )
        assert big_uri not in client.diagnostics
        assert edited_hover is not None and "jq" in str(edited_hover.contents)
        assert edited_hover.range is not None and edited_hover.range.start.line == 6
        await asyncio.wait_for(client.shutdown_session(), 60)
        assert client._server is not None and client._server.returncode == 0
        assert big_uri not in client.diagnostics  # the shutdown did not wait for it either


async def test_the_next_edit_cancels_a_stale_lint(tmp_path: Path) -> None:
    big, _small = project(tmp_path)
    async with server(tmp_path) as client:
        big_uri = open_doc(client, big)
        await until(lambda: any(f"lint of {big} started" in line for line in client.log))
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=big_uri, version=2),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=SMALL)],
            )
        )
        await until(lambda: (big_uri, 2) in client.published)
        assert list(client.diagnostics[big_uri]) == []
        assert any(f"lint of {big} cancelled" in line for line in client.log), "".join(client.log)
        assert (big_uri, 1) not in client.published


async def test_requests_after_an_edit_do_not_wait_for_the_warm_up(tmp_path: Path) -> None:
    """After each publish lait-ls prepares the document for the next requests (the warm-up): its
    semantic tokens (once they were asked for), its navigation index on the lint thread, then its
    completion (once asked for). Here every index warm-up is held until a gate file exists: semantic
    tokens, hover and completion sent right after an edit are answered meanwhile (on the request loop
    they would wait for the gate), the tokens were prepared before they were asked for, the edit
    cancelled the warm-up of the previous version, and once the gate is open the next edit's
    warm-up prepares completion too."""
    gate = tmp_path / "gate"
    (tmp_path / "lait.config.yml").write_text("default:\n  model: m\n", encoding="utf-8")
    small = tmp_path / "small.yml"
    small.write_text(SMALL, encoding="utf-8")
    edited = SMALL + "  - id: second\n    jq: '$steps.first | length'\n"

    def count(text: str) -> int:
        return sum(text in line for line in client.log)

    async with server(tmp_path, warm_gate=gate) as client:
        uri = open_doc(client, small)
        doc = lsp.TextDocumentIdentifier(uri=uri)
        await until(lambda: count(f"warm-up of {small} started") == 1)
        first = await client.text_document_semantic_tokens_full_async(
            lsp.SemanticTokensParams(text_document=doc)
        )
        assert first is not None and count(f"semantic tokens of {small} computed") == 1
        await client.text_document_completion_async(
            lsp.CompletionParams(text_document=doc, position=lsp.Position(line=4, character=4))
        )
        assert count(f"completion of {small} started") == 0
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=edited)],
            )
        )
        await until(lambda: (uri, 2) in client.published)
        await until(lambda: count(f"warm-up of {small} started") == 2)  # after the tokens
        assert count(f"semantic tokens of {small} computed") == 2  # before anyone asked
        tokens = await client.text_document_semantic_tokens_full_async(
            lsp.SemanticTokensParams(text_document=doc)
        )
        hover = await client.text_document_hover_async(
            lsp.HoverParams(text_document=doc, position=lsp.Position(line=6, character=6))
        )
        completion = await client.text_document_completion_async(
            lsp.CompletionParams(text_document=doc, position=lsp.Position(line=6, character=4))
        )
        held = "".join(client.log)
        assert count(f"warm-up of {small} finished") == 0, held  # version 2's still waits at the gate
        assert count(f"warm-up of {small} cancelled") == 1, held  # version 1's, by the edit
        assert count(f"semantic tokens of {small} computed") == 2  # the request used the prepared ones
        assert tokens is not None and tokens.result_id != first.result_id
        assert len(tokens.data) > len(first.data)  # `$steps.first | length` is coloured too
        assert hover is not None and "jq" in str(hover.contents)
        assert completion is not None
        gate.write_text("", encoding="utf-8")
        await until(lambda: count(f"warm-up of {small} finished") == 1)
        # with the gate open, the next edit's warm-up also prepares completion (asked for before)
        assert count(f"completion of {small} started") == 0  # the request above prepared version 2
        client.text_document_did_change(
            lsp.DidChangeTextDocumentParams(
                text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=3),
                content_changes=[lsp.TextDocumentContentChangeWholeDocument(text=edited + "\n")],
            )
        )
        await until(lambda: count(f"completion of {small} finished") == 1)
        assert count(f"warm-up of {small} finished") == 2  # the index first, then completion
