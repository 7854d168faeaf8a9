"""Call hierarchy through the real server: which workflows call an agent file (by path and by
registered name), what a workflow calls; ranges from «» markers."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import open_doc
from tests.lsp.markers import marked, write_project

CONFIG = "agents:\n  reviewer: agents/reviewer.md\nworkflows:\n  child: workflows/child.yml\n"
MAIN = """\
steps:
  - {prompt: "😀", id: a}
  - agent: «reviewer»
  - agent: «../agents/reviewer.md»
  - workflow: «child»
  - workflow: «child.yml»
"""
OTHER = "steps:\n  - agent: «reviewer»\n"


async def prepared(client: LanguageClient, uri: str, position: lsp.Position) -> lsp.CallHierarchyItem:
    items = await client.text_document_prepare_call_hierarchy_async(
        lsp.CallHierarchyPrepareParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=position)
    )
    assert items is not None and len(items) == 1
    return items[0]


@pytest.mark.asyncio
async def test_incoming_and_outgoing_calls(client: LanguageClient, tmp_path: Path) -> None:
    files = write_project(
        tmp_path,
        {
            "lait.config.yml": CONFIG,
            "workflows/main.yml": MAIN,
            "workflows/other.yml": OTHER,
            "workflows/child.yml": "steps:\n  - jq: .\n",
            "agents/reviewer.md": "---\nmodel: m\n---\nYou review.\n",
        },
    )
    agent_uri = open_doc(client, tmp_path / "agents" / "reviewer.md")
    item = await prepared(client, agent_uri, lsp.Position(line=3, character=2))
    assert (item.name, item.uri) == ("reviewer", agent_uri)
    calls = await client.call_hierarchy_incoming_calls_async(lsp.CallHierarchyIncomingCallsParams(item=item))
    assert calls is not None
    got = {c.from_.uri: list(c.from_ranges) for c in calls}
    main_uri = (tmp_path / "workflows" / "main.yml").as_uri()
    other_uri = (tmp_path / "workflows" / "other.yml").as_uri()
    assert got == {
        main_uri: files["workflows/main.yml"].ranges[:2],
        other_uri: files["workflows/other.yml"].ranges,
    }

    # from a reference in a workflow: the item is the file it names; outgoing calls of the workflow
    m = marked(MAIN.replace("«", "").replace("»", "").replace("agent: reviewer", "agent: rev‸iewer"))
    main = open_doc(client, tmp_path / "workflows" / "main.yml", m.text)
    named = await prepared(client, main, m.at)
    assert named.uri == agent_uri
    own = await prepared(client, main, lsp.Position(line=0, character=0))
    assert own.uri == main
    out = await client.call_hierarchy_outgoing_calls_async(lsp.CallHierarchyOutgoingCallsParams(item=own))
    assert out is not None
    ranges = files["workflows/main.yml"].ranges
    child_uri = (tmp_path / "workflows" / "child.yml").as_uri()
    assert {c.to.uri: list(c.from_ranges) for c in out} == {agent_uri: ranges[:2], child_uri: ranges[2:]}
