"""Inlay hints through the real server: positions from «» markers (UTF-16 after emoji), labels per
kind, every kind off by default and switched on per kind by settings."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, open_doc
from tests.lsp.markers import write_project

ALL = {"modelAlias": True, "shellArgv": True, "outputType": True, "forEachItem": True}

CONFIG = """\
models:
  fast:
    - model_id: gpt-4o-mini
      provider: {base_url: "https://api.example.com/v1"}
    - model_id: backup
      provider: {base_url: "http://127.0.0.1:1234/v1"}
tools:
  grep:
    command: [grep, -n, "{{ input.pattern }}", "{{ input.path }}"]
default:
  model: fast«»
"""

WORKFLOW = """\
inputs:
  issues: {type: array, items: {type: integer}}
  names: string
schemas:
  summary:
    type: object
    properties: {kind: {type: string}, text: {type: string}}
    required: [kind]
models:
  mine:
    - model_id: 日本-model
      provider: {base_url: "http://localhost:8080/v1"}
steps:
  - id: sum«»
    model: mine«»
    prompt: hi
    tools: [grep«», unknown]
    output_schema: summary
  - {id: e, prompt: "😀 日本", model: fast«»}
  - id: tags«»
    prompt: tags
    output_schema: {type: array, items: {type: string}}
  - for_each: '$inputs.issues'«»
    steps:
      - jq: .
  - for_each: '$steps.tags'«»
    steps:
      - jq: .
  - for_each: '$inputs.names'
    steps:
      - jq: .
"""

REFRESHES: dict[int, list[int]] = {}

EXPECTED = {
    "lait.config.yml": ["gpt-4o-mini @ api.example.com +1"],
    "workflows/main.yml": [
        "{kind, text?}",
        "日本-model @ localhost:8080",
        "grep -n <pattern> <path>",
        "gpt-4o-mini @ api.example.com +1",
        "string[]",
        "item: integer",
        "item: string",
    ],
}


async def start(lsp_client: LanguageClient, options: dict[str, object]) -> None:
    await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), initialization_options=options)
    )


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER, server_env={"XDG_CONFIG_HOME": "/nonexistent-lait-test"})
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    await start(lsp_client, {"debounce": 0, "inlayHints": ALL})
    yield lsp_client
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER, server_env={"XDG_CONFIG_HOME": "/nonexistent-lait-test"})
)
async def plain_client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    refreshes = REFRESHES.setdefault(id(lsp_client), [])

    @lsp_client.feature(lsp.WORKSPACE_INLAY_HINT_REFRESH)
    def refreshed(params: None) -> None:
        refreshes.append(1)

    await lsp_client.initialize_session(
        lsp.InitializeParams(
            capabilities=lsp.ClientCapabilities(
                workspace=lsp.WorkspaceClientCapabilities(
                    inlay_hint=lsp.InlayHintWorkspaceClientCapabilities(refresh_support=True)
                )
            ),
            initialization_options={"debounce": 0},
        )
    )
    yield lsp_client
    await lsp_client.shutdown_session()


async def hints_of(client: LanguageClient, uri: str, text: str) -> list[lsp.InlayHint]:
    lines = text.split("\n")
    whole = lsp.Range(start=lsp.Position(line=0, character=0), end=lsp.Position(line=len(lines), character=0))
    result = await client.text_document_inlay_hint_async(
        lsp.InlayHintParams(text_document=lsp.TextDocumentIdentifier(uri=uri), range=whole)
    )
    return list(result or [])


@pytest.mark.asyncio
async def test_hints_of_every_kind(client: LanguageClient, tmp_path: Path) -> None:
    marked = write_project(tmp_path, {"lait.config.yml": CONFIG, "workflows/main.yml": WORKFLOW})
    for rel, labels in EXPECTED.items():
        uri = open_doc(client, tmp_path / rel)
        hints = await hints_of(client, uri, marked[rel].text)
        assert [h.label for h in hints] == labels, rel
        assert [lsp.Range(start=h.position, end=h.position) for h in hints] == marked[rel].ranges, rel


@pytest.mark.asyncio
async def test_hints_are_off_by_default_and_switch_on_per_kind(
    plain_client: LanguageClient, tmp_path: Path
) -> None:
    marked = write_project(tmp_path, {"lait.config.yml": CONFIG, "workflows/main.yml": WORKFLOW})
    uri = open_doc(plain_client, tmp_path / "workflows" / "main.yml")
    text = marked["workflows/main.yml"].text
    assert await hints_of(plain_client, uri, text) == []
    plain_client.workspace_did_change_configuration(
        lsp.DidChangeConfigurationParams(settings={"lait": {"inlayHints": {"forEachItem": True}}})
    )
    hints = await hints_of(plain_client, uri, text)
    assert [h.label for h in hints] == ["item: integer", "item: string"]
    assert REFRESHES[id(plain_client)]  # the client was asked to ask again
    assert all(h.kind == lsp.InlayHintKind.Type for h in hints)
