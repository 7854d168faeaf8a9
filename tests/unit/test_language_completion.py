"""Completion in the core: what is offered where, what an accepted item inserts, and how fast."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

import pytest

from lait_core.documents.document_models import Config
from lait_core.language.completion import (
    CompletionItem,
    Environment,
    ItemKind,
    complete,
    complete_text,
    prepare,
    snippet_text,
)
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import LineIndex

CURSOR = "‸"
W, C, A = FileKind.WORKFLOW, FileKind.CONFIG, FileKind.AGENT

CONFIG = Config.model_validate(
    {
        "models": {"fast": [{"provider": {"base_url": "http://l"}, "model_id": "m-small"}]},
        "mcp_servers": {"fs": {"command": "fs"}, "git": {"url": "http://g"}},
        "tools": {"grep": {"command": ["grep"], "description": "Search"}},
        "agents": {"reviewer": "/p/agents/reviewer.md"},
        "skills": {"release": "/p/skills/release"},
        "workflows": {"nightly": "/p/flows/nightly.yml"},
    }
)
ENV = Environment(config=CONFIG)

STEP_KINDS = [
    "prompt", "agent", "run", "decide", "workflow", "jq", "ask", "write", "group", "switch", "parallel",
    "for_each", "while", "until", "stop", "break",
]  # fmt: skip
COMMON = ["id", "when", "input", "output", "retry", "timeout", "on_error"]


def items(
    marked: str, kind: FileKind = W, env: Environment = ENV, trigger: str | None = None
) -> list[CompletionItem]:
    offset = marked.index(CURSOR)
    text = marked.replace(CURSOR, "", 1)
    return complete_text(text, LineIndex(text).position(offset), kind, env, trigger)


def labels(marked: str, kind: FileKind = W, env: Environment = ENV, trigger: str | None = None) -> list[str]:
    return [i.label for i in items(marked, kind, env, trigger)]


def accept(marked: str, label: str, kind: FileKind = W, env: Environment = ENV) -> str:
    """The text after accepting ``label`` (snippets as plain text)."""
    text = marked.replace(CURSOR, "", 1)
    found = [i for i in items(marked, kind, env) if i.label == label]
    assert found, f"{label} not offered"
    item = found[0]
    index = LineIndex(text)
    start, end = index.offset(item.range.start), index.offset(item.range.end)
    insert = snippet_text(item.insert) if item.snippet else item.insert
    return text[:start] + insert + text[end:]


# --------------------------------------------------------------------------------------------
# Keys


def test_step_kinds_and_common_keys_for_a_new_step() -> None:
    assert labels("steps:\n  - ‸") == STEP_KINDS + COMMON
    assert labels("steps:\n  - pro‸") == STEP_KINDS + COMMON
    assert labels("steps:\n  - id: a\n    ‸\n") == STEP_KINDS + COMMON[1:]


def test_kind_snippets_are_indented_for_their_place() -> None:
    snippet = {i.label: i for i in items("steps:\n  - group:\n      - ‸")}
    for_each = snippet["for_each"]
    assert for_each.kind is ItemKind.SNIPPET and for_each.multiline and for_each.snippet
    assert for_each.insert == "for_each: '${1:.items}'\n        steps:\n          - ${2}"
    assert snippet["run"].insert == "run: [${1:program}]"
    assert snippet["stop"].insert == "stop: true"
    assert "Run `steps` for each element" in snippet["for_each"].documentation
    assert accept("steps:\n  - jq: .\n  ‸\n", "while") == (
        "steps:\n  - jq: .\n  - while: '.'\n    max_iterations: 10\n    steps:\n      - \n"
    )
    assert accept("steps:\n  -‸\n", "prompt") == "steps:\n  - prompt: \n"


def test_keys_of_a_step_by_kind() -> None:
    assert labels("steps:\n  - run: [ls]\n    ‸\n") == [*COMMON, "env", "cwd"]
    assert labels("steps:\n  - stop: true\n    ‸\n") == ["id", "when", "input", "output"]
    assert labels("steps:\n  - for_each: .x\n    steps: [{jq: .}]\n    ‸\n") == [*COMMON, "max_concurrency"]
    assert labels("steps:\n  - while: .x\n    ‸\n") == [*COMMON, "steps", "max_iterations"]
    assert labels("steps:\n  - switch: []\n    ‸\n") == [*COMMON, "else"]
    assert labels("steps:\n  - workflow: x\n    ‸\n") == [*COMMON, "with"]


def test_keys_already_present_are_not_offered() -> None:
    got = labels("steps:\n  - prompt: hi\n    model: x\n    ‸\n    temperature: 0.2\n")
    assert "model" not in got and "temperature" not in got and "prompt" not in got
    assert "top_p" in got and "system" in got
    broken = labels("steps:\n  - prompt: hi\n    model: x\n    t‸\n    temperature: 0.2\n  - bad: [\n")
    assert "model" not in broken and "temperature" not in broken and "top_p" in broken


def test_key_inserts_by_value_type() -> None:
    inserts = {i.label: i.insert for i in items("steps:\n  - prompt: hi\n    ‸")}
    assert inserts["model"] == "model: $0"
    assert inserts["mcp"] == "mcp: [$0]"
    assert inserts["retry"] == "retry:\n      $0"
    assert inserts["on_error"] == "on_error:\n      - $0"
    assert inserts["reasoning_effort"] == "reasoning_effort: ${1|none,minimal,low,medium,high,xhigh|}"
    assert {i.label: i.insert for i in items("‸")}["version"] == "version: 2"
    # a key whose colon is already there is only renamed
    assert (
        accept("steps:\n  - prompt: hi\n    mo‸del: x\n", "model") == "steps:\n  - prompt: hi\n    model: x\n"
    )
    assert accept("steps:\n  - pro‸: hi\n", "prompt") == "steps:\n  - prompt: hi\n"


def test_key_documentation() -> None:
    item = {i.label: i for i in items("steps:\n  - prompt: hi\n    ‸")}["max_tool_rounds"]
    assert item.kind is ItemKind.KEY
    assert item.detail == "integer"
    assert item.documentation.startswith("Limit on tool-call round trips")
    retry = {i.label: i for i in items("steps:\n  - prompt: hi\n    retry:\n      ‸")}
    assert "required" in retry["max_attempts"].documentation
    assert "default `0`" in retry["delay_seconds"].documentation


def test_keys_in_every_file_kind() -> None:
    assert labels("---\nname: a\n‸\n---\nbody\n", A) == [
        "model", "reasoning_effort", "temperature", "top_p", "max_tokens", "mcp", "max_tool_rounds", "skills",
        "subagents", "tools", "description", "input_schema", "output_schema", "schema_name",
    ]  # fmt: skip
    assert labels("default:\n  ‸\n", C)[:3] == ["model", "reasoning_effort", "system"]
    assert "compaction" in labels("default:\n  ‸\n", C)
    assert labels("default:\n  compaction:\n    ‸\n", C) == [
        "trigger_rounds",
        "trigger_tokens",
        "keep_last_n",
        "model",
    ]
    assert labels("models:\n  a:\n    - ‸\n", C) == [
        "provider", "model_id", "default_reasoning_effort", "default_temperature", "default_top_p",
        "default_max_tokens", "pricing", "api", "context_window",
    ]  # fmt: skip
    assert labels("agents:\n  helper:\n    system: x\n    ‸\nsteps: []\n")[:2] == [
        "model",
        "reasoning_effort",
    ]
    assert labels("steps:\n  - switch:\n      - ‸\n") == ["when", "steps"]


def test_json_schema_keywords_where_a_schema_is_written() -> None:
    keywords = ["type", "description", "default", "enum", "properties", "required", "items"]
    assert labels("inputs:\n  x:\n    ‸\nsteps: []\n") == keywords
    assert labels("inputs:\n  x:\n    type: string\n    ‸\nsteps: []\n") == keywords[1:]
    assert labels("schemas:\n  s:\n    ‸\nsteps: []\n") == keywords
    assert labels("---\noutput_schema:\n  ‸\n---\n", A) == keywords
    assert labels("schemas:\n  s: {}\nsteps:\n  - prompt: x\n    output_schema:\n      ‸\n") == ["s"]
    typed = {i.label: i for i in items("inputs:\n  x:\n    ‸\nsteps: []\n")}
    assert typed["type"].insert == "type: ${1|string,number,integer,boolean,object,array,null|}"
    assert typed["properties"].insert == "properties:\n      $0"


def test_value_on_its_own_line_under_a_mapping_is_a_key() -> None:
    assert labels("default:\n  retry:\n    max‸\n") == ["max_attempts", "delay_seconds", "backoff"]
    assert labels("steps:\n  - prompt: hi\n    retry:\n      ‸\n") == [
        "max_attempts",
        "delay_seconds",
        "backoff",
    ]


def test_a_fresh_line_under_a_list_offers_items_with_a_dash() -> None:
    got = items("steps:\n  ‸\n")
    assert [i.label for i in got] == STEP_KINDS + COMMON
    assert got[0].insert == "- prompt: ${1}"
    assert [i.insert for i in items("steps:\n  - prompt: hi\n    mcp:\n      ‸\n")] == ["- fs", "- git"]


def test_typed_indentation_does_not_pop_up_keys() -> None:
    assert labels("steps:\n  - prompt: hi\n    ‸\n", trigger=" ") == []
    assert labels("steps:\n  - ‸\n", trigger=" ") == STEP_KINDS + COMMON
    assert labels("steps:\n  - prompt: hi\n    model: ‸\n", trigger=" ") == ["fast", "embedded"]


# --------------------------------------------------------------------------------------------
# Values and names


@pytest.mark.parametrize(
    ("text", "kind", "expected"),
    [
        (
            "steps:\n  - prompt: hi\n    reasoning_effort: ‸\n",
            W,
            ["none", "minimal", "low", "medium", "high", "xhigh"],
        ),
        ("default:\n  render: ‸\n", C, ["true", "false"]),
        ("confine: ‸\n", C, ["project", "none"]),
        ("models:\n  a:\n    - api: ‸\n", C, ["chat_completions", "responses"]),
        (
            "models:\n  a:\n    - default_reasoning_effort: h‸\n",
            C,
            ["none", "minimal", "low", "medium", "high", "xhigh"],
        ),
        ("steps:\n  - decide:\n      q: {type: ‸}\n", W, ["noul", "choice", "score"]),
        ("steps:\n  - stop: ‸\n", W, ["true"]),
        ("version: ‸\nsteps: []\n", W, ["2"]),
        (
            "inputs:\n  topic: ‸\nsteps: []\n",
            W,
            ["string", "number", "integer", "boolean", "object", "array", "null"],
        ),
        (
            "inputs:\n  topic:\n    type: ‸\nsteps: []\n",
            W,
            ["string", "number", "integer", "boolean", "object", "array", "null"],
        ),
        ("steps:\n  - prompt: hi\n    mcp: [‸]\n", W, ["fs", "git"]),
        ("steps:\n  - prompt: hi\n    mcp: [git, ‸]\n", W, ["fs"]),
        ("steps:\n  - prompt: hi\n    mcp:\n      - git\n      - ‸\n", W, ["fs"]),
        ("steps:\n  - agent: x\n    tools: [‸\n", W, ["grep"]),
        ("steps:\n  - prompt: x\n    subagents: [‸\n", W, ["reviewer"]),
        ("steps:\n  - prompt: x\n    skills: [‸\n", W, ["release"]),
        ("default:\n  model: ‸\nsteps: []\n", W, ["fast", "embedded"]),
        ("default:\n  compaction:\n    model: ‸\n", C, ["fast", "embedded"]),
        ("prompts:\n  p:\n    template: x\n    model: ‸\n", C, ["fast", "embedded"]),
        ("---\nmodel: ‸\n---\n", A, ["fast", "embedded"]),
        ("---\nmcp:\n  - ‸\n---\n", A, ["fs", "git"]),
        ("steps:\n  - workflow: ‸\n", W, ["nightly"]),
        ("steps:\n  - decide: {q: {type: noul}}\n    model: ‸\n", W, []),
        ("steps:\n  - ask: ok?\n    choices: [a, b]\n    default: ‸\n", W, ["a", "b"]),
    ],
)
def test_values(text: str, kind: FileKind, expected: list[str]) -> None:
    assert labels(text, kind) == expected


def test_value_inserts() -> None:
    assert (
        accept("steps:\n  - prompt: hi\n    model:‸\n", "fast") == "steps:\n  - prompt: hi\n    model: fast\n"
    )
    assert accept("steps:\n  - prompt: hi\n    mcp: ‸\n", "git") == "steps:\n  - prompt: hi\n    mcp: [git]\n"
    assert (
        accept("steps:\n  - prompt: hi\n    mcp: [fs, g‸\n", "git")
        == "steps:\n  - prompt: hi\n    mcp: [fs, git\n"
    )
    odd = Environment(config=Config.model_validate({"agents": {"my agent": "/x.md", "true": "/t.md"}}))
    assert accept("steps:\n  - agent: ‸\n", "my agent", env=odd) == "steps:\n  - agent: 'my agent'\n"
    assert accept("steps:\n  - agent: ‸\n", "true", env=odd) == "steps:\n  - agent: 'true'\n"


def test_names_defined_in_the_document() -> None:
    head = (
        "models:\n  local:\n    - provider: {base_url: 'http://x'}\n      model_id: tiny\n"
        "schemas:\n  answer: {type: object}\n"
        "agents:\n  helper: {system: hi, description: Helps}\n"
    )
    assert labels(head + "input_schema: ‸\nsteps: []\n") == ["answer"]
    assert labels(head + "steps:\n  - prompt: x\n    output_schema: ‸\n") == ["answer"]
    got = items(head + "steps:\n  - prompt: x\n    model: ‸\n")
    assert [i.label for i in got] == ["local", "fast", "embedded"]
    assert got[0].detail == "model alias (this workflow)" and "`tiny`" in got[0].documentation
    agents = items(head + "steps:\n  - agent: ‸\n")
    assert [i.label for i in agents] == ["helper", "reviewer"]
    assert agents[0].documentation == "Helps"
    assert labels("---\ninput_schema: ‸\n---\n", A) == []


def test_config_names_come_from_the_config_being_edited_too() -> None:
    text = "mcp_servers:\n  local: {command: x}\ntools:\n  t1: {command: [x]}\ndefault:\n  mcp: [‸]\n"
    assert labels(text, C) == ["local", "fs", "git"]
    assert labels(text.replace("mcp: [‸]", "tools: [‸]"), C) == ["t1", "grep"]
    policy = labels("mcp_servers:\n  local: {command: x}\ntool_policy:\n  deny: [‸]\n", C)
    assert policy[:2] == ["local__*", "fs__*"] and "tool__grep" in policy and "agent__reviewer" in policy


def test_relative_paths_next_to_the_workflow(tmp_path: Path) -> None:
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "a.md").write_text("---\n---\n")
    (tmp_path / "agents" / "b.md").write_text("---\n---\n")
    (tmp_path / ".hidden").mkdir()
    (tmp_path / ".hidden" / "c.md").write_text("---\n---\n")
    (tmp_path / "flows").mkdir()
    (tmp_path / "flows" / "child.yaml").write_text("steps: []\n")
    (tmp_path / "lait.config.yml").write_text("")
    me = tmp_path / "main.yml"
    env = Environment(path=me)
    assert labels("steps:\n  - agent: ‸\n", env=env) == ["agents/a.md", "agents/b.md"]
    assert labels("steps:\n  - agent: agents/‸\n", env=env) == ["agents/a.md", "agents/b.md"]
    assert labels("steps:\n  - agent: ./agents/‸\n", env=env) == ["./agents/a.md", "./agents/b.md"]
    assert labels("steps:\n  - workflow: ‸\n", env=env) == ["flows/child.yaml"]
    assert items("steps:\n  - agent: ‸\n", env=env)[0].kind is ItemKind.FILE


# --------------------------------------------------------------------------------------------
# Templates

FLOW = """\
inputs:
  topic: string
  count: {type: integer, description: How many}
