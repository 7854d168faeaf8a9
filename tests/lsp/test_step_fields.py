"""Completion and hover of the fields of step values and typed inputs (issue 25), through a real LSP
client: after ``{{ steps.classify.`` in a template and ``$steps.classify.`` in a jq string, the fields
the step's value has (its ``output_schema``, a ``schemas:`` name, its jq ``output:``, an inline
agent's schema, a ``jq:`` object), nested ones after a nested field, the declared fields of a typed
input; hover on a field shows that field, not the enclosing key's documentation."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pytest_lsp import LanguageClient

from tests.lsp.conftest import module_client, open_doc
from tests.lsp.test_completion import marked

pytestmark = pytest.mark.asyncio(loop_scope="module")
client = module_client()

WORKFLOW = """\
inputs:
  issue:
    type: object
    properties:
      title: {type: string, description: The issue's title}
      labels: {type: array, items: {type: string}}
    required: [title]
schemas:
  classification:
    type: object
    properties:
      kind: {type: string, enum: [bug, feature, question], description: What the issue is}
      summary: {type: string}
      owner:
        type: object
        properties:
          team: {type: string}
          email: {type: string}
    required: [kind, summary]
agents:
  critic:
    system: You review.
    output_schema: {type: object, properties: {verdict: {type: string}, problems: {type: array}}}
steps:
  - id: classify
    prompt: "Classify {{ inputs.issue.title }}"
    output_schema: classification
  - id: review
    agent: critic
  - id: shaped
    jq: '{n: ($steps.classify.summary | length), first: $inputs.issue.title}'
  - id: reply
    prompt: "Reply"
    output: '{reply: ., kind: $steps.classify.kind, team: $steps.classify.owner.team}'
  - SLOT
"""


CLASSIFY = {
    "kind": '"bug" | "feature" | "question"',
    "summary": "string",
    "owner": "{team?, email?} (optional)",
}


def workflow_with(slot: str) -> str:
    return WORKFLOW.replace("SLOT", slot)


async def labels_at(client: LanguageClient, path: Path, text: str) -> dict[str, str | None]:
    clean, pos = marked(text)
    uri = open_doc(client, path, clean)
    result = await client.text_document_completion_async(
        lsp.CompletionParams(text_document=lsp.TextDocumentIdentifier(uri=uri), position=pos)
    )
    items = result.items if isinstance(result, lsp.CompletionList) else result or []
    return {i.label: i.detail for i in items}


@pytest.mark.parametrize(
    ("slot", "expected"),
    [
        # a template, a schemas: name
        ('prompt: "Use {{ steps.classify.‸ }}"', CLASSIFY),
        # jq, the same step
        ("jq: '$steps.classify.‸'", CLASSIFY),
        # nested fields
        ("jq: '$steps.classify.owner.‸'", {"team": "string (optional)", "email": "string (optional)"}),
        (
            'prompt: "{{ steps.classify.owner.t‸ }}"',
            {"team": "string (optional)", "email": "string (optional)"},
        ),
        # an inline agent's output_schema
        ("jq: '$steps.review.‸'", {"verdict": "string (optional)", "problems": "any[] (optional)"}),
        # a jq step's object
        ("jq: '$steps.shaped.‸'", {"n": "number", "first": "string"}),
        # a jq `output:` over a prompt's text
        (
            'prompt: "{{ steps.reply.‸ }}"',
            {"reply": "string", "kind": '"bug" | "feature" | "question"', "team": "string"},
        ),
        # a typed input, in jq and in a template
        ("when: '$inputs.issue.‸'\n    jq: .", {"title": "string", "labels": "string[] (optional)"}),
        ('prompt: "{{ inputs.issue.‸ }}"', {"title": "string", "labels": "string[] (optional)"}),
    ],
)
async def test_fields_of_a_known_value(
    client: LanguageClient, tmp_path: Path, slot: str, expected: dict[str, str]
) -> None:
    assert await labels_at(client, tmp_path / "wf.yml", workflow_with(slot)) == expected


async def test_no_fields_where_nothing_is_known_or_the_step_is_not_visible(
    client: LanguageClient, tmp_path: Path
) -> None:
    text = workflow_with("jq: '$steps.later.‸'\n  - id: later\n    jq: '{x: 1}'")
    assert await labels_at(client, tmp_path / "a.yml", text) == {}  # runs after: not a value yet
    plain = workflow_with("run: [echo]\n    id: echo\n  - jq: '$steps.echo.‸'")
    assert await labels_at(client, tmp_path / "b.yml", plain) == {}  # a string has no fields


async def test_hover_on_a_field_shows_the_field(client: LanguageClient, tmp_path: Path) -> None:
    clean = workflow_with("jq: '$steps.classify.kind'")
    uri = open_doc(client, tmp_path / "h.yml", clean)
    lines = clean.splitlines()

    async def hover(line: int, word: str) -> str:
        character = lines[line].index(word) + 1
        result = await client.text_document_hover_async(
            lsp.HoverParams(
                text_document=lsp.TextDocumentIdentifier(uri=uri),
                position=lsp.Position(line=line, character=character),
            )
        )
        assert result is not None and isinstance(result.contents, lsp.MarkupContent)
        return result.contents.value

    last = len(lines) - 1
    kind = await hover(last, "kind")
    assert kind.startswith("**field** `kind`")
    assert 'Field `kind` of step `classify`\'s value: `"bug" | "feature" | "question"`.' in kind
    assert "What the issue is" in kind and "Always present." in kind
    assert "jq" not in kind.split("\n")[0]  # not the `jq:` key's documentation
    reply = lines.index(
        "    output: '{reply: ., kind: $steps.classify.kind, team: $steps.classify.owner.team}'"
    )
    team = await hover(reply, "team: $")  # the key of the object literal is no field reference
    assert not team.startswith("**field**")
    nested = await hover(reply, "team}")
    assert "Field `team` of step `classify`'s value (in `owner`): `string`." in nested
    assert "Optional: may be missing." in nested
    title = await hover(lines.index('    prompt: "Classify {{ inputs.issue.title }}"'), "title")
    assert "Field `title` of input `issue`'s value: `string`." in title and "The issue's title" in title


async def test_fields_in_a_test_file_s_jq_assertions(client: LanguageClient, tmp_path: Path) -> None:
    """A test file's ``jq`` assertion checks the workflow's result; nested in a ``step_output``, that
    step's value: ``.`` completes their fields."""
    (tmp_path / "wf.yml").write_text(workflow_with("jq: '.'"), encoding="utf-8")
    head = "workflow: wf.yml\nreplay: tape\nassert:\n"
    result = await labels_at(client, tmp_path / "a.test.yml", head + "  - type: jq\n    expr: '.‸'\n")
    assert result == {}  # the last step (`jq: '.'`) passes on what it got: not known
    (tmp_path / "wf.yml").write_text(WORKFLOW.replace("  - SLOT\n", ""), encoding="utf-8")
    final = await labels_at(client, tmp_path / "b.test.yml", head + "  - type: jq\n    expr: '.ki‸'\n")
    assert final == {"reply": "string", "kind": '"bug" | "feature" | "question"', "team": "string"}
    nested = (
        head
        + "  - type: step_output\n    id: classify\n    assert:\n      - type: jq\n        expr: '.owner.‸'\n"
    )
    assert await labels_at(client, tmp_path / "c.test.yml", nested) == {
        "team": "string (optional)",
        "email": "string (optional)",
    }


AGENT_FILE = """\
---
description: Triage an issue.
output_schema:
  type: object
  properties:
    severity: {type: string, enum: [low, high]}
    area: {type: string}
  required: [severity]
---
You triage.
"""

CHILD = """\
inputs:
  text: string
steps:
  - id: sum
    prompt: "Summarise {{ inputs.text }}"
output: '{summary: ., words: (. | length)}'
"""

CALLER = """\
steps:
  - id: triaged
    agent: agents/triage.md
  - id: named
    agent: triager
  - id: filed
    prompt: "File it"
    output_schema: {file: schemas/filed.json}
  - id: child
    workflow: child.yml
    with: '{text: "x"}'
  - id: registered
    workflow: summarise
    with: '{text: "x"}'
  - id: loop
    workflow: caller.yml
  - SLOT
"""


def project(tmp_path: Path) -> Path:
    """A project whose workflow names an agent file (by path and by config name), a schema file and
    a child workflow (by path and by ``workflows:`` name)."""
    (tmp_path / "lait.config.yml").write_text(
        "agents:\n  triager: agents/triage.md\nworkflows:\n  summarise: child.yml\n", encoding="utf-8"
    )
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "triage.md").write_text(AGENT_FILE, encoding="utf-8")
    (tmp_path / "schemas").mkdir()
    (tmp_path / "schemas" / "filed.json").write_text(
        '{"type": "object", "properties": {"ticket": {"type": "integer"}}, "required": ["ticket"]}',
        encoding="utf-8",
    )
    (tmp_path / "child.yml").write_text(CHILD, encoding="utf-8")
    return tmp_path / "caller.yml"


