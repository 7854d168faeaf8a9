"""Completion through a real LSP client: cursor markers (``‸``) in the text give the position."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types as lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.lsp.conftest import SERVER, module_client, open_doc

CURSOR = "‸"

# One server per client kind for the whole module (every test works on files of its own tmp_path).
pytestmark = pytest.mark.asyncio(loop_scope="module")
client = module_client()


CONFIG = """\
models:
  fast:
    - provider: {base_url: "http://localhost:1234/v1"}
      model_id: small-model
  smart:
    - provider: {base_url: "http://localhost:1234/v1"}
      model_id: big-model
mcp_servers:
  fs: {command: fs-server}
  git: {url: "http://127.0.0.1:9/mcp"}
tools:
  grep: {command: [grep, "{{ input.pattern }}"], description: Search files}
agents:
  reviewer: agents/reviewer.md
skills:
  release: skills/release
workflows:
  nightly: flows/nightly.yml
"""


def marked(text: str) -> tuple[str, lsp.Position]:
    """``text`` without its cursor marker, and the marker's LSP position (UTF-16 columns)."""
    offset = text.index(CURSOR)
    clean = text.replace(CURSOR, "", 1)
    before = clean[:offset]
    line = before.count("\n")
    column = before[before.rfind("\n") + 1 :]
    return clean, lsp.Position(line=line, character=len(column.encode("utf-16-le")) // 2)


def _offset(text: str, pos: lsp.Position) -> int:
    lines = text.split("\n")
    start = sum(len(x) + 1 for x in lines[: pos.line])
    units = 0
    for i, ch in enumerate(lines[pos.line]):
        if units >= pos.character:
            return start + i
        units += 2 if ord(ch) > 0xFFFF else 1
    return start + len(lines[pos.line])


def apply(text: str, item: lsp.CompletionItem) -> str:
    """The text after accepting ``item`` (its textEdit, positions in UTF-16 units)."""
    edit = item.text_edit
    assert isinstance(edit, lsp.TextEdit)
    start, end = _offset(text, edit.range.start), _offset(text, edit.range.end)
    return text[:start] + edit.new_text + text[end:]


def project(tmp_path: Path) -> Path:
    (tmp_path / "lait.config.yml").write_text(CONFIG)
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "reviewer.md").write_text("---\nname: reviewer\n---\nReview {{ input }}\n")
    (tmp_path / "agents" / "writer.md").write_text("---\nname: writer\n---\nWrite.\n")
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "nightly.yml").write_text("steps:\n  - jq: .\n")
    (tmp_path / "flows" / "child.yml").write_text("steps:\n  - jq: .\n")
    return tmp_path


async def completions(
    client: LanguageClient, path: Path, text: str, trigger: str | None = None
) -> tuple[str, list[lsp.CompletionItem]]:
    clean, pos = marked(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(clean)
    uri = open_doc(client, path, clean)
    context = (
        lsp.CompletionContext(
            trigger_kind=lsp.CompletionTriggerKind.TriggerCharacter, trigger_character=trigger
        )
        if trigger
        else lsp.CompletionContext(trigger_kind=lsp.CompletionTriggerKind.Invoked)
    )
    result = await client.text_document_completion_async(
        lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos, context=context)
    )
    if result is None:
        return clean, []
    items = result.items if isinstance(result, lsp.CompletionList) else result
    return clean, list(items)


def labels(items: list[lsp.CompletionItem]) -> list[str]:
    return [i.label for i in items]


def by_label(items: list[lsp.CompletionItem], label: str) -> lsp.CompletionItem:
    found = [i for i in items if i.label == label]
    assert found, f"{label!r} not in {labels(items)}"
    return found[0]


STEP_KINDS = [
    "prompt",
    "agent",
    "run",
    "decide",
    "workflow",
    "jq",
    "ask",
    "write",
    "group",
    "switch",
    "parallel",
    "for_each",
    "while",
    "until",
    "stop",
    "break",
]
COMMON_KEYS = ["id", "when", "input", "output", "retry", "timeout", "on_error"]


