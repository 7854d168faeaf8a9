"""Hover through the real server: key docs and what names resolve to."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from lait_core.documents import document_models as m
from tests.lsp.conftest import module_client, open_doc
from tests.lsp.markers import Marked, marked, write_project

# One server for the whole module (every test works on files of its own tmp_path).
pytestmark = pytest.mark.asyncio(loop_scope="module")
client = module_client()

CONFIG = (
    "models:\n"
    "  local:\n"
    "    - provider: {base_url: 'http://a:1234/v1'}\n"
    "      model_id: qwen-a\n"
    "    - provider: {base_url: 'http://backup/v1'}\n"
    "      model_id: qwen-backup\n"
    "mcp_servers:\n"
    "  notes:\n"
    "    command: python3\n"
    "    args: [servers/notes.py, --verbose]\n"
    "    allowed_tools: [add_note]\n"
    "  web:\n"
    "    url: 'https://mcp.example/mcp'\n"
    "    oauth: {client_id: lait-cli, scopes: [read]}\n"
    "tools:\n"
    "  grep:\n"
    "    description: Search files.\n"
    "    command: [grep, -rn, '{{ input.pattern }}']\n"
    "    parameters:\n"
    "      type: object\n"
    "      properties:\n"
    "        pattern: {type: string, description: A regular expression}\n"
    "      required: [pattern]\n"
    "agents:\n"
    "  reviewer: agents/reviewer.md\n"
    "skills:\n"
    "  notes-style: skills/notes-style\n"
)
REVIEWER = "---\ndescription: Reviews a change.\nmodel: local\ntools: [grep]\nmcp: [notes]\n---\nReview it.\n"
SKILL = "---\ndescription: How we write notes.\n---\nBe brief.\n"


async def hover(client: LanguageClient, uri: str, at: lsp.Position) -> lsp.Hover | None:
    return await client.text_document_hover_async(
        lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=at)
    )


def text_of(result: lsp.Hover | None) -> str:
    assert result is not None
    assert isinstance(result.contents, lsp.MarkupContent)
    assert result.contents.kind == lsp.MarkupKind.Markdown
    return result.contents.value


def project(tmp_path: Path, flow: str, extra: dict[str, str] | None = None) -> dict[str, Marked]:
    files = {
        "lait.config.yml": CONFIG,
        "agents/reviewer.md": REVIEWER,
        "skills/notes-style/SKILL.md": SKILL,
        "flow.yml": flow,
        **(extra or {}),
    }
    return write_project(tmp_path, files)


async def test_key_docs_come_from_the_models(client: LanguageClient, tmp_path: Path) -> None:
    m1 = marked("steps:\n  - id: a\n    prompt: hi\n    retry: {«max_a‸ttempts»: 2}\n")
    uri = open_doc(client, tmp_path / "flow.yml", m1.text)
    result = await hover(client, uri, m1.at)
    text = text_of(result)
    assert m.RetryDefinition.model_fields["max_attempts"].description in text
    assert "integer" in text and "required" in text
    assert result is not None and result.range == m1.ranges[0]

    m2 = marked("steps:\n  - for_‸each: '.items'\n    steps:\n      - jq: .\n")
    uri = open_doc(client, tmp_path / "loop.yml", m2.text)
    text = text_of(await hover(client, uri, m2.at))
    assert m.ForEachStep.model_fields["for_each"].description in text
    assert "Run `steps` for each element of an array." in text

    m3 = marked("steps:\n  - workflow: child.yml\n    wi‸th: '{a: 1}'\n")
    uri = open_doc(client, tmp_path / "with.yml", m3.text)
    assert "jq producing the child's `inputs:` object." in text_of(await hover(client, uri, m3.at))


async def test_config_and_agent_keys(client: LanguageClient, tmp_path: Path) -> None:
    files = write_project(
        tmp_path,
        {
            "lait.config.yml": "mcp_servers:\n  x:\n    url: 'http://x'\n    allow_elicita‸tion: true\n",
            "agents/a.md": "---\nsche‸ma_name: out\n---\nHi\n",
        },
    )
    cfg = files["lait.config.yml"]
    uri = open_doc(client, tmp_path / "lait.config.yml", cfg.text)
    text = text_of(await hover(client, uri, cfg.at))
    assert m.McpServerConfig.model_fields["allow_elicitation"].description in text
    assert "default `false`" in text
    agent = files["agents/a.md"]
    uri = open_doc(client, tmp_path / "agents/a.md", agent.text)
    assert m.AgentFrontmatter.model_fields["schema_name"].description in text_of(
        await hover(client, uri, agent.at)
    )


async def test_oauth_block_keys(client: LanguageClient, tmp_path: Path) -> None:
    files = write_project(
        tmp_path,
        {
            "lait.config.yml": "mcp_servers:\n  x:\n    url: 'http://x'\n    oauth:\n      client_secret_e‸nv: X\n"
        },
    )
    cfg = files["lait.config.yml"]
    uri = open_doc(client, tmp_path / "lait.config.yml", cfg.text)
    text = text_of(await hover(client, uri, cfg.at))
    assert m.McpOAuthConfig.model_fields["client_secret_env"].description in text


async def test_mcp_server_tool_and_skill_names(client: LanguageClient, tmp_path: Path) -> None:
    files = project(
        tmp_path,
        "steps:\n  - prompt: hi\n    mcp: [«no‸tes», web]\n    tools: [grep]\n    skills: [notes-style]\n",
    )
    flow = files["flow.yml"]
    uri = open_doc(client, tmp_path / "flow.yml", flow.text)
    result = await hover(client, uri, flow.at)
    text = text_of(result)
    assert "`python3 servers/notes.py --verbose`" in text
    assert "allowed tools: `add_note`" in text
    assert "lait.config.yml:8" in text
    assert result is not None and result.range == flow.ranges[0]

    web = text_of(await hover(client, uri, lsp.Position(line=2, character=19)))
    assert "`https://mcp.example/mcp`" in web and "allowed tools: all" in web
    assert "signs in with OAuth as the pre-registered client `lait-cli`, scopes `read`" in web

    grep = text_of(await hover(client, uri, lsp.Position(line=3, character=14)))
    assert "Search files." in grep
    assert "argv: `grep -rn '{{ input.pattern }}'`" in grep
    assert "- `pattern` (string, required): A regular expression" in grep

    skill = text_of(await hover(client, uri, lsp.Position(line=4, character=16)))
    assert "How we write notes." in skill and "SKILL.md" in skill


async def test_model_alias_workflow_first_then_config(client: LanguageClient, tmp_path: Path) -> None:
    files = project(
        tmp_path,
        "models:\n  local:\n    - provider: {base_url: 'http://wf/v1'}\n      model_id: wf-model\n"
        "steps:\n  - prompt: hi\n    model: lo‸cal\n  - prompt: hi\n    model: raw-model-id\n",
        {"agents/other.md": "---\nmodel: lo‸cal\n---\nHi\n"},
    )
    flow = files["flow.yml"]
    uri = open_doc(client, tmp_path / "flow.yml", flow.text)
    text = text_of(await hover(client, uri, flow.at))
    assert "`wf-model @ http://wf/v1` (primary)" in text
    assert "qwen-a" not in text
    raw = text_of(await hover(client, uri, lsp.Position(line=8, character=14)))
    assert "raw model id" in raw

    agent = files["agents/other.md"]
    agent_uri = open_doc(client, tmp_path / "agents/other.md", agent.text)
    text = text_of(await hover(client, agent_uri, agent.at))
    assert "`qwen-a @ http://a:1234/v1` (primary)" in text
    assert "`qwen-backup @ http://backup/v1` (fallback)" in text


async def test_agents_steps_inputs_and_schemas(client: LanguageClient, tmp_path: Path) -> None:
    files = project(
        tmp_path,
        "inputs:\n"
        "  topic: {type: string, minLength: 3}\n"
        "schemas:\n"
        "  verdict:\n    type: object\n    properties: {ok: {type: boolean}}\n    required: [ok]\n"
        "agents:\n"
        "  writer:\n    description: Writes drafts.\n    model: local\n    system: Write.\n"
        "steps:\n"
        "  - id: fetch\n    run: [echo]\n"
        "  - agent: reviewer\n"
        "  - agent: writer\n"
        "  - prompt: '😀 {{ steps.«fe‸tch» }} {{ inputs.topic }}'\n    output_schema: verdict\n",
    )
    flow = files["flow.yml"]
    uri = open_doc(client, tmp_path / "flow.yml", flow.text)
    step = await hover(client, uri, flow.at)
    text = text_of(step)
    assert "A `run` step." in text and "`flow.yml:14`" in text
    assert step is not None and step.range == flow.ranges[0]  # UTF-16 after the emoji

    reviewer = text_of(await hover(client, uri, lsp.Position(line=15, character=12)))
    assert "Reviews a change." in reviewer
    assert "- model: `local`" in reviewer and "- tools: `grep`" in reviewer and "- mcp: `notes`" in reviewer

    writer = text_of(await hover(client, uri, lsp.Position(line=16, character=12)))
    assert "Writes drafts." in writer and "`flow.yml:9`" in writer

    line = flow.text.splitlines()[17]
    topic = text_of(await hover(client, uri, lsp.Position(line=17, character=line.index("topic") + 1 + 1)))
    assert '"minLength": 3' in topic

    schema = text_of(await hover(client, uri, lsp.Position(line=18, character=22)))
    assert "Type `object`." in schema and "Required: `ok`." in schema


async def test_registry_path_values_show_the_file(client: LanguageClient, tmp_path: Path) -> None:
    files = project(tmp_path, "steps:\n  - jq: .\n")
    config = files["lait.config.yml"]
    uri = open_doc(client, tmp_path / "lait.config.yml", config.text)
    line = config.text.splitlines().index("  reviewer: agents/reviewer.md")
    text = text_of(await hover(client, uri, lsp.Position(line=line, character=16)))
    assert "agent file" in text and "Reviews a change." in text


async def test_hover_never_fails(client: LanguageClient, tmp_path: Path) -> None:
    broken = marked("steps:\n  - prompt: [oops\n    mo‸del: x\n")
    uri = open_doc(client, tmp_path / "flow.yml", broken.text)
    assert await hover(client, uri, broken.at) is None
    other = marked("services:\n  we‸b: {}\n")
    uri = open_doc(client, tmp_path / "compose.yml", other.text)
    assert await hover(client, uri, other.at) is None
    closed = (tmp_path / "nowhere.yml").as_uri()
    assert await hover(client, closed, lsp.Position(line=0, character=0)) is None
    half = marked("steps:\n  - prompt: hi\n    mcp: [‸\n")
    uri = open_doc(client, tmp_path / "half.yml", half.text)
    assert await hover(client, uri, half.at) is None


async def test_a_tool_policy_pattern_shows_what_it_decides(client: LanguageClient, tmp_path: Path) -> None:
    """The verdict and message of each known tool a pattern matches, from the decision function the
    tool loop uses (so the editor shows what the model would read); MCP tools from lait.lock."""
    from lait_core.engine.tools.tool_decision import decide
    from lait_core.engine.tools.tool_policy import Policy

    files = write_project(
        tmp_path,
        {
            "lait.config.yml": "tools:\n  rm: {command: [rm, '{{ input.p }}']}\n  ls: {command: [ls]}\n"
            "tool_policy:\n  deny: ['notes__del*', «'tool__r‸m'»]\n",
            "lait.lock": '{"version": 1, "servers": {"notes": {"command": ["n"], "tools": {"delete": {}, "read": {}}}}}',
        },
    )
    cfg = files["lait.config.yml"]
    uri = open_doc(client, tmp_path / "lait.config.yml", cfg.text)
    result = await hover(client, uri, cfg.at)
    text = text_of(result)
    expected = decide("tool__rm", Policy(deny=("notes__del*", "tool__rm"))).message
    assert f"- `tool__rm`: **deny** — {expected}" in text
    assert "tool__ls" not in text
    assert result is not None and result.range == cfg.ranges[0]

    files = write_project(
        tmp_path / "b",
        {
            "lait.config.yml": "tool_policy:\n  deny: ['notes__de‸l*']\n",
            "lait.lock": '{"version": 1, "servers": {"notes": {"command": ["n"], "tools": {"delete": {}, "read": {}}}}}',
        },
    )
    cfg = files["lait.config.yml"]
    uri = open_doc(client, tmp_path / "b" / "lait.config.yml", cfg.text)
    text = text_of(await hover(client, uri, cfg.at))
    assert "`notes__delete`: **deny**" in text and "notes__read" not in text
