"""Test and eval files in the editor (issue 14 item 2): completion, hover, go to definition and
diagnostics through a real LSP client, with cursor markers (``‸``) and range markers (``«»``)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import diagnostics_for, open_doc
from tests.lsp.markers import marked
from tests.lsp.test_completion import apply, by_label, labels
from tests.lsp.test_completion import marked as completion_marked
from tests.lsp.test_navigation import definition

CONFIG = """\
models:
  main:
    - provider: {base_url: "http://127.0.0.1:9/v1"}
      model_id: m
mcp_servers:
  peer: {command: peer-server}
tools:
  «shout»:
    command: [echo, "{{ text }}"]
    description: Shout it
    parameters:
      type: object
      properties: {text: {type: string}}
"""

WORKFLOW = """\
inputs:
  «tone»: {type: string, description: How it sounds}
  length: integer
steps:
  - id: «draft»
    prompt: Draft it
    tools: [shout]
    mcp: [peer]
  - group:
      - id: polish
        prompt: 'Polish {{ steps.draft }}'
"""


def project(tmp_path: Path) -> tuple[Path, lsp.Range, lsp.Range]:
    """The project; the ranges of the config's ``shout`` and of the workflow's ``draft``."""
    config, workflow = marked(CONFIG), marked(WORKFLOW)
    (tmp_path / "lait.config.yml").write_text(config.text)
    (tmp_path / "wf.yml").write_text(workflow.text)
    (tmp_path / "tape").mkdir()
    return tmp_path, config.ranges[0], workflow.ranges[1]


TONE = lsp.Range(start=lsp.Position(line=1, character=2), end=lsp.Position(line=1, character=6))


async def complete(client: LanguageClient, path: Path, text: str) -> tuple[str, list[lsp.CompletionItem]]:
    clean, pos = completion_marked(text)
    path.write_text(clean)
    uri = open_doc(client, path, clean)
    result = await client.text_document_completion_async(
        lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos)
    )
    items = result.items if isinstance(result, lsp.CompletionList) else list(result or [])
    client.text_document_did_close(lsp.DidCloseTextDocumentParams(lsp.TextDocumentIdentifier(uri=uri)))
    return clean, items


HEAD = "workflow: wf.yml\nreplay: tape\n"


async def test_completion_in_test_and_eval_files(client: LanguageClient, tmp_path: Path) -> None:
    root, _tool, _step = project(tmp_path)
    test = root / "smoke.test.yml"
    # top-level keys not written yet
    _, items = await complete(client, test, HEAD + "‸")
    assert labels(items) == ["input", "inputs", "assert"]
    # assertion types as the value of `type:`
    _, items = await complete(client, test, HEAD + "assert:\n  - type: ‸\n")
    assert labels(items)[:7] == [
        "equals",
        "contains",
        "jq",
        "llm_judge",
        "tool_called",
        "usage",
        "step_output",
    ]
    assert "the output contains `value`" in str(by_label(items, "contains").documentation)
    # a whole new assertion with its required fields (no llm_judge in a test file)
    clean, items = await complete(client, test, HEAD + "assert:\n  - ‸\n")
    assert "llm_judge" not in labels(items)
    assert apply(clean, by_label(items, "step_output")) == (
        HEAD + "assert:\n  - type: step_output\n    id: \n    assert:\n      - \n"
    )
    # the fields of the assertion's type
    _, items = await complete(client, test, HEAD + "assert:\n  - type: tool_called\n    name: x\n    ‸\n")
    assert labels(items) == ["min", "max", "args_jq"]
    # step ids of the target workflow (a nested one last)
    _, items = await complete(client, test, HEAD + "assert:\n  - type: step_output\n    id: ‸\n")
    assert labels(items) == ["draft", "polish"]
    assert "top-level steps only" in str(by_label(items, "polish").documentation)
    # qualified tool names the target can call
    clean, items = await complete(client, test, HEAD + "assert:\n  - type: tool_called\n    name: ‸\n")
    assert labels(items) == ["tool__shout", "peer__"]
    assert apply(clean, by_label(items, "tool__shout")).endswith("    name: tool__shout\n")
    # the target workflow's declared inputs
    _, items = await complete(client, test, HEAD + "inputs:\n  tone: calm\n  ‸\n")
    assert labels(items) == ["length"]
    # workflow files next to the test file (not the test file itself, not the config)
    _, items = await complete(client, test, "workflow: ‸\n")
    assert labels(items) == ["wf.yml"]
    # eval files: target keys, case keys, model aliases
    ev = root / "cases.eval.yml"
    _, items = await complete(client, ev, "target:\n  ‸\ncases: []\n")
    assert labels(items) == ["workflow", "inputs", "model", "prompt"]
    _, items = await complete(client, ev, "target: {workflow: wf.yml}\ncases:\n  - input: x\n    ‸\n")
    assert labels(items) == ["assert"]
    _, items = await complete(client, ev, "target:\n  model: ‸\n  prompt: hi\ncases: []\n")
    assert labels(items)[0] == "main"
    _, items = await complete(
        client, ev, "target: {workflow: wf.yml}\ncases:\n  - input: x\n    assert:\n      - ‸\n"
    )
    assert "llm_judge" in labels(items)


def all_cursors(text: str) -> tuple[str, list[lsp.Position]]:
    """The text without its ``‸`` markers and their positions (ASCII text: columns are UTF-16 units)."""
    out = []
    while "‸" in text:
        at = text.index("‸")
        line = text.count("\n", 0, at)
        out.append(lsp.Position(line=line, character=at - (text.rfind("\n", 0, at) + 1)))
        text = text[:at] + text[at + 1 :]
    return text, out


async def hover(client: LanguageClient, uri: str, at: lsp.Position) -> str:
    result = await client.text_document_hover_async(
        lsp.HoverParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=at)
    )
    assert result is not None
    assert isinstance(result.contents, lsp.MarkupContent)
    return result.contents.value


async def test_hover_and_definition(client: LanguageClient, tmp_path: Path) -> None:
    root, tool_range, step_range = project(tmp_path)
    wf_uri = (root / "wf.yml").as_uri()
    config_uri = (root / "lait.config.yml").as_uri()
    text = (
        "workflow: w‸f.yml\n"
        "re‸play: tape\n"
        "inputs: {to‸ne: calm}\n"
        "assert:\n"
        "  - type: cont‸ains\n"
        "    value: hi\n"
        "  - type: step_output\n"
        "    id: dr‸aft\n"
        "    assert: [{type: equals, value: x}]\n"
        "  - type: tool_called\n"
        "    name: tool__sh‸out\n"
        "  - type: tool_called\n"
        "    name: pe‸er__add\n"
    )
    text, cursors = all_cursors(text)
    path = root / "smoke.test.yml"
    path.write_text(text)
    uri = open_doc(client, path, text)
    workflow_at, replay_at, input_at, type_at, step_at, tool_at, server_at = cursors

    assert "Cassette folder" in await hover(client, uri, replay_at)
    assert "the output contains `value`" in await hover(client, uri, type_at)
    step_hover = await hover(client, uri, step_at)
    assert "draft" in step_hover and "prompt" in step_hover
    assert "Shout it" in await hover(client, uri, tool_at)

    assert [(loc.uri, loc.range.start.line) for loc in await definition(client, uri, workflow_at)] == [
        (wf_uri, 0)
    ]
    assert [(loc.uri, loc.range) for loc in await definition(client, uri, step_at)] == [(wf_uri, step_range)]
    assert [(loc.uri, loc.range) for loc in await definition(client, uri, input_at)] == [(wf_uri, TONE)]
    assert "How it sounds" in await hover(client, uri, input_at)
    assert [(loc.uri, loc.range) for loc in await definition(client, uri, tool_at)] == [
        (config_uri, tool_range)
    ]
    server = await definition(client, uri, server_at)
    assert [(loc.uri, loc.range.start.line) for loc in server] == [(config_uri, 5)]

    # renaming the step from the test file edits the workflow (its id and its reference) and the test
    renamed = await client.text_document_rename_async(
        lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri), position=step_at, new_name="first"
        )
    )
    assert renamed is not None and renamed.changes is not None
    lines = {u: sorted(e.range.start.line for e in edits) for u, edits in renamed.changes.items()}
    assert lines == {wf_uri: [4, 10], uri: [7]}
    assert {e.new_text for edits in renamed.changes.values() for e in edits} == {"first"}
    # and from the workflow: its test files follow
    wf_doc = open_doc(client, root / "wf.yml")
    from_workflow = await client.text_document_rename_async(
        lsp.RenameParams(
            text_document=lsp.TextDocumentIdentifier(uri=wf_doc), position=step_range.start, new_name="first"
        )
    )
    assert from_workflow is not None and from_workflow.changes is not None
    assert {
        u: sorted(e.range.start.line for e in edits) for u, edits in from_workflow.changes.items()
    } == lines


async def test_diagnostics_carry_lait_codes(client: LanguageClient, tmp_path: Path) -> None:
    root, _tool, _step = project(tmp_path)
    text = HEAD + "assert:\n  - type: step_output\n    id: drafts\n    assert: [{type: contain, value: x}]\n"
    path = root / "smoke.test.yml"
    path.write_text(text)
    uri = open_doc(client, path, text)
    found = sorted((d.code, d.range.start.line, d.message) for d in await diagnostics_for(client, uri))
    assert found == [
        ("LAIT702", 5, "unknown assertion type 'contain' in 'assert[0].assert[0]'; did you mean 'contains'?"),
        ("LAIT704", 4, "the workflow has no step 'drafts'; did you mean 'draft'?"),
    ]
    # an ordinary YAML file next to it is not taken for a test file: no diagnostics at all
    other = root / "notes.yml"
    other.write_text("title: notes\nreplays: 3\n")
    other_uri = open_doc(client, other)
    assert await diagnostics_for(client, other_uri) == []
