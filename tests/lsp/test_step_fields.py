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
