"""The cursor context: path, role, word, template and jq cursors, on whole and half-typed YAML."""

from __future__ import annotations

import pytest

from lait_core.language.context import (
    CursorContext,
    Role,
    analyze,
    field_language,
    scan,
    step_prefixes,
    tree_locate,
)
from lait_core.lint.discovery import FileKind
from lait_core.syntax.frontmatter import Split, split_frontmatter
from lait_core.syntax.yaml.parse import parse_yaml

CURSOR = "‸"
W = FileKind.WORKFLOW


def at(marked: str, kind: FileKind = W) -> CursorContext:
    offset = marked.index(CURSOR)
    text = marked.replace(CURSOR, "", 1)
    if kind is FileKind.AGENT:
        split = split_frontmatter(text)
        assert isinstance(split, Split)
        parsed = parse_yaml(split.yaml_text)
        return analyze(
            text,
            offset,
            kind,
            parsed.root if parsed.ok else None,
            body_start=split.body_start,
            first_line=1,
            last_line=split.closing_line - 1,
        )
    parsed = parse_yaml(text)
    return analyze(text, offset, kind, parsed.root if parsed.ok else None)


# (text, role, path, word)
CASES: list[tuple[str, Role, tuple[str | int, ...], str]] = [
    # new and half-typed list items
    ("steps:\n  - pro‸", Role.ITEM, ("steps", 0), "pro"),
    ("steps:\n  - ‸", Role.ITEM, ("steps", 0), ""),
    ("steps:\n  -‸", Role.ITEM, ("steps", 0), ""),
    ("steps:\n  - jq: .\n  - ‸\n", Role.ITEM, ("steps", 1), ""),
    ("steps:\n- jq: .\n- ru‸\n", Role.ITEM, ("steps", 1), "ru"),
    # keys
    ("steps:\n  - prompt: hi\n    mo‸", Role.KEY, ("steps", 0), "mo"),
    ("steps:\n  - prompt: hi\n    ‸", Role.KEY, ("steps", 0), ""),
    ("steps:\n  - prompt: hi\n    mo‸del: x\n", Role.KEY, ("steps", 0), "mo"),
    ("‸", Role.KEY, (), ""),
    ("na‸", Role.KEY, (), "na"),
    ("name: x\n‸\nsteps: []\n", Role.KEY, (), ""),
    ("steps:\n  - prompt: hi\n‸", Role.KEY, (), ""),
    # a plain scalar alone under an empty key is its value in YAML (completion treats it as a key
    # where the models expect a mapping); while the text is broken the scan says key
    ("default:\n  retry:\n    max‸\n", Role.VALUE, ("default", "retry"), "max"),
    ("default:\n  retry:\n    max‸\n  mcp: [\n", Role.KEY, ("default", "retry"), "max"),
    ("steps:\n  - prompt: hi\n    retry:\n      ‸\n", Role.KEY, ("steps", 0, "retry"), ""),
    ("steps:\n  -\n    ‸\n", Role.KEY, ("steps", 0), ""),
    ("steps:\n  - i‸d: a\n    jq: .\n", Role.KEY, ("steps", 0), "i"),
    ("steps:\n  - ‸id: a\n", Role.KEY, ("steps", 0), ""),
    # values
    ("steps:\n  - prompt: hi\n    model: ‸", Role.VALUE, ("steps", 0, "model"), ""),
    ("steps:\n  - prompt: hi\n    model:‸", Role.VALUE, ("steps", 0, "model"), ""),
    ("steps:\n  - prompt: hi\n    model: fa‸", Role.VALUE, ("steps", 0, "model"), "fa"),
    ("steps:\n  - prompt: hi\n    model: fa‸st\n", Role.VALUE, ("steps", 0, "model"), "fa"),
    ("steps:\n  - agent: 'agents/re‸'\n", Role.VALUE, ("steps", 0, "agent"), "agents/re"),
    ('steps:\n  - agent: "ag‸\n', Role.VALUE, ("steps", 0, "agent"), "ag"),
    ("steps:\n  - agent: &a rev‸\n", Role.VALUE, ("steps", 0, "agent"), "rev"),
    # flow collections on the cursor line
    ("steps:\n  - prompt: hi\n    mcp: [fs, ‸", Role.ITEM, ("steps", 0, "mcp", 1), ""),
    ("steps:\n  - prompt: hi\n    mcp: [fs, gi‸", Role.ITEM, ("steps", 0, "mcp", 1), "gi"),
    ("steps:\n  - prompt: hi\n    mcp: [‸]\n", Role.ITEM, ("steps", 0, "mcp", 0), ""),
    ("steps:\n  - prompt: hi\n    mcp: [fs,‸]\n", Role.ITEM, ("steps", 0, "mcp", 1), ""),
    ("steps:\n  - prompt: hi\n    retry: {max_attempts: 2, ‸", Role.KEY, ("steps", 0, "retry"), ""),
    ("steps:\n  - prompt: hi\n    retry: {max_attempts: 2, ‸}\n", Role.KEY, ("steps", 0, "retry"), ""),
    ("steps:\n  - prompt: hi\n    retry: {backoff: ‸", Role.VALUE, ("steps", 0, "retry", "backoff"), ""),
    ("steps:\n  - prompt: hi\n    retry: {backoff:‸ 2}\n", Role.VALUE, ("steps", 0, "retry", "backoff"), ""),
    ("steps:\n  - run: [echo, '{{ in‸", Role.ITEM, ("steps", 0, "run", 1), "in"),
    ("steps:\n  - [a, {b: [c, ‸", Role.ITEM, ("steps", 0, 1, "b", 1), ""),
    ("steps:\n  - prompt: hi\n    mcp: [fs,\n      git, ‸", Role.ITEM, ("steps", 0, "mcp", 2), ""),
    # block lists of names
    ("steps:\n  - prompt: hi\n    mcp:\n      - fs\n      - ‸\n", Role.ITEM, ("steps", 0, "mcp", 1), ""),
    ("steps:\n  - prompt: hi\n    mcp:\n      - fs\n      ‸\n", Role.ITEM, ("steps", 0, "mcp", 1), ""),
    # multi-line scalars
    ("steps:\n  - prompt: |\n      Hello\n      {{ st‸\n", Role.VALUE, ("steps", 0, "prompt"), "st"),
    (
        "steps:\n  - prompt: >-\n      - not: a key\n      wo‸\n  - jq: .\n",
        Role.VALUE,
        ("steps", 0, "prompt"),
        "wo",
    ),
    ("steps:\n  - prompt: one\n      two thr‸\n", Role.VALUE, ("steps", 0, "prompt"), "thr"),
    ('steps:\n  - prompt: "one\n      two thr‸\n', Role.VALUE, ("steps", 0, "prompt"), "thr"),
    ("steps:\n  - prompt: |\n      Hello\n    ‸\n", Role.KEY, ("steps", 0), ""),
    ("a: |\n  x\n\n‸", Role.KEY, (), ""),
    # document markers and anchors
    ("---\nsteps:\n  - jq: .\n    ‸\n", Role.KEY, ("steps", 0), ""),
    ("default: &d\n  mo‸\n", Role.VALUE, ("default",), "mo"),
    ("default: &d\n  mo‸\n  model: [\n", Role.KEY, ("default",), "mo"),
    (
        "steps:\n  - prompt: |\n      Hello\n      {{ st‸\n  - bad: [\n",
        Role.VALUE,
        ("steps", 0, "prompt"),
        "st",
    ),
    ("steps:\n  - prompt: one\n      two thr‸\n  - bad: [\n", Role.VALUE, ("steps", 0, "prompt"), "thr"),
    # '' inside single quotes is a quote, not the end: the '#' after it is text, not a comment
    ("steps:\n  - prompt: 'it''s # x‸\n", Role.VALUE, ("steps", 0, "prompt"), "x"),
]


