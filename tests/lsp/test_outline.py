"""Document symbols and folding ranges through the real server."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import module_client, open_doc
from tests.lsp.markers import marked

# One server for the whole module (every test works on files of its own tmp_path).
pytestmark = pytest.mark.asyncio(loop_scope="module")
client = module_client()

WORKFLOW = """\
inputs:
  topic: string
schemas:
  out: {type: object}
steps:
  - id: «fetch»
    run: [echo, 😀]
  - group:
      - jq: .
      - id: «inner»
        prompt: hi
    on_error:
      - jq: '{error}'
  - switch:
      - when: '. == 1'
        steps:
          - jq: '1'
    else:
      - jq: '2'
  - parallel:
      left:
        - jq: .
      right:
        - jq: .
  - for_each: '.items'
    steps:
      - write: 'out-{{ loop.index }}.txt'
"""


async def symbols(client: LanguageClient, uri: str) -> list[lsp.DocumentSymbol]:
    result = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert result is not None
    return [s for s in result if isinstance(s, lsp.DocumentSymbol)]


def tree(items: list[lsp.DocumentSymbol] | None) -> list[object]:
    """(name, detail, children) nested, for compact assertions."""
    out: list[object] = []
    for s in items or []:
        out.append((s.name, s.detail, tree(s.children)) if s.children else (s.name, s.detail))
    return out


def contains(outer: lsp.Range, inner: lsp.Range) -> bool:
    def key(p: lsp.Position) -> tuple[int, int]:
        return (p.line, p.character)

    return key(outer.start) <= key(inner.start) and key(inner.end) <= key(outer.end)


async def test_workflow_outline_nests_steps(client: LanguageClient, tmp_path: Path) -> None:
    m = marked(WORKFLOW)
    uri = open_doc(client, tmp_path / "flow.yml", m.text)
    result = await symbols(client, uri)
    assert tree(result) == [
        ("inputs", None, [("topic", "string")]),
        ("schemas", None, [("out", "object")]),
        (
            "steps",
            "5 steps",
            [
                ("fetch", "run"),
                (
                    "step-2 (group)",
                    "group",
                    [("step-3 (jq)", "jq"), ("inner", "prompt"), ("on_error", None, [("step-5 (jq)", "jq")])],
                ),
                (
                    "step-6 (switch)",
                    "switch",
                    [("case 1", ". == 1", [("step-7 (jq)", "jq")]), ("else", None, [("step-8 (jq)", "jq")])],
                ),
                (
                    "step-9 (parallel)",
                    "parallel",
                    [
                        ("left", "branch", [("step-10 (jq)", "jq")]),
                        ("right", "branch", [("step-11 (jq)", "jq")]),
                    ],
                ),
                ("step-12 (for_each)", "for_each", [("step-13 (write)", "write")]),
            ],
        ),
    ]
    steps = result[2]
    assert steps.children is not None
    fetch, group = steps.children[0], steps.children[1]
    assert fetch.selection_range == m.ranges[0]
    assert fetch.kind == lsp.SymbolKind.Function
    # the step ends after its last value (UTF-16: the emoji counts two units)
    assert fetch.range.end == lsp.Position(line=6, character=len("    run: [echo, 😀]") + 1)
    assert group.children is not None and group.children[1].selection_range == m.ranges[1]

    def check(items: list[lsp.DocumentSymbol] | None) -> None:
        for s in items or []:
            assert contains(s.range, s.selection_range), s.name
            for child in s.children or []:
                assert contains(s.range, child.range), (s.name, child.name)
            check(s.children)

    check(result)


async def test_config_outline_lists_sections_and_entries(client: LanguageClient, tmp_path: Path) -> None:
    text = (
        "models:\n  local:\n    - provider: {base_url: 'http://x/v1'}\n      model_id: qwen\n"
        "mcp_servers:\n  notes:\n    command: python3\n  web:\n    url: 'http://w'\n"
        "agents:\n  reviewer: agents/reviewer.md\n"
        "default:\n  model: local\n"
        "base_url: 'http://x/v1'\n"
    )
    uri = open_doc(client, tmp_path / "lait.config.yml", text)
    assert tree(await symbols(client, uri)) == [
        ("models", None, [("local", "qwen")]),
        ("mcp_servers", None, [("notes", "python3"), ("web", "http://w")]),
        ("agents", None, [("reviewer", "agents/reviewer.md")]),
        ("default", None, [("model", "local")]),
        ("base_url", "http://x/v1"),
    ]


async def test_agent_outline_has_frontmatter_keys_and_the_body(
    client: LanguageClient, tmp_path: Path
) -> None:
    text = "---\ndescription: Reviews.\ntools: [grep]\n---\n\nYou are a reviewer.\nBe kind.\n"
    uri = open_doc(client, tmp_path / "agents" / "r.md", text)
    result = await symbols(client, uri)
    assert tree(result) == [
        ("description", "Reviews."),
        ("tools", None),
        ("system prompt", "You are a reviewer."),
    ]
    assert result[2].range == lsp.Range(
        start=lsp.Position(line=5, character=0), end=lsp.Position(line=6, character=8)
    )


async def test_folding_ranges(client: LanguageClient, tmp_path: Path) -> None:
    text = (
        "inputs:\n"  # 0
        "  topic: string\n"  # 1
        "steps:\n"  # 2
        "  - id: a\n"  # 3
        "    prompt: |\n"  # 4
        "      line one\n"  # 5
        "      line two\n"  # 6
        "\n"  # 7
        "  - jq: .\n"  # 8
        "    retry: {max_attempts: 2}\n"  # 9
    )
    uri = open_doc(client, tmp_path / "flow.yml", text)
    result = await client.text_document_folding_range_async(
        lsp.FoldingRangeParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert result is not None
    assert sorted((f.start_line, f.end_line) for f in result) == [(0, 1), (2, 9), (3, 6), (4, 6), (8, 9)]

    agent = "---\ndescription: d\noutput_schema:\n  type: object\n  required: [a]\n---\nBody\n"
    uri = open_doc(client, tmp_path / "agents" / "a.md", agent)
    result = await client.text_document_folding_range_async(
        lsp.FoldingRangeParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert result is not None
    assert sorted((f.start_line, f.end_line) for f in result) == [(0, 5), (2, 4)]


async def test_outline_and_folding_of_broken_files(client: LanguageClient, tmp_path: Path) -> None:
    uri = open_doc(client, tmp_path / "flow.yml", "steps:\n  - prompt: [unclosed\n    x: 1\n")
    assert await symbols(client, uri) == []
    folds = await client.text_document_folding_range_async(
        lsp.FoldingRangeParams(text_document=lsp.TextDocumentIdentifier(uri=uri))
    )
    assert not folds
    # a half-typed step still gives the steps it can
    uri = open_doc(client, tmp_path / "half.yml", "steps:\n  - id: a\n    jq: .\n  - \n")
    result = await symbols(client, uri)
    assert [s.name for s in result] == ["steps"]
    assert [c.name for c in result[0].children or []] == ["a"]
    closed = (tmp_path / "gone.yml").as_uri()
    none = await client.text_document_document_symbol_async(
        lsp.DocumentSymbolParams(text_document=lsp.TextDocumentIdentifier(uri=closed))
    )
    assert not none