TRIAGE = {"severity": '"low" | "high"', "area": "string (optional)"}
SUMMARY = {"summary": "string", "words": "number"}


@pytest.mark.parametrize(
    ("slot", "expected"),
    [
        ("jq: '$steps.triaged.‸'", TRIAGE),  # an agent file's own output_schema, by path
        ('prompt: "{{ steps.named.‸ }}"', TRIAGE),  # ... and by its lait.config.yml agents: name
        ("jq: '$steps.filed.‸'", {"ticket": "integer"}),  # a {file: ...} schema
        ("jq: '$steps.child.‸'", SUMMARY),  # a child workflow's result, by path
        ('prompt: "{{ steps.registered.‸ }}"', SUMMARY),  # ... and by its workflows: name
        ("jq: '$steps.loop.‸'", {}),  # a workflow calling itself: not followed, nothing known
    ],
)
async def test_fields_from_the_files_a_step_names(
    client: LanguageClient, tmp_path: Path, slot: str, expected: dict[str, str]
) -> None:
    caller = project(tmp_path)
    assert await labels_at(client, caller, CALLER.replace("SLOT", slot)) == expected


async def test_hover_and_hint_from_a_child_workflow(client: LanguageClient, tmp_path: Path) -> None:
    caller = project(tmp_path)
    clean = CALLER.replace("SLOT", "jq: '$steps.child.words'")
    uri = open_doc(client, caller, clean)
    lines = clean.splitlines()
    line = len(lines) - 1
    result = await client.text_document_hover_async(
        lsp.HoverParams(
            text_document=lsp.TextDocumentIdentifier(uri=uri),
            position=lsp.Position(line=line, character=lines[line].index("words") + 1),
        )
    )
    assert result is not None and isinstance(result.contents, lsp.MarkupContent)
    assert "Field `words` of step `child`'s value: `number`." in result.contents.value
    from lait_core.language.inlay_hints import inlay_hints
    from lait_core.lint.discovery import FileKind

    hints = inlay_hints(FileKind.WORKFLOW, clean, str(caller), config=None, enabled=["outputType"])
    labels = {h.position.line: h.label for h in hints}
    assert "severity" in labels[lines.index("  - id: triaged")]
    assert "summary" in labels[lines.index("  - id: child")]
    assert lines.index("  - id: loop") not in labels  # itself: not followed