@pytest.mark.parametrize(("text", "role", "path", "word"), CASES, ids=[c[0] for c in CASES])
def test_context(text: str, role: Role, path: tuple[str | int, ...], word: str) -> None:
    ctx = at(text)
    assert (ctx.role, ctx.path, ctx.word) == (role, path, word)


NOTHING = [
    "steps:\n  - prompt: hi  # mo‸\n",
    "# a comment‸\nsteps: []\n",
    "steps:\n  - prompt: |‸\n      x\n",
    "steps:\n  - jq: '.x'‸\n",
    "steps:\n  - prompt: hi\n    mcp: [fs]‸\n",
    "---‸\nsteps: []\n",
]


@pytest.mark.parametrize("text", NOTHING)
def test_nothing_to_complete(text: str) -> None:
    assert at(text).role is Role.NONE


def test_keys_present_around_the_cursor_are_known() -> None:
    ctx = at("steps:\n  - id: a\n    ‸\n    prompt: hi\n    retry:\n      max_attempts: 2\n  - jq: .\n")
    assert ctx.keys == frozenset({"id", "prompt", "retry"})
    broken = at("steps:\n  - id: a\n    mo‸\n    prompt: hi\n    temperature: 0.1\n  - jq: .\n")
    assert broken.keys == frozenset({"id", "prompt", "temperature"})
    flow = at("steps:\n  - prompt: hi\n    retry: {max_attempts: 2, ‸\n")
    assert flow.keys == frozenset({"max_attempts"})


