"""prepareRename and rename through the real server."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import open_doc
from tests.lsp.markers import apply_edits, marked, write_project


async def prepare(client: LanguageClient, uri: str, at: lsp.Position) -> lsp.PrepareRenameResult | None:
    return await client.text_document_prepare_rename_async(
        lsp.PrepareRenameParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=at)
    )


async def rename(
    client: LanguageClient, uri: str, at: lsp.Position, new_name: str
) -> dict[str, list[lsp.TextEdit]]:
    result = await client.text_document_rename_async(
        lsp.RenameParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=at, new_name=new_name)
    )
    assert result is not None and result.changes is not None
    return dict(result.changes)


async def test_prepare_rename_gives_the_exact_range_of_the_name(
    client: LanguageClient, tmp_path: Path
) -> None:
    m = marked('steps:\n  - id: fetch\n    run: [echo]\n  - prompt: "😀 {{ steps.«fe‸tch» }}"\n')
    uri = open_doc(client, tmp_path / "flow.yml", m.text)
    result = await prepare(client, uri, m.at)
    assert isinstance(result, lsp.PrepareRenamePlaceholder)
    assert result.range == m.ranges[0]
    assert result.placeholder == "fetch"


async def test_prepare_rename_refuses_keys_and_paths(client: LanguageClient, tmp_path: Path) -> None:
    m = marked("steps:\n  - id: fetch\n    ru‸n: [echo]\n  - agent: ./agents/x.md\n")
    uri = open_doc(client, tmp_path / "flow.yml", m.text)
    assert await prepare(client, uri, m.at) is None
    assert await prepare(client, uri, lsp.Position(line=3, character=16)) is None


async def test_rename_a_step_everywhere_in_the_file(client: LanguageClient, tmp_path: Path) -> None:
    m = marked(
        "steps:\n"
        "  - id: fetch\n"
        "    run: [echo]\n"
        "  - when: '$steps.fetch != null and $steps[\"fetch\"] != 1'\n"
        "    prompt: |\n"
        "      日本 {{ steps.fe‸tch }} 😀 {{ steps.fetch }} {{ steps.fetcher }}\n"
        "  - jq: '$steps.fetcher'\n"
    )
    uri = open_doc(client, tmp_path / "flow.yml", m.text)
    changes = await rename(client, uri, m.at, "load")
    assert list(changes) == [uri]
    assert apply_edits(m.text, changes[uri]) == m.text.replace("fetch", "load").replace("loader", "fetcher")
    assert len(changes[uri]) == 5


async def test_rename_an_mcp_server_across_config_agent_and_workflow(
    client: LanguageClient, tmp_path: Path
) -> None:
    files = write_project(
        tmp_path,
        {
            "lait.config.yml": "mcp_servers:\n  notes:\n    command: python3\n  notes2:\n    url: http://x\n"
            "default:\n  mcp: [notes, notes2]\n",
            "agents/helper.md": '---\ndescription: 日本語 😀\nmcp: [notes2, "no‸tes"]\n---\nYou help.\n',
            "flow.yml": "agents:\n  inline:\n    system: Hi\n    mcp: [notes]\n"
            "default:\n  mcp:\n    - 'notes'\nsteps:\n  - agent: inline\n  - prompt: hi\n    mcp: [notes]\n",
        },
    )
    uri = open_doc(client, tmp_path / "agents/helper.md", files["agents/helper.md"].text)
    changes = await rename(client, uri, files["agents/helper.md"].at, "memo")
    config, flow = tmp_path / "lait.config.yml", tmp_path / "flow.yml"
    assert set(changes) == {uri, config.as_uri(), flow.as_uri()}
    assert apply_edits(config.read_text(), changes[config.as_uri()]) == (
        "mcp_servers:\n  memo:\n    command: python3\n  notes2:\n    url: http://x\ndefault:\n  mcp: [memo, notes2]\n"
    )
    assert apply_edits(files["agents/helper.md"].text, changes[uri]) == (
        '---\ndescription: 日本語 😀\nmcp: [notes2, "memo"]\n---\nYou help.\n'
    )
    assert apply_edits(flow.read_text(), changes[flow.as_uri()]) == (
        "agents:\n  inline:\n    system: Hi\n    mcp: [memo]\n"
        "default:\n  mcp:\n    - 'memo'\nsteps:\n  - agent: inline\n  - prompt: hi\n    mcp: [memo]\n"
    )


async def test_rename_inputs_schemas_and_registry_agents(client: LanguageClient, tmp_path: Path) -> None:
    files = write_project(
        tmp_path,
        {
            "lait.config.yml": "agents:\n  rev‸iewer: agents/reviewer.md\n",
            "agents/reviewer.md": "---\ndescription: reviews\n---\nReview.\n",
            "agents/lead.md": "---\nsubagents: [reviewer]\n---\nLead.\n",
            "flow.yml": "inputs:\n  topic: string\nschemas:\n  out: {type: string}\n"
            "steps:\n  - agent: reviewer\n    input: '$inputs.topic'\n"
            "  - prompt: '{{ inputs.topic }}'\n    output_schema: out\n",
        },
    )
    config_uri = open_doc(client, tmp_path / "lait.config.yml", files["lait.config.yml"].text)
    changes = await rename(client, config_uri, files["lait.config.yml"].at, "critic")
    flow = tmp_path / "flow.yml"
    assert set(changes) == {config_uri, flow.as_uri(), (tmp_path / "agents/lead.md").as_uri()}
    assert (
        apply_edits(files["lait.config.yml"].text, changes[config_uri])
        == "agents:\n  critic: agents/reviewer.md\n"
    )
    flow_text = files["flow.yml"].text
    assert "  - agent: critic\n" in apply_edits(flow_text, changes[flow.as_uri()])

    flow_uri = open_doc(client, flow, flow_text)
    changes = await rename(client, flow_uri, lsp.Position(line=1, character=3), "subject")
    assert apply_edits(flow_text, changes[flow_uri]) == flow_text.replace("topic", "subject")
    changes = await rename(client, flow_uri, lsp.Position(line=8, character=20), "answer")
    assert apply_edits(flow_text, changes[flow_uri]) == flow_text.replace("out:", "answer:").replace(
        "schema: out", "schema: answer"
    )


@pytest.mark.parametrize(
    ("new_name", "reason"),
    [
        ("two words", "not a valid step name"),
        ("9lives", "not a valid step name"),
        ("other", "already defined"),
        ("my-step", "cannot follow '$steps.' in jq"),
    ],
)
async def test_rename_refuses_bad_names(
    client: LanguageClient, tmp_path: Path, new_name: str, reason: str
) -> None:
    m = marked("steps:\n  - id: fe‸tch\n    run: [echo]\n  - id: other\n    jq: '$steps.fetch'\n")
    uri = open_doc(client, tmp_path / "flow.yml", m.text)
    with pytest.raises(Exception, match=re.escape(reason)):
        await client.text_document_rename_async(
            lsp.RenameParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri), position=m.at, new_name=new_name
            )
        )


async def test_rename_refuses_names_yaml_would_not_read_as_strings(
    client: LanguageClient, tmp_path: Path
) -> None:
    files = write_project(tmp_path, {"lait.config.yml": "tools:\n  gr‸ep:\n    command: [grep]\n"})
    uri = open_doc(client, tmp_path / "lait.config.yml", files["lait.config.yml"].text)
    for bad in ("true", "12", "null"):
        with pytest.raises(Exception, match="would be read by YAML"):
            await client.text_document_rename_async(
                lsp.RenameParams(
                    text_document=lsp.TextDocumentIdentifier(uri=uri),
                    position=files["lait.config.yml"].at,
                    new_name=bad,
                )
            )
    changes = await rename(client, uri, files["lait.config.yml"].at, "search.v2")
    assert (
        apply_edits(files["lait.config.yml"].text, changes[uri])
        == "tools:\n  search.v2:\n    command: [grep]\n"
    )