steps:
  - id: first
    jq: .
  - parallel:
      a:
        - id: in_branch
          jq: .
  - id: here
    prompt: "{{ MARK }}"
    on_error:
      - id: recover
        jq: .
  - id: after
    jq: .
"""


def flow(expr: str) -> str:
    return FLOW.replace("{{ MARK }}", expr)


def test_template_roots() -> None:
    assert labels(flow("{{ ‸ }}")) == [
        "input",
        "inputs",
        "steps",
        "json",
        "text",
        "#if",
        "#unless",
        "#each",
        "#with",
    ]
    assert labels(flow("{{ json ‸ }}")) == ["input", "inputs", "steps"]
    assert labels("steps:\n  - prompt: '{{ ‸'\n") == [
        "input",
        "json",
        "text",
        "#if",
        "#unless",
        "#each",
        "#with",
    ]


def test_template_members() -> None:
    assert labels(flow("{{ steps.‸ }}")) == ["first", "in_branch"]
    assert labels(flow("{{ inputs.c‸ }}")) == ["topic", "count"]
    assert accept(flow("{{ steps.fi‸ }}"), "first") == flow("{{ steps.first }}")
    assert accept(flow("{{ steps.fi‸rst }}"), "first") == flow("{{ steps.first }}")
    assert labels(flow("{{ steps.first.‸ }}")) == []
    count = {i.label: i for i in items(flow("{{ inputs.‸ }}"))}["count"]
    assert "How many" in count.documentation and count.kind is ItemKind.FIELD


def test_step_ids_follow_the_run_order() -> None:
    text = FLOW.replace('prompt: "{{ MARK }}"', 'prompt: "x"').replace(
        "      - id: recover\n        jq: .", "      - id: recover\n        prompt: '{{ steps.‸ }}'"
    )
    # inside on_error: earlier steps, but not the failing step itself (an ancestor) nor later ones
    assert labels(text) == ["first", "in_branch"]
    own = "steps:\n  - id: me\n    prompt: '{{ steps.‸ }}'\n  - id: later\n    jq: .\n"
    assert labels(own) == []


def test_block_helpers_and_each_variables() -> None:
    assert labels(flow("{{#‸")) == ["#if", "#unless", "#each", "#with"]
    assert accept(flow("{{#ea‸"), "#each") == flow("{{#each path")
    inside = flow("{{#each inputs.items}}{{ ‸")
    assert labels(inside) == ["input", "inputs", "steps", "this", "@index", "@key", "json", "text", "#if",
                              "#unless", "#each", "#with"]  # fmt: skip
    assert labels(flow("{{#each inputs.items}}{{ @‸")) == ["@index", "@key", "@first", "@last", "@root"]
    assert labels(flow("{{#with input}}{{ ‸")).count("this") == 1
    assert "this" not in labels(flow("{{ ‸"))
    assert labels(flow("{{#if x}}{{/‸")) == ["/if"]


def test_loop_scope() -> None:
    body = "steps:\n  - {kind}: .x\n    {extra}steps:\n      - prompt: '{{{{ loop.‸ }}}}'\n"
    assert labels(body.format(kind="for_each", extra="")) == ["index", "item"]
    assert labels(body.format(kind="while", extra="max_iterations: 2\n    ")) == ["index"]
    assert labels(body.format(kind="until", extra="max_iterations: 2\n    ")) == ["index"]
    nested = "steps:\n  - for_each: .x\n    steps:\n      - group:\n          - prompt: '{{ ‸ }}'\n"
    assert "loop" in labels(nested)
    assert "loop" not in labels("steps:\n  - for_each: .x\n    steps: [{jq: .}]\n    output: '$‸'\n")


def test_agent_body_and_config_templates() -> None:
    assert labels("---\nname: a\n---\n{{ ‸", A) == [
        "input",
        "json",
        "text",
        "#if",
        "#unless",
        "#each",
        "#with",
    ]
    assert labels("---\nname: a\n---\n{{ inputs.‸", A) == []
    prompts = "prompts:\n  p:\n    template: '{{ vars.‸ }}'\n    vars: {lang: en, tone: dry}\n"
    assert labels(prompts, C) == ["lang", "tone"]
    tools = (
        "tools:\n  t:\n    command: [x, '{{ input.‸ }}']\n"
        "    parameters: {type: object, properties: {pattern: {type: string, description: What}}}\n"
    )
    assert labels(tools, C) == ["pattern"]


# --------------------------------------------------------------------------------------------
# jq


def test_jq_variables() -> None:
    assert labels(flow("x").replace('prompt: "x"', "jq: '$‸'")) == ["$inputs", "$steps"]
    assert labels(flow("x").replace('prompt: "x"', "when: '$st‸'\n    jq: .")) == ["$inputs", "$steps"]
    assert labels(flow("x").replace('prompt: "x"', "jq: '$steps.‸'")) == ["first", "in_branch"]
    assert labels(flow("x").replace('prompt: "x"', "jq: '.a + $inputs.‸'")) == ["topic", "count"]
    assert labels(flow("x") + "output: '$steps.‸'\n") == ["first", "in_branch", "here", "recover", "after"]
    loop = "steps:\n  - for_each: .\n    steps:\n      - jq: '$loop.‸'\n"
    assert labels(loop) == ["index", "item"]


def test_jq_hyphenated_ids_use_brackets() -> None:
    text = "steps:\n  - id: my-step\n    jq: .\n  - jq: '$steps.‸'\n"
    assert accept(text, "my-step") == "steps:\n  - id: my-step\n    jq: .\n  - jq: '$steps[\"my-step\"]'\n"
    template = "steps:\n  - id: my-step\n    jq: .\n  - prompt: '{{ steps.‸ }}'\n"
    assert (
        accept(template, "my-step")
        == "steps:\n  - id: my-step\n    jq: .\n  - prompt: '{{ steps.my-step }}'\n"
    )


# --------------------------------------------------------------------------------------------
# Broken YAML, positions, snippets, speed


def test_names_survive_broken_yaml() -> None:
    typing = (
        'inputs:\n  topic: string\nsteps:\n  - id: fetch\n    jq: .\n  - prompt: "{{ inputs.‸\n    modl\n'
    )
    assert labels(typing) == ["topic"]
    assert labels(typing.replace("inputs.‸", "steps.‸")) == ["fetch"]
    unclosed = "steps:\n  - id: fetch\n    jq: .\n  - prompt: '{{ steps.‸\n  - id: later\n    jq: .\n"
    assert labels(unclosed) == ["fetch"]


def test_ranges_are_code_points() -> None:
    text = "steps:\n  - id: fetch\n    jq: .\n  - prompt: '😀 日本 {{ steps.fe‸ }}'\n"
    item = items(text)[0]
    assert item.range.start.character == len("  - prompt: '😀 日本 {{ steps.")
    assert item.range.end.character == item.range.start.character + 2


def test_snippet_text() -> None:
    assert (
        snippet_text("for_each: '${1:.items}'\n  steps:\n    - ${2}")
        == "for_each: '.items'\n  steps:\n    - "
    )
    assert snippet_text("type: ${2|noul,choice,score|}$0") == "type: noul"
    assert snippet_text("a \\$HOME \\} \\\\ b") == "a $HOME } \\ b"


def test_prepared_document_is_reused() -> None:
    text = "steps:\n  - id: a\n    jq: .\n  - prompt: '{{ steps.‸'\n"
    offset = text.index(CURSOR)
    clean = text.replace(CURSOR, "")
    doc = prepare(clean, W)
    pos = doc.index.position(offset)
    assert [i.label for i in complete(doc, pos)] == ["a"]
    assert [i.label for i in complete(doc, pos)] == ["a"]


def _workflow(lines: int) -> str:
    out = ["inputs:", "  topic: string", "steps:"]
    i = 0
    while len(out) < lines:
        out += [
            f"  - id: s{i}",
            "    prompt: |",
            f"      Summarise {{{{ inputs.topic }}}} and {{{{ steps.s{max(i - 1, 0)} }}}}",
            "    model: fast",
            f"    when: '$inputs.topic != \"{i}\"'",
            "    retry: {max_attempts: 2}",
            "",
        ]
        i += 1
    return "\n".join(out[:lines]) + "\n"


def test_speed_on_a_thousand_line_workflow() -> None:
    """Generous bounds (the target is a 20 ms median); this guards against re-linting or re-parsing
    per item, not against a slow machine."""
    text = _workflow(1000)
    lines = text.split("\n")
    k = max(i for i, line in enumerate(lines) if line == "    model: fast")
    cases = [
        (text, (k, len("    model: "))),
        ("\n".join([*lines[:k], "    mo", *lines[k + 1 :]]), (k, 6)),
        ("\n".join([*lines[:k], "    mcp: [fs, ", *lines[k + 1 :]]), (k, 14)),
    ]
    for case, (line, col) in cases:
        times = []
        for _ in range(7):
            start = time.perf_counter()
            doc = prepare(case, W)
            complete(doc, doc.index.position(doc.index.line_start(line) + col), ENV)
            times.append(time.perf_counter() - start)
        assert statistics.median(times) < 0.1


CHILD_INPUTS = """\
inputs:
  count:
    type: integer
    default: 3
    description: How many 😀
  repo: string
  owner:
    type: [string, "null"]
    description: Who owns it