def test_word_range_covers_the_whole_word() -> None:
    text = "steps:\n  - prompt: hi\n    mo‸del: x\n"
    ctx = at(text)
    clean = text.replace(CURSOR, "")
    assert clean[ctx.word_start : ctx.word_end] == "model"
    assert ctx.colon_after
    assert not at("steps:\n  - prompt: hi\n    mo‸\n").colon_after


def test_insert_flags() -> None:
    assert at("steps:\n  - prompt: hi\n    model:‸").needs_space
    assert not at("steps:\n  - prompt: hi\n    model: ‸").needs_space
    assert at("steps:\n  -‸").needs_space
    dash = at("steps:\n  - jq: .\n  ‸\n")
    assert dash.needs_dash and dash.role is Role.ITEM and dash.column == 2
    compact = at("steps:\n- jq: .\n‸\n")
    assert compact.role is Role.KEY and compact.path == () and not compact.needs_dash


def test_columns_for_indenting_inserts() -> None:
    assert at("steps:\n  - pro‸").column == 4
    assert at("steps:\n  - prompt: hi\n    ‸").column == 4
    assert at("steps:\n  - group:\n      - ‸").column == 8


def test_crlf_lines() -> None:
    ctx = at("steps:\r\n  - prompt: hi\r\n    mo‸\r\n  - jq: .\r\n")
    assert (ctx.role, ctx.path, ctx.word) == (Role.KEY, ("steps", 0), "mo")
    assert ctx.keys == frozenset({"prompt"})
    value = at("steps:\r\n  - prompt: hi\r\n    model: fa‸\r\n")
    assert (value.role, value.word) == (Role.VALUE, "fa")


def test_flow_siblings() -> None:
    assert at("steps:\n  - prompt: hi\n    mcp: [fs, 'git', ‸").siblings == frozenset({"fs", "git"})


# --------------------------------------------------------------------------------------------
# Templates and jq


def test_template_cursor() -> None:
    ctx = at('steps:\n  - prompt: "Hi {{ json steps.fe‸ }}"\n')
    assert ctx.language == "template" and ctx.template is not None
    assert ctx.template.expression == " json steps.fe"
    assert ctx.template.token == "steps.fe"
    assert not ctx.template.first
    first = at("steps:\n  - prompt: '{{ ‸'\n")
    assert first.template is not None and first.template.token == "" and first.template.first


def test_template_cursor_outside_braces_or_in_comments() -> None:
    assert at("steps:\n  - prompt: 'Hi {{ x }} the‸'\n").template is None
    assert at("steps:\n  - prompt: 'Hi {{! note ‸'\n").template is None
    assert at("steps:\n  - prompt: 'Hi \\{{ x ‸'\n").template is None


def test_template_blocks_around_the_cursor() -> None:
    ctx = at("steps:\n  - prompt: |\n      {{#if a}}{{#each input.items}}{{ ‸\n")
    assert ctx.template is not None and ctx.template.blocks == ("if", "each")
    closed = at("steps:\n  - prompt: |\n      {{#if a}}{{#each x}}{{/each}}{{ ‸\n")
    assert closed.template is not None and closed.template.blocks == ("if",)
    sigil = at("steps:\n  - prompt: '{{~#ea‸'\n")
    assert sigil.template is not None and sigil.template.token == "#ea" and sigil.template.first


def test_template_fields() -> None:
    assert at("steps:\n  - run: [curl, '{{ ‸'\n").language == "template"
    assert at("steps:\n  - prompt: x\n    files: ['{{ ‸'\n").language == "template"
    assert at("steps:\n  - ask: '{{ ‸'\n").language == "template"
    assert at("steps:\n  - write: 'out/{{ ‸'\n").language == "template"
    assert at("default:\n  system: '{{ ‸'\nsteps: []\n").language == "template"
    assert at("agents:\n  a:\n    system: '{{ ‸'\nsteps: []\n").language == "template"
    assert at("steps:\n  - jq: '{{ ‸'\n").language == "jq"
    assert at("steps:\n  - prompt: x\n    model: '{{ ‸'\n").language is None


