"""Semantic tokens for jq and templates through the real server: the delta-encoded data is decoded
back to text ranges (with the advertised legend) and compared with each fixture's expected tokens,
so a wrong UTF-16 column, a wrong line or a wrong length shows up as wrong text."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, open_doc

_LEGENDS: dict[int, lsp.SemanticTokensLegend] = {}


@pytest_lsp.fixture(
    config=ClientServerConfig(server_command=SERVER, server_env={"XDG_CONFIG_HOME": "/nonexistent-lait-test"})
)
async def client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    result = await lsp_client.initialize_session(
        lsp.InitializeParams(capabilities=lsp.ClientCapabilities(), initialization_options={"debounce": 0})
    )
    provider = result.capabilities.semantic_tokens_provider
    assert isinstance(provider, lsp.SemanticTokensOptions)
    assert provider.full == lsp.SemanticTokensFullDelta(delta=True)
    assert provider.range is True
    _LEGENDS[id(lsp_client)] = provider.legend
    yield lsp_client
    await lsp_client.shutdown_session()


WORKFLOW = """\
inputs:
  repo: string
steps:
  - id: fetch
    run: [gh, "{{ inputs.repo }}"]
  - id: check
    when: "$inputs.repo != \\"😀\\""
    prompt: |
      要約 😀: {{ inputs.repo }}
      {{#if steps.fetch}}ok{{/if}}
  - id: folded
    jq: >
      $steps.fetch
      | length
  - write: 'x-{{ steps.fetch }}-''q''.md'
  - jq: '{label: $steps.fetch, n: 1} | "v\\(.n)"'
"""

WORKFLOW_TOKENS = [
    ("{{", "macro"),
    ("inputs", "variable"),
    ("repo", "property"),
    ("}}", "macro"),
    ("$inputs", "variable"),
    ("repo", "property"),
    ("!=", "operator"),
    ('\\"😀\\"', "string"),
    ("{{", "macro"),
    ("inputs", "variable"),
    ("repo", "property"),
    ("}}", "macro"),
    ("{{", "macro"),
    ("#if", "keyword"),
    ("steps", "variable"),
    ("fetch", "property"),
    ("}}", "macro"),
    ("{{", "macro"),
    ("/if", "keyword"),
    ("}}", "macro"),
    ("$steps", "variable"),
    ("fetch", "property"),
    ("|", "operator"),
    ("length", "function"),
    ("{{", "macro"),
    ("steps", "variable"),
    ("fetch", "property"),
    ("}}", "macro"),
    ("label", "property"),
    ("$steps", "variable"),
    ("fetch", "property"),
    (",", "operator"),
    ("n", "property"),
    ("1", "number"),
    ("|", "operator"),
    ('"v', "string"),
    ("\\(", "operator"),
    ("n", "property"),
    (")", "operator"),
    ('"', "string"),
]

AGENT = """\
---
model: gpt-4o-mini
---
あなたは 🤖 {{ inputs.topic }} の専門家です。
{{!-- note
  more --}}
{{#each inputs.items as |item|}}- {{ json item }}{{/each}} \\{{ not a tag }}
"""

AGENT_TOKENS = [
    ("{{", "macro"),
    ("inputs", "variable"),
    ("topic", "property"),
    ("}}", "macro"),
    ("{{!-- note", "comment"),
    ("  more --}}", "comment"),
    ("{{", "macro"),
    ("#each", "keyword"),
    ("inputs", "variable"),
    ("items", "property"),
    ("as", "keyword"),
    ("item", "parameter"),
    ("}}", "macro"),
    ("{{", "macro"),
    ("json", "function"),
    ("item", "variable"),
    ("}}", "macro"),
    ("{{", "macro"),
    ("/each", "keyword"),
    ("}}", "macro"),
]


def legend_of(client: LanguageClient) -> lsp.SemanticTokensLegend:
    return _LEGENDS[id(client)]


def utf16_slice(line: str, start: int, length: int) -> str:
    units = line.encode("utf-16-le")
    return units[2 * start : 2 * (start + length)].decode("utf-16-le")


def decode(
    data: list[int], text: str, legend: lsp.SemanticTokensLegend
) -> list[tuple[str, str, tuple[str, ...], int]]:
    """(text, type, modifiers, line) of each token of LSP's relative encoding."""
    assert len(data) % 5 == 0
    lines = text.split("\n")
    out = []
    line = char = 0
    for i in range(0, len(data), 5):
        dl, dc, length, kind, mods = data[i : i + 5]
        line += dl
        char = dc if dl else char + dc
        names = tuple(m for bit, m in enumerate(legend.token_modifiers) if mods & (1 << bit))
        out.append((utf16_slice(lines[line], char, length), legend.token_types[kind], names, line))
    return out


async def full(client: LanguageClient, uri: str) -> lsp.SemanticTokens:
    result = await client.text_document_semantic_tokens_full_async(
        lsp.SemanticTokensParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert isinstance(result, lsp.SemanticTokens)
    return result


@pytest.mark.asyncio
async def test_legend_uses_standard_types(client: LanguageClient) -> None:
    legend = legend_of(client)
    standard = {t.value for t in lsp.SemanticTokenTypes}
    assert set(legend.token_types) <= standard
    assert set(legend.token_modifiers) <= {m.value for m in lsp.SemanticTokenModifiers}


@pytest.mark.asyncio
async def test_workflow_tokens_in_every_scalar_style(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "flow.yml"
    path.write_text(WORKFLOW, encoding="utf-8")
    uri = open_doc(client, path)
    result = await full(client, uri)
    got = decode(result.data, WORKFLOW, legend_of(client))
    assert [(t, k) for t, k, _m, _l in got] == WORKFLOW_TOKENS
    # the folded jq's '| length' is on the line after '$steps.fetch'
    lines = {t: ln for t, _k, _m, ln in got if t in ("$steps", "length")}
    assert WORKFLOW.split("\n")[lines["length"]].strip() == "| length"
    assert ("length", "function", ("defaultLibrary",)) in [(t, k, m) for t, k, m, _l in got]


@pytest.mark.asyncio
async def test_agent_body_tokens(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "agents" / "expert.md"
    path.parent.mkdir()
    path.write_text(AGENT, encoding="utf-8")
    uri = open_doc(client, path)
    result = await full(client, uri)
    got = decode(result.data, AGENT, legend_of(client))
    assert [(t, k) for t, k, _m, _l in got] == AGENT_TOKENS
    assert ("item", "parameter", ("declaration",)) in [(t, k, m) for t, k, m, _l in got]


@pytest.mark.asyncio
async def test_delta_after_an_edit(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "flow.yml"
    path.write_text(WORKFLOW, encoding="utf-8")
    uri = open_doc(client, path)
    first = await full(client, uri)
    assert first.result_id
    # replace 'length' by 'keys | add' on its line
    line = WORKFLOW.split("\n").index("      | length")
    client.text_document_did_change(
        lsp.DidChangeTextDocumentParams(
            text_document=lsp.VersionedTextDocumentIdentifier(uri=uri, version=2),
            content_changes=[
                lsp.TextDocumentContentChangePartial(
                    range=lsp.Range(
                        start=lsp.Position(line=line, character=8), end=lsp.Position(line=line, character=14)
                    ),
                    text="keys | add",
                )
            ],
        )
    )
    new_text = WORKFLOW.replace("      | length", "      | keys | add")
    answer = await client.text_document_semantic_tokens_full_delta_async(
        lsp.SemanticTokensDeltaParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), previous_result_id=first.result_id
        )
    )
    assert isinstance(answer, lsp.SemanticTokensDelta)
    assert answer.result_id and answer.result_id != first.result_id
    data = list(first.data)
    for edit in sorted(answer.edits, key=lambda e: e.start, reverse=True):
        data[edit.start : edit.start + edit.delete_count] = edit.data or []
    fresh = await full(client, uri)
    assert data == list(fresh.data)
    got = [(t, k) for t, k, _m, _l in decode(data, new_text, legend_of(client))]
    assert got[22:26] == [("|", "operator"), ("keys", "function"), ("|", "operator"), ("add", "function")]
    # an unknown previous result id gets full tokens
    again = await client.text_document_semantic_tokens_full_delta_async(
        lsp.SemanticTokensDeltaParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), previous_result_id="nope"
        )
    )
    assert isinstance(again, lsp.SemanticTokens) and list(again.data) == list(fresh.data)


@pytest.mark.asyncio
async def test_range_request(client: LanguageClient, tmp_path: Path) -> None:
    path = tmp_path / "flow.yml"
    path.write_text(WORKFLOW, encoding="utf-8")
    uri = open_doc(client, path)
    line = WORKFLOW.split("\n").index("      | length")
    result = await client.text_document_semantic_tokens_range_async(
        lsp.SemanticTokensRangeParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            range=lsp.Range(
                start=lsp.Position(line=line, character=0), end=lsp.Position(line=line, character=20)
            ),
        )
    )
    assert isinstance(result, lsp.SemanticTokens)
    # the first token's line is absolute
    got = decode(result.data, WORKFLOW, legend_of(client))
    assert [(t, k) for t, k, _m, _l in got] == [("|", "operator"), ("length", "function")]