steps:
  - prompt: hi
"""


def test_with_keys_offer_the_child_inputs(tmp_path: Path) -> None:
    (tmp_path / "child.yml").write_text(CHILD_INPUTS, encoding="utf-8")
    env = Environment(
        tmp_path / "main.yml", Config.model_validate({"workflows": {"kid": str(tmp_path / "child.yml")}})
    )
    flow = "steps:\n  - workflow: ./child.yml\n    with: '{repo: $inputs.x, ‸}'\n"
    found = items(flow, env=env)
    # required first (file order), then optional; keys already given are not offered
    assert [(i.label, i.detail) for i in found] == [
        ("owner", "required input · string|null"),
        ("count", "optional input · integer · = 3"),
    ]
    assert sorted(found, key=lambda i: i.sort_text or "")[0].label == "owner"
    assert "How many 😀" in found[1].documentation and "defaults to `3`" in found[1].documentation
    assert accept(flow, "count", env=env).endswith("with: '{repo: $inputs.x, count: }'\n")
    # a block scalar, by registered name, a word being typed (replaced whole), a key after the cursor excluded
    block = "steps:\n  - workflow: kid\n    with: |\n      {\n        ow‸ner,\n        count: 1\n      }\n"
    found = items(block, env=env)
    assert [i.label for i in found] == ["repo", "owner"]
    assert accept(block, "owner", env=env).count("owner") == 1
    # a quoted key: the name only
    assert [i.insert for i in items("steps:\n  - workflow: kid\n    with: '{\"c‸\": 1}'\n", env=env)] == [
        "repo",
        "owner",
        "count",
    ]
    # not at a key: a value, a program that is not an object, an unknown child
    for text in (
        "steps:\n  - workflow: kid\n    with: '{repo: ‸}'\n",
        "steps:\n  - workflow: kid\n    with: '.x | ‸'\n",
        "steps:\n  - workflow: nobody\n    with: '{‸}'\n",
    ):
        assert items(text, env=env) == [], text
    # the editor's unsaved text of the child wins over the disk
    unsaved = Environment(env.path, env.config, reader=lambda p: "inputs:\n  fresh: string\n")
    assert labels("steps:\n  - workflow: kid\n    with: '{‸}'\n", env=unsaved) == ["fresh"]