def test_jq_cursor() -> None:
    ctx = at("steps:\n  - when: '$steps.fe‸ != null'\n    jq: .\n")
    assert ctx.language == "jq" and ctx.jq is not None and ctx.jq.token == "$steps.fe"
    bare = at("steps:\n  - jq: '.a + $‸'\n")
    assert bare.jq is not None and bare.jq.token == "$"
    assert at("steps:\n  - jq: '.a + ‸'\n").jq is None
    nested = at("steps:\n  - jq: '$steps.a.b‸'\n")  # a field of a step's value (value_shapes completes it)
    assert nested.jq is not None and nested.jq.token == "$steps.a.b"


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("steps:\n  - switch:\n      - when: '$‸'\n", "jq"),
        ("steps:\n  - for_each: '$‸'\n", "jq"),
        ("steps:\n  - while: '$‸'\n", "jq"),
        ("steps:\n  - workflow: x\n    with: '$‸'\n", "jq"),
        ("steps: []\noutput: '$‸'\n", "jq"),
        ("steps:\n  - parallel:\n      a:\n        - input: '$‸'\n", "jq"),
        ("steps:\n  - group:\n      - output: '$‸'\n", "jq"),
        ("inputs:\n  x:\n    default: '$‸'\nsteps: []\n", None),
    ],
)
def test_jq_fields(text: str, language: str | None) -> None:
    assert at(text).language == language


def test_field_language_in_config() -> None:
    c = FileKind.CONFIG
    assert field_language(c, ("prompts", "p", "template")) == "template"
    assert field_language(c, ("tools", "t", "command", 1)) == "template"
    assert field_language(c, ("tools", "t", "description")) is None
    assert field_language(FileKind.AGENT, ("model",)) is None


def test_step_prefixes() -> None:
    assert step_prefixes(("steps", 0, "group", 1, "prompt")) == [2, 4]
    assert step_prefixes(("steps", 3, "parallel", "a", 0, "when")) == [2, 5]
    assert step_prefixes(("steps", 1, "switch", 0, "steps", 2, "jq")) == [2, 6]
    assert step_prefixes(("steps", 1, "switch", 0, "when")) == [2]
    assert step_prefixes(("inputs", "steps", 0)) == []


# --------------------------------------------------------------------------------------------
# Agent files


def test_agent_frontmatter_and_body() -> None:
    a = FileKind.AGENT
    front = at("---\nname: x\nmo‸\n---\nBody\n", a)
    assert (front.role, front.path, front.word, front.keys) == (Role.KEY, (), "mo", frozenset({"name"}))
    body = at("---\nname: x\n---\nSummarise {{ inp‸\n", a)
    assert body.in_body and body.template is not None and body.template.token == "inp"
    plain = at("---\nname: x\n---\nSummarise ‸\n", a)
    assert plain.in_body and plain.template is None


# --------------------------------------------------------------------------------------------
# The two locators agree


AGREE_DOCS = [
    """\
version: 2
inputs:
  topic: string
  depth: {type: integer, default: 2}
schemas:
  answer: {type: object, properties: {a: {type: string}}}
default:
  model: fast
  retry: {max_attempts: 2}
steps:
  - id: fetch
    run: [curl, "{{ inputs.topic }}"]
  - id: think
    prompt: |
      Summarise {{ steps.fetch }}
        - with a list
      key: looks like yaml
    mcp: [fs, git]
  - for_each: '.items'
    steps:
      - id: each
        jq: '.x'
      - switch:
          - when: '.a'
            steps:
              - jq: .
        else:
          - stop: true
  - parallel:
      left:
        - jq: .
      right:
        - prompt: >-
            folded {{ input }}
            text
  - ask: "Ship
      it?"
    choices:
      - yes
      - no
output: '$steps.think'
""",
    "steps:\n- prompt: compact list\n  model: x\n- jq: .\nname: after\n",
    """\
mcp_servers:
  fs:
    command: npx
    args:
      - -y
      - server
    env: {A: b}
tools:
  grep:
    command: [grep, '{{ input.pattern }}']
""",
]


@pytest.mark.parametrize("doc", AGREE_DOCS)
def test_tree_and_scan_agree_at_every_offset(doc: str) -> None:
    tree = parse_yaml(doc).root
    assert tree is not None
    disagreements = []
    for offset in range(len(doc) + 1):
        hit = tree_locate(tree, offset)
        if hit is None or hit.role is Role.NONE:
            continue
        other = scan(doc, offset)
        if (other.role, other.path) != (hit.role, hit.path):
            disagreements.append((offset, hit.role, hit.path, other.role, other.path))
    assert disagreements == []


def test_every_prefix_of_a_document_is_analysed() -> None:
    doc = AGREE_DOCS[0]
    for end in range(len(doc) + 1):
        text = doc[:end]
        parsed = parse_yaml(text)
        analyze(text, end, W, parsed.root if parsed.ok else None)