# --------------------------------------------------------------------------------------------
# Capabilities


async def test_trigger_characters_are_registered(snippet_client: LanguageClient) -> None:
    result: lsp.InitializeResult = snippet_client.initialize_result  # type: ignore[attr-defined]
    provider = result.capabilities.completion_provider
    assert provider is not None
    assert set(provider.trigger_characters or ()) == {":", " ", ".", "$", "{", "-", "[", ","}


# --------------------------------------------------------------------------------------------
# Keys


async def test_new_step_item_offers_kinds_then_common_keys(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - id: a\n    jq: .\n  - pro‸\n"
    clean, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == STEP_KINDS + COMMON_KEYS
    prompt = by_label(items, "prompt")
    assert prompt.kind == lsp.CompletionItemKind.Snippet
    assert prompt.documentation is not None and "Call the model" in str(prompt.documentation)
    assert apply(clean, prompt) == "steps:\n  - id: a\n    jq: .\n  - prompt: \n"
    for_each = by_label(items, "for_each")
    assert apply(clean, for_each).endswith("  - for_each: '.items'\n    steps:\n      - \n")
    assert for_each.insert_text_mode == lsp.InsertTextMode.AsIs


async def test_step_keys_for_its_kind_without_present_ones(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - ask: Proceed?\n    id: confirm\n    ‸\n"
    _clean, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == [
        "when",
        "input",
        "output",
        "retry",
        "timeout",
        "on_error",
        "choices",
        "default",
        "multiline",
    ]
    multiline = by_label(items, "multiline")
    assert multiline.kind == lsp.CompletionItemKind.Property
    assert isinstance(multiline.documentation, lsp.MarkupContent)
    assert "Read until EOF" in multiline.documentation.value
    assert multiline.detail == "boolean"


async def test_half_typed_key_is_replaced(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - prompt: hi\n    reas‸\n"
    clean, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert "prompt" not in labels(items)
    item = by_label(items, "reasoning_effort")
    # without snippet support the choice becomes its first option
    assert apply(clean, item) == "steps:\n  - prompt: hi\n    reasoning_effort: none\n"
    assert item.insert_text_format == lsp.InsertTextFormat.PlainText


async def test_top_level_keys_of_each_file_kind(client: LanguageClient, tmp_path: Path) -> None:
    root = project(tmp_path)
    _c, items = await completions(client, root / "flow.yml", "name: x\n‸\nsteps:\n  - jq: .\n")
    assert labels(items) == [
        "version",
        "description",
        "inputs",
        "input_schema",
        "output",
        "timeout",
        "default",
        "models",
        "schemas",
        "agents",
    ]
    _c, items = await completions(client, root / "lait.config.yml", CONFIG + "‸")
    assert labels(items) == [
        "base_url",
        "api_key",
        "api_key_cmd",
        "default",
        "prompts",
        "tool_policy",
        "jev",
        "confine",
        "approvals",
        "serve",
        "lint",
    ]
    _c, items = await completions(
        client, root / "flow.yml", "default:\n  model: fast\n  re‸\nsteps:\n  - jq: .\n"
    )
    assert "retry" in labels(items) and "model" not in labels(items) and "system" in labels(items)


async def test_nested_block_keys(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - prompt: hi\n    retry:\n      max_attempts: 3\n      ‸\n"
    _c, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == ["delay_seconds", "backoff"]
    text = CONFIG.replace("  fs: {command: fs-server}", "  fs:\n    command: fs-server\n    ‸")
    _c, items = await completions(client, tmp_path / "lait.config.yml", text)
    assert labels(items) == [
        "args",
        "env",
        "env_inherit",
        "cwd",
        "url",
        "headers",
        "allowed_tools",
        "allow_elicitation",
        "oauth",
    ]
    text = CONFIG.replace("  fs: {command: fs-server}", "  fs:\n    url: https://x/mcp\n    oauth:\n      ‸")
    _c, items = await completions(client, tmp_path / "lait.config.yml", text)
    assert labels(items) == ["client_id", "client_secret_env", "scopes", "client_metadata_url"]


# --------------------------------------------------------------------------------------------
# Values


async def test_enum_and_boolean_values(client: LanguageClient, tmp_path: Path) -> None:
    root = project(tmp_path)
    clean, items = await completions(
        client, root / "flow.yml", "steps:\n  - prompt: hi\n    reasoning_effort:‸\n"
    )
    assert labels(items) == ["none", "minimal", "low", "medium", "high", "xhigh"]
    assert apply(clean, by_label(items, "high")).endswith("reasoning_effort: high\n")
    _c, items = await completions(
        client, root / "flow.yml", "steps:\n  - decide:\n      urgent:\n        type: ‸\n"
    )
    assert labels(items) == ["noul", "choice", "score"]
    _c, items = await completions(client, root / "flow.yml", "steps:\n  - ask: ok?\n    multiline: t‸\n")
    assert labels(items) == ["true", "false"]
    text = CONFIG.replace("      model_id: small-model", "      model_id: small-model\n      api: ‸")
    _c, items = await completions(client, root / "lait.config.yml", text)
    assert labels(items) == ["chat_completions", "responses"]


async def test_ask_default_offers_the_choices(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - ask: Ship it?\n    choices: [yes, no, later]\n    default: ‸\n"
    _c, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == ["yes", "no", "later"]


# --------------------------------------------------------------------------------------------
# Names


async def test_mcp_names_while_the_flow_list_is_unclosed(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - prompt: hi\n    mcp: [fs, ‸\n"
    clean, items = await completions(client, project(tmp_path) / "flow.yml", text, trigger=" ")
    assert labels(items) == ["git"]
    assert apply(clean, items[0]) == "steps:\n  - prompt: hi\n    mcp: [fs, git\n"
    assert items[0].detail == "MCP server (lait.config.yml)"


async def test_capability_names_by_list(client: LanguageClient, tmp_path: Path) -> None:
    root = project(tmp_path)
    _c, items = await completions(client, root / "flow.yml", "steps:\n  - prompt: hi\n    tools: [‸]\n")
    assert labels(items) == ["grep"]
    _c, items = await completions(
        client, root / "flow.yml", "steps:\n  - prompt: hi\n    subagents:\n      - ‸\n"
    )
    assert labels(items) == ["reviewer"]
    _c, items = await completions(client, root / "flow.yml", "default:\n  skills: [‸]\nsteps:\n  - jq: .\n")
    assert labels(items) == ["release"]
    clean, items = await completions(client, root / "flow.yml", "steps:\n  - prompt: hi\n    mcp: ‸\n")
    assert labels(items) == ["fs", "git"]
    assert apply(clean, items[1]) == "steps:\n  - prompt: hi\n    mcp: [git]\n"


async def test_model_aliases_workflow_first(client: LanguageClient, tmp_path: Path) -> None:
    text = (
        "models:\n  local:\n    - provider: {base_url: 'http://x'}\n      model_id: tiny\n"
        "steps:\n  - prompt: hi\n    model: ‸\n"
    )
    _c, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == ["local", "fast", "smart", "embedded"]
    assert items[0].detail == "model alias (this workflow)"
    assert isinstance(items[1].documentation, lsp.MarkupContent)
    assert "small-model" in items[1].documentation.value


async def test_schema_names(client: LanguageClient, tmp_path: Path) -> None:
    text = (
        "schemas:\n  answer: {type: object}\n  verdict: {type: string}\n"
        "steps:\n  - prompt: hi\n    output_schema: ‸\n"
    )
    _c, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == ["answer", "verdict"]


async def test_agent_references(client: LanguageClient, tmp_path: Path) -> None:
    text = "agents:\n  helper:\n    system: You help.\nsteps:\n  - agent: ‸\n"
    _c, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == ["helper", "reviewer", "agents/reviewer.md", "agents/writer.md"]
    assert by_label(items, "agents/writer.md").kind == lsp.CompletionItemKind.File
    clean, items = await completions(client, tmp_path / "flow.yml", "steps:\n  - agent: agents/w‸\n")
    item = by_label(items, "agents/writer.md")
    assert apply(clean, item) == "steps:\n  - agent: agents/writer.md\n"


async def test_workflow_references(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - workflow: ‸\n"
    _c, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == ["nightly", "flows/child.yml", "flows/nightly.yml"]


async def test_config_names_from_the_config_being_edited(client: LanguageClient, tmp_path: Path) -> None:
    text = "default:\n  mcp: [‸]\nmcp_servers:\n  local: {command: x}\n  remote: {url: 'http://r'}\n"
    _c, items = await completions(client, tmp_path / "lait.config.yml", text)
    assert labels(items) == ["local", "remote"]


# --------------------------------------------------------------------------------------------
# Templates


WORKFLOW = """\
inputs:
  topic: {type: string, description: What to write about}
  depth: integer
steps:
  - id: fetch
    run: [curl, example.org]
  - group:
      - id: inner
        jq: .
  - id: current
    prompt: "{{ steps.‸ }}"
  - id: later
    jq: .
"""


async def test_template_step_ids_run_before_this_step(client: LanguageClient, tmp_path: Path) -> None:
    _c, items = await completions(client, project(tmp_path) / "flow.yml", WORKFLOW, trigger=".")
    assert labels(items) == ["fetch", "inner"]
    assert items[0].kind == lsp.CompletionItemKind.Reference


async def test_template_partial_id_is_replaced(client: LanguageClient, tmp_path: Path) -> None:
    text = WORKFLOW.replace("{{ steps.‸ }}", "{{ steps.fe‸ }}")
    clean, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == ["fetch", "inner"]
    assert '"{{ steps.fetch }}"' in apply(clean, by_label(items, "fetch"))


async def test_template_roots_helpers_and_inputs(client: LanguageClient, tmp_path: Path) -> None:
    root = project(tmp_path)
    text = WORKFLOW.replace("{{ steps.‸ }}", "{{ ‸ }}")
    _c, items = await completions(client, root / "flow.yml", text, trigger="{")
    assert labels(items) == ["input", "inputs", "steps", "json", "text", "#if", "#unless", "#each", "#with"]
    text = WORKFLOW.replace("{{ steps.‸ }}", "{{ json inputs.‸ }}")
    _c, items = await completions(client, root / "flow.yml", text)
    assert labels(items) == ["topic", "depth"]
    assert isinstance(items[0].documentation, lsp.MarkupContent)
    assert "What to write about" in items[0].documentation.value


async def test_template_in_a_block_scalar_with_each(client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - prompt: |\n      {{#each input.items}}\n        - {{ ‸\n      {{/each}}\n"
    _c, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == [
        "input",
        "this",
        "@index",
        "@key",
        "json",
        "text",
        "#if",
        "#unless",
        "#each",
        "#with",
    ]
    text = "steps:\n  - prompt: |\n      {{#each input.items}}{{ this }}{{/e‸\n"
    clean, items = await completions(client, tmp_path / "flow.yml", text)
    assert labels(items) == ["/each"]
    assert apply(clean, items[0]).endswith("{{ this }}{{/each\n")
    text = "steps:\n  - prompt: |\n      {{#if input}}{{#each input.items}}{{ this }}{{/each}}{{/‸\n"
    _c, items = await completions(client, tmp_path / "flow.yml", text)
    assert labels(items) == ["/if"]


async def test_loop_variables_only_inside_loop_bodies(client: LanguageClient, tmp_path: Path) -> None:
    root = project(tmp_path)
    for_each = "steps:\n  - for_each: .items\n    steps:\n      - prompt: '{{ loop.‸ }}'\n"
    _c, items = await completions(client, root / "flow.yml", for_each)
    assert labels(items) == ["index", "item"]
    until = "steps:\n  - until: .done\n    max_iterations: 3\n    steps:\n      - prompt: '{{ loop.‸ }}'\n"
    _c, items = await completions(client, root / "flow.yml", until)
    assert labels(items) == ["index"]
    outside = "steps:\n  - prompt: '{{ lo‸ }}'\n"
    _c, items = await completions(client, root / "flow.yml", outside)
    assert "loop" not in labels(items)
    own = "steps:\n  - for_each: '$lo‸'\n    steps:\n      - jq: .\n"
    _c, items = await completions(client, root / "flow.yml", own)
    assert labels(items) == []


async def test_run_arguments_are_templates(client: LanguageClient, tmp_path: Path) -> None:
    text = "inputs:\n  url: string\nsteps:\n  - run: [curl, '{{ inputs.‸' \n"
    _c, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == ["url"]


# --------------------------------------------------------------------------------------------
# jq


async def test_jq_variables(client: LanguageClient, tmp_path: Path) -> None:
    root = project(tmp_path)
    text = WORKFLOW.replace('prompt: "{{ steps.‸ }}"', "jq: '$‸'")
    _c, items = await completions(client, root / "flow.yml", text, trigger="$")
    assert labels(items) == ["$inputs", "$steps"]
    text = WORKFLOW.replace('prompt: "{{ steps.‸ }}"', "when: '$steps.‸'\n    jq: .")
    clean, items = await completions(client, root / "flow.yml", text, trigger=".")
    assert labels(items) == ["fetch", "inner"]
    assert "when: '$steps.inner'" in apply(clean, by_label(items, "inner"))
    text = WORKFLOW.replace('prompt: "{{ steps.‸ }}"', "jq: '$inputs.to‸'")
    _c, items = await completions(client, root / "flow.yml", text)
    assert labels(items) == ["topic", "depth"]


async def test_jq_top_level_output_sees_every_step(client: LanguageClient, tmp_path: Path) -> None:
    text = WORKFLOW.replace("{{ steps.‸ }}", "hi") + "output: '$steps.‸'\n"
    _c, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == ["fetch", "inner", "current", "later"]


async def test_jq_loop_and_hyphenated_ids(client: LanguageClient, tmp_path: Path) -> None:
    text = (
        "steps:\n  - id: get-list\n    jq: '[1, 2]'\n  - for_each: .\n    steps:\n"
        "      - when: '$‸'\n        jq: .\n"
    )
    _c, items = await completions(client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == ["$steps", "$loop"]
    clean, items = await completions(client, tmp_path / "flow.yml", text.replace("'$‸'", "'$steps.‸'"))
    assert labels(items) == ["get-list"]
    assert "when: '$steps[\"get-list\"]'" in apply(clean, items[0])


# --------------------------------------------------------------------------------------------
# Broken YAML, UTF-16, agent files, other files


async def test_broken_yaml_while_typing(client: LanguageClient, tmp_path: Path) -> None:
    root = project(tmp_path)
    # an unclosed quote on the line being typed, and a key without its colon below
    text = 'steps:\n  - id: fetch\n    run: [curl]\n  - prompt: "{{ steps.‸\n    modl\n'
    _c, items = await completions(client, root / "flow.yml", text)
    assert labels(items) == ["fetch"]
    text = "steps:\n  - prompt: hi\n    mo‸\n  - jq: .\n    bad: [\n"
    _c, items = await completions(client, root / "flow.yml", text)
    assert "model" in labels(items) and "prompt" not in labels(items)


async def test_utf16_columns_before_the_cursor(client: LanguageClient, tmp_path: Path) -> None:
    text = 'steps:\n  - id: fetch\n    jq: .\n  - prompt: "😀 日本語 {{ steps.fe‸ }}"\n'
    clean, items = await completions(client, project(tmp_path) / "flow.yml", text)
    item = by_label(items, "fetch")
    assert isinstance(item.text_edit, lsp.TextEdit)
    # 😀 is two UTF-16 units: the edit starts after "  - prompt: \"😀 日本語 {{ steps."
    assert (
        item.text_edit.range.start.character
        == len('  - prompt: "😀 日本語 {{ steps.'.encode("utf-16-le")) // 2
    )
    assert apply(clean, item).endswith('"😀 日本語 {{ steps.fetch }}"\n')
    text = "steps:\n  - prompt: 😀\n    mcp: [fs, ‸]  # 日本\n"
    clean, items = await completions(client, tmp_path / "flow.yml", text)
    assert labels(items) == ["git"]


async def test_agent_file_frontmatter_and_body(client: LanguageClient, tmp_path: Path) -> None:
    root = project(tmp_path)
    agent = root / "agents" / "helper.md"
    _c, items = await completions(client, agent, "---\nname: helper\nmo‸\n---\nYou help.\n")
    assert "model" in labels(items) and "name" not in labels(items) and "system" not in labels(items)
    _c, items = await completions(client, agent, "---\nname: helper\nmcp: [‸]\n---\nYou help.\n")
    assert labels(items) == ["fs", "git"]
    _c, items = await completions(client, agent, "---\nmodel: ‸\n---\nYou help.\n")
    assert labels(items) == ["fast", "smart", "embedded"]
    clean, items = await completions(client, agent, "---\nname: helper\n---\nSummarise {{ in‸ }}\n")
    assert labels(items) == ["input", "json", "text", "#if", "#unless", "#each", "#with"]
    assert apply(clean, by_label(items, "input")).endswith("Summarise {{ input }}\n")
    _c, items = await completions(client, agent, "---\nname: helper\n---\nPlain text ‸\n")
    assert items == []


async def test_other_files_get_nothing(client: LanguageClient, tmp_path: Path) -> None:
    _c, items = await completions(client, tmp_path / "docker-compose.yml", "services:\n  web:\n    ‸\n")
    assert items == []


async def test_comments_and_typed_indentation_get_nothing(client: LanguageClient, tmp_path: Path) -> None:
    root = project(tmp_path)
    _c, items = await completions(client, root / "flow.yml", "steps:\n  - prompt: hi  # mo‸\n")
    assert items == []
    _c, items = await completions(client, root / "flow.yml", "steps:\n  - prompt: hi\n    ‸\n", trigger=" ")
    assert items == []


# --------------------------------------------------------------------------------------------
# A client with snippet support


@pytest_lsp.fixture(  # type: ignore[untyped-decorator]
    scope="module",
    config=ClientServerConfig(
        server_command=SERVER, server_env={"XDG_CONFIG_HOME": "/nonexistent-lait-test"}
    ),
)
async def snippet_client(lsp_client: LanguageClient) -> AsyncIterator[LanguageClient]:
    capabilities = lsp.ClientCapabilities(
        text_document=lsp.TextDocumentClientCapabilities(
            completion=lsp.CompletionClientCapabilities(
                completion_item=lsp.ClientCompletionItemOptions(
                    snippet_support=True,
                    documentation_format=[lsp.MarkupKind.Markdown, lsp.MarkupKind.PlainText],
                )
            )
        )
    )
    lsp_client.initialize_result = await lsp_client.initialize_session(  # type: ignore[attr-defined]
        lsp.InitializeParams(capabilities=capabilities, initialization_options={"debounce": 0})
    )
    yield lsp_client
    await lsp_client.shutdown_session()


async def test_snippets_for_step_kinds(snippet_client: LanguageClient, tmp_path: Path) -> None:
    text = "steps:\n  - id: a\n    jq: .\n  ‸\n"
    _c, items = await completions(snippet_client, project(tmp_path) / "flow.yml", text)
    assert labels(items) == STEP_KINDS + COMMON_KEYS
    for_each = by_label(items, "for_each")
    assert for_each.insert_text_format == lsp.InsertTextFormat.Snippet
    assert isinstance(for_each.text_edit, lsp.TextEdit)
    assert for_each.text_edit.new_text == "- for_each: '${1:.items}'\n    steps:\n      - ${2}"
    assert by_label(items, "run").text_edit.new_text == "- run: [${1:program}]"  # type: ignore[union-attr]
    effort = await completions(snippet_client, tmp_path / "flow.yml", "steps:\n  - prompt: hi\n    reas‸\n")
    item = by_label(effort[1], "reasoning_effort")
    assert isinstance(item.text_edit, lsp.TextEdit)
    assert item.text_edit.new_text == "reasoning_effort: ${1|none,minimal,low,medium,high,xhigh|}"
