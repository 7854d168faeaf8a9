"""Go to definition and find references through the real server."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import module_client, open_doc
from tests.lsp.markers import marked, write_project

# One server for the whole module (every test works on files of its own tmp_path); the async tests
# run in the module's event loop.
client = module_client()


def _pos(line: int, character: int) -> lsp.Position:
    return lsp.Position(line=line, character=character)


async def definition(client: LanguageClient, uri: str, at: lsp.Position) -> list[lsp.Location]:
    result = await client.text_document_definition_async(
        lsp.DefinitionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=at)
    )
    if result is None:
        return []
    assert isinstance(result, list)
    return [loc for loc in result if isinstance(loc, lsp.Location)]


async def references(
    client: LanguageClient, uri: str, at: lsp.Position, *, declaration: bool = True
) -> list[tuple[str, lsp.Range]]:
    result = await client.text_document_references_async(
        lsp.ReferenceParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=at,
            context=lsp.ReferenceContext(include_declaration=declaration),
        )
    )
    return sorted(
        ((loc.uri, loc.range) for loc in result or []),
        key=lambda t: (t[0], t[1].start.line, t[1].start.character),
    )


def test_marked_counts_utf16_units() -> None:
    m = marked("a: 😀«x‸y»\n日本«z»")
    assert m.text == "a: 😀xy\n日本z"
    assert m.cursor == _pos(0, 6)
    assert m.ranges == [
        lsp.Range(start=_pos(0, 5), end=_pos(0, 7)),
        lsp.Range(start=_pos(1, 2), end=_pos(1, 3)),
    ]


@pytest.mark.asyncio(loop_scope="module")
async def test_step_id_definition_from_a_block_scalar_template(
    client: LanguageClient, tmp_path: Path
) -> None:
    m = marked(
        "steps:\n  - id: «fetch»\n    run: [echo, hi]\n  - prompt: |\n      Summarize {{ steps.fe‸tch }} please\n"
    )
    uri = open_doc(client, tmp_path / "flow.yml", m.text)
    locations = await definition(client, uri, m.at)
    assert [(loc.uri, loc.range) for loc in locations] == [(uri, m.ranges[0])]


@pytest.mark.asyncio(loop_scope="module")
async def test_step_references_in_jq_and_templates(client: LanguageClient, tmp_path: Path) -> None:
    m = marked(
        "steps:\n"
        "  - id: «fetch»\n"
        "    run: [echo]\n"
        "  - id: other\n"
        "    when: '$steps.«fetch» != null'\n"
        "    jq: '$steps[\"«fetch»\"] | $steps.«fe‸tch» | $steps.other'\n"
        '  - prompt: "{{ steps.«fetch» }} and {{ steps.«fetch» }}, not {{ steps.fetcher }}"\n'
    )
    uri = open_doc(client, tmp_path / "flow.yml", m.text)
    assert await references(client, uri, m.at) == [(uri, r) for r in m.ranges]
    assert await references(client, uri, m.at, declaration=False) == [(uri, r) for r in m.ranges[1:]]
    # from the definition as well
    assert await references(client, uri, m.ranges[0].start) == [(uri, r) for r in m.ranges]


@pytest.mark.asyncio(loop_scope="module")
async def test_positions_are_utf16_after_emoji_and_japanese(client: LanguageClient, tmp_path: Path) -> None:
    m = marked(
        "inputs:\n"
        "  «topic»: string\n"
        "steps:\n"
        '  - prompt: "😀日本語 {{ inputs.«to‸pic» }} 🎉🎉 {{ inputs.«topic» }}"\n'
        "    output: '{t: $inputs.«topic», e: \"😀\"}'\n"
    )
    uri = open_doc(client, tmp_path / "flow.yml", m.text)
    locations = await definition(client, uri, m.at)
    assert [loc.range for loc in locations] == [m.ranges[0]]
    assert await references(client, uri, m.at) == [(uri, r) for r in m.ranges]
    # the second occurrence sits after two emoji (two UTF-16 units each)
    second = m.ranges[2]
    assert second.start.character == len('  - prompt: "😀日本語 {{ inputs.topic }} 🎉🎉 {{ inputs.') + 3


@pytest.mark.asyncio(loop_scope="module")
async def test_mcp_server_across_config_agent_and_workflow(client: LanguageClient, tmp_path: Path) -> None:
    files = write_project(
        tmp_path,
        {
            "lait.config.yml": "mcp_servers:\n  «notes»:\n    command: python3\n  other:\n    url: http://x\n"
            "default:\n  mcp: [«notes», other]\n",
            "agents/helper.md": "---\ndescription: helps\nmcp: [other, «no‸tes»]\n---\nYou help.\n",
            "flows/flow.yml": "steps:\n  - prompt: hi\n    mcp:\n      - «notes»\n  - agent: helper\n",
        },
    )
    agent = tmp_path / "agents/helper.md"
    uri = open_doc(client, agent, files["agents/helper.md"].text)
    config_uri = (tmp_path / "lait.config.yml").as_uri()
    flow_uri = (tmp_path / "flows/flow.yml").as_uri()
    locations = await definition(client, uri, files["agents/helper.md"].at)
    assert [(loc.uri, loc.range) for loc in locations] == [(config_uri, files["lait.config.yml"].ranges[0])]
    expected = sorted(
        [(config_uri, r) for r in files["lait.config.yml"].ranges]
        + [(uri, r) for r in files["agents/helper.md"].ranges]
        + [(flow_uri, r) for r in files["flows/flow.yml"].ranges],
        key=lambda t: (t[0], t[1].start.line, t[1].start.character),
    )
    assert await references(client, uri, files["agents/helper.md"].at) == expected
    without = await references(client, uri, files["agents/helper.md"].at, declaration=False)
    assert (config_uri, files["lait.config.yml"].ranges[0]) not in without
    assert len(without) == len(expected) - 1


@pytest.mark.asyncio(loop_scope="module")
async def test_registered_agent_name_and_path(client: LanguageClient, tmp_path: Path) -> None:
    files = write_project(
        tmp_path,
        {
            "lait.config.yml": "agents:\n  «reviewer»: agents/revi‸ewer.md\n",
            "agents/reviewer.md": "---\ndescription: reviews\n---\nReview.\n",
            "agents/lead.md": "---\nsubagents: [«reviewer»]\n---\nLead.\n",
            "flow.yml": "steps:\n  - agent: «reviewer»\n  - agent: ./agents/le‸ad.md\n",
        },
    )
    config = tmp_path / "lait.config.yml"
    config_uri = open_doc(client, config, files["lait.config.yml"].text)
    # the registry value opens the file
    locations = await definition(client, config_uri, files["lait.config.yml"].at)
    assert [(loc.uri, loc.range.start) for loc in locations] == [
        ((tmp_path / "agents/reviewer.md").as_uri(), _pos(0, 0))
    ]
    # the name: references from the workflow and the other agent
    refs = await references(client, config_uri, files["lait.config.yml"].ranges[0].start)
    assert refs == sorted(
        [
            (config_uri, files["lait.config.yml"].ranges[0]),
            ((tmp_path / "agents/lead.md").as_uri(), files["agents/lead.md"].ranges[0]),
            ((tmp_path / "flow.yml").as_uri(), files["flow.yml"].ranges[0]),
        ],
        key=lambda t: (t[0], t[1].start.line),
    )
    flow_uri = open_doc(client, tmp_path / "flow.yml", files["flow.yml"].text)
    locations = await definition(client, flow_uri, files["flow.yml"].ranges[0].end)
    assert [(loc.uri, loc.range) for loc in locations] == [(config_uri, files["lait.config.yml"].ranges[0])]
    locations = await definition(client, flow_uri, files["flow.yml"].at)
    assert [loc.uri for loc in locations] == [(tmp_path / "agents/lead.md").as_uri()]


@pytest.mark.asyncio(loop_scope="module")
async def test_model_alias_workflow_first_then_config(client: LanguageClient, tmp_path: Path) -> None:
    files = write_project(
        tmp_path,
        {
            "lait.config.yml": "models:\n  «local»:\n    - provider: {base_url: 'http://a/v1'}\n      model_id: a\n"
            "default:\n  model: «local»\n",
            "agents/a.md": "---\nmodel: lo‸cal\n---\nHi.\n",
            "flow.yml": "models:\n  «local»:\n    - provider: {base_url: 'http://b/v1'}\n      model_id: b\n"
            "steps:\n  - prompt: hi\n    model: «lo‸cal»\n",
        },
    )
    flow_uri = open_doc(client, tmp_path / "flow.yml", files["flow.yml"].text)
    locations = await definition(client, flow_uri, files["flow.yml"].at)
    assert [(loc.uri, loc.range) for loc in locations] == [(flow_uri, files["flow.yml"].ranges[0])]
    assert await references(client, flow_uri, files["flow.yml"].at) == [
        (flow_uri, r) for r in files["flow.yml"].ranges
    ]
    agent_uri = open_doc(client, tmp_path / "agents/a.md", files["agents/a.md"].text)
    locations = await definition(client, agent_uri, files["agents/a.md"].at)
    config_uri = (tmp_path / "lait.config.yml").as_uri()
    assert [(loc.uri, loc.range) for loc in locations] == [(config_uri, files["lait.config.yml"].ranges[0])]
    refs = await references(client, agent_uri, files["agents/a.md"].at)
    # the workflow's own alias is another symbol
    assert {uri for uri, _r in refs} == {config_uri, agent_uri}
    assert len(refs) == 3


@pytest.mark.asyncio(loop_scope="module")
async def test_schemas_inline_agents_workflows_tools_skills(client: LanguageClient, tmp_path: Path) -> None:
    files = write_project(
        tmp_path,
        {
            "lait.config.yml": "workflows:\n  «child»: ch‸ild.yml\ntools:\n  «grep»:\n    command: [grep]\n"
            "skills:\n  «notes»: skills/notes\n",
            "child.yml": "steps:\n  - jq: .\n",
            "skills/notes/SKILL.md": "---\ndescription: take notes\n---\nBody\n",
            "flow.yml": "schemas:\n  «verdict»: {type: string}\nagents:\n  «writer»:\n    system: Write.\n"
            "    tools: [«grep»]\n    skills: [«notes»]\n"
            "steps:\n  - prompt: hi\n    output_schema: «verdict»\n  - agent: «writer»\n"
            "  - workflow: «child»\n",
        },
    )
    flow = files["flow.yml"]
    flow_uri = open_doc(client, tmp_path / "flow.yml", flow.text)
    config_uri = (tmp_path / "lait.config.yml").as_uri()
    config = files["lait.config.yml"]

    async def target(line: int, character: int) -> list[tuple[str, lsp.Range]]:
        return [(loc.uri, loc.range) for loc in await definition(client, flow_uri, _pos(line, character))]

    # ranges in flow.yml, in order: verdict, writer, grep, notes, verdict ref, writer ref, child ref
    verdict, writer, grep, notes, verdict_ref, writer_ref, child_ref = flow.ranges
    assert await target(verdict_ref.start.line, verdict_ref.start.character + 2) == [(flow_uri, verdict)]
    assert await target(writer_ref.end.line, writer_ref.end.character) == [(flow_uri, writer)]
    assert await target(child_ref.start.line, child_ref.start.character) == [(config_uri, config.ranges[0])]
    assert await target(grep.start.line, grep.start.character + 1) == [(config_uri, config.ranges[1])]
    assert await target(notes.start.line, notes.start.character + 1) == [(config_uri, config.ranges[2])]
    # the config's workflow path opens the child workflow
    config_uri = open_doc(client, tmp_path / "lait.config.yml", config.text)
    locations = await definition(client, config_uri, config.at)
    assert [loc.uri for loc in locations] == [(tmp_path / "child.yml").as_uri()]
    refs = await references(client, config_uri, config.ranges[0].start, declaration=False)
    assert refs == [(flow_uri, child_ref)]


@pytest.mark.asyncio(loop_scope="module")
async def test_nothing_for_other_files_broken_yaml_and_closed_documents(
    client: LanguageClient, tmp_path: Path
) -> None:
    other = marked("services:\n  web:\n    image: ng‸inx\n")
    other_uri = open_doc(client, tmp_path / "docker-compose.yml", other.text)
    assert await definition(client, other_uri, other.at) == []
    broken = marked("steps:\n  - id: fetch\n    prompt: [unclosed\n  - prompt: '{{ steps.fe‸tch }}'\n")
    broken_uri = open_doc(client, tmp_path / "flow.yml", broken.text)
    assert await definition(client, broken_uri, broken.at) == []
    assert await references(client, broken_uri, broken.at) == []
    closed_uri = (tmp_path / "missing.yml").as_uri()
    assert await definition(client, closed_uri, _pos(0, 0)) == []
    assert await references(client, closed_uri, _pos(3, 99)) == []
    # a position past the end of the file; a position on a key that names nothing
    ok = marked("steps:\n  - id: «fetch»\n    j‸q: '$steps.fetch'\n")
    ok_uri = open_doc(client, tmp_path / "ok.yml", ok.text)
    assert await definition(client, ok_uri, _pos(40, 0)) == []
    assert await definition(client, ok_uri, ok.at) == []
    assert [loc.range for loc in await definition(client, ok_uri, _pos(2, 17))] == ok.ranges
