"""A workflow step's ``with:`` keys name the child workflow's ``inputs:``: definition from a key goes
to the input, references of the input include the key, renaming the input renames the key, and
completion at a key offers the child's inputs not given yet (required first)."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import open_doc
from tests.lsp.markers import apply_edits, marked, write_project

PARENT = """\
inputs:
  topic: string
steps:
  - workflow: child.yml
    with: '{«re‸po»: $inputs.topic, "«count»": 3}'
"""
CHILD = """\
inputs:
  «repo»: string
  «count»: integer
  level: {type: integer, default: 2, description: How deep 🌊}
  owner: {description: 日本語の説明}
steps:
  - prompt: "😀 {{ inputs.«repo» }} {{ inputs.count }}"
"""


@pytest.mark.asyncio
async def test_with_keys_link_to_the_child_inputs(client: LanguageClient, tmp_path: Path) -> None:
    files = write_project(
        tmp_path, {"lait.config.yml": "", "workflows/main.yml": PARENT, "workflows/child.yml": CHILD}
    )
    parent = marked(PARENT)
    uri = open_doc(client, tmp_path / "workflows" / "main.yml")
    child_uri = (tmp_path / "workflows" / "child.yml").as_uri()
    doc = lsp.TextDocumentIdentifier(uri=uri)
    found = await client.text_document_definition_async(
        lsp.DefinitionParams(text_document=doc, position=parent.at)
    )
    assert isinstance(found, list) and [(d.uri, d.range) for d in found] == [
        (child_uri, files["workflows/child.yml"].ranges[0])
    ]
    count_key = parent.ranges[1].start
    found = await client.text_document_definition_async(
        lsp.DefinitionParams(text_document=doc, position=count_key)
    )
    assert isinstance(found, list) and [d.range for d in found] == [files["workflows/child.yml"].ranges[1]]

    edit = await client.text_document_rename_async(
        lsp.RenameParams(text_document=doc, position=parent.at, new_name="repository")
    )
    assert edit is not None and edit.changes is not None
    new_parent = apply_edits(parent.text, edit.changes[uri])
    assert "'{repository: $inputs.topic" in new_parent
    new_child = apply_edits(files["workflows/child.yml"].text, edit.changes[child_uri])
    assert "  repository: string" in new_child and "{{ inputs.repository }}" in new_child

    # completion of the child's inputs in a one-line object and in a block scalar (UTF-16 positions)
    for source, expected in (
        (
            "steps:\n  - workflow: child.yml\n    with: '{\"😀\": 1, count: 1, ‸}'\n",
            ["repo", "owner", "level"],
        ),
        (
            "steps:\n  - workflow: ./child.yml\n    with: |\n      {\n        repo: 1,\n        ‸\n      }\n",
            ["count", "owner", "level"],
        ),
    ):
        m = marked(source)
        other = tmp_path / "workflows" / "other.yml"
        other.write_text(m.text, encoding="utf-8")
        items = await complete(client, open_doc(client, other), m.at)
        assert [i.label for i in items] == expected
        assert all(i.text_edit is not None and i.text_edit.range.start == m.at for i in items)
        level = items[-1]
        assert level.detail == "optional input · integer · = 2"
        assert (
            isinstance(level.documentation, lsp.MarkupContent) and "How deep 🌊" in level.documentation.value
        )
        client.text_document_did_close(
            lsp.DidCloseTextDocumentParams(text_document=lsp.TextDocumentIdentifier(uri=other.as_uri()))
        )


async def complete(client: LanguageClient, uri: str, at: lsp.Position) -> list[lsp.CompletionItem]:
    found = await client.text_document_completion_async(
        lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=at)
    )
    items = found.items if isinstance(found, lsp.CompletionList) else found or []
    return sorted(items, key=lambda i: i.sort_text or i.label)


@pytest.mark.asyncio
async def test_with_keys_of_a_child_called_by_its_registered_name(
    client: LanguageClient, tmp_path: Path
) -> None:
    files = write_project(
        tmp_path,
        {"lait.config.yml": "workflows:\n  kid: workflows/child.yml\n", "workflows/child.yml": CHILD},
    )
    parent = marked("steps:\n  - workflow: kid\n    with: '{co‸unt: 1}'\n")
    path = tmp_path / "workflows" / "main.yml"
    path.write_text(parent.text, encoding="utf-8")
    uri = open_doc(client, path)
    found = await client.text_document_definition_async(
        lsp.DefinitionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=parent.at)
    )
    child_uri = (tmp_path / "workflows" / "child.yml").as_uri()
    assert isinstance(found, list) and [(d.uri, d.range) for d in found] == [
        (child_uri, files["workflows/child.yml"].ranges[1])
    ]
    # completion by registered name: the key being typed is replaced, keys given are left out
    m = marked("steps:\n  - workflow: kid\n    with: '{re‸p, owner: 1}'\n")
    other = tmp_path / "workflows" / "other.yml"
    other.write_text(m.text, encoding="utf-8")
    items = await complete(client, open_doc(client, other), m.at)
    assert [(i.label, i.detail) for i in items] == [
        ("repo", "required input · string"),
        ("count", "required input · integer"),
        ("level", "optional input · integer · = 2"),
    ]
    edit = items[0].text_edit
    assert isinstance(edit, lsp.TextEdit) and edit.new_text == "repo: "  # no ':' follows yet
    assert (edit.range.start.character, edit.range.end.character) == (12, 15)
