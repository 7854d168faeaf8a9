"""A workflow step's ``with:`` keys name the child workflow's ``inputs:``: definition from a key goes
to the input, references of the input include the key, and renaming the input renames the key."""

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
