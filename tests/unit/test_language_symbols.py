"""lait_core.language: the name index and project navigation (definition, references, rename)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.language import (
    Document,
    Namespace,
    Occurrence,
    Project,
    RenameError,
    SymbolKey,
    build_index,
    check_name,
    jq_references,
    template_references,
)
from lait_core.lint.discovery import FileKind
from lait_core.lint.engine import Linter
from lait_core.syntax.bounded_read import Loaded, read_source
from lait_core.syntax.positions import Position, Range


def at(text: str, needle: str, offset: int = 0, nth: int = 0) -> Position:
    """The position of the ``nth`` occurrence of ``needle`` (plus ``offset`` characters)."""
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    start += offset
    line = text.count("\n", 0, start)
    return Position(line, start - (text.rfind("\n", 0, start) + 1))


def span(text: str, needle: str, nth: int = 0) -> Range:
    start = at(text, needle, nth=nth)
    return Range(start, Position(start.line, start.character + len(needle)))


# --------------------------------------------------------------------------------------------
# references inside templates and jq


def test_template_references_finds_every_occurrence() -> None:
    text = (
        "{{ steps.a }} {{! steps.b }} {{ steps.a }} {{#each inputs.list}}{{ this }}{{/each}} {{ steps.[a] }}"
    )
    refs = [(r.root, r.name, text[r.start : r.end]) for r in template_references(text)]
    assert refs == [("steps", "a", "a"), ("steps", "a", "a"), ("inputs", "list", "list"), ("steps", "a", "a")]
    starts = [r.start for r in template_references(text)]
    assert starts == [9, 38, 58, 94]


def test_jq_references_every_form_and_field_flag() -> None:
    text = '$steps.a + $steps["a"] + ($steps . "a") + "$steps.a" + $steps.a # $steps.a\n| $inputs.x'
    refs = jq_references(text)
    assert [(r.name, r.jq_field) for r in refs] == [
        ("a", True),
        ("a", False),
        ("a", False),
        ("a", True),
        ("x", True),
    ]
    assert all(text[r.start : r.end] == r.name for r in refs)
    assert jq_references(". + 1") == []


# --------------------------------------------------------------------------------------------
# one file's index

WORKFLOW = """\
inputs:
  topic: string
schemas:
  out: {type: object}
models:
  fast:
    - provider: {base_url: 'http://x/v1'}
      model_id: f
agents:
  writer:
    system: Write about {{ inputs.topic }}.
    model: slow
    mcp: [notes]
default:
  model: fast
  tools: [grep]
steps:
  - id: fetch
    run: [curl, '{{ inputs.topic }}']
  - agent: writer
    when: '$steps.fetch != null'
  - agent: reviewer
    subagents: [helper]
  - agent: ./agents/local.md
  - workflow: child
  - workflow: ./child.yml
    with: '{x: $inputs.topic}'
  - prompt: '{{ steps.fetch }}'
    output_schema: out
    skills: [style]
    model: fast
"""


def occurrences(
    text: str, kind: FileKind, path: str = "/p/flow.yml", config: str = "/p/lait.config.yml"
) -> list[tuple[str, str, str, bool]]:
    index = build_index(path, text, kind, config)
    return [(o.key.namespace.value, o.key.name, o.key.scope, o.definition) for o in index.occurrences]


def test_workflow_index_definitions_references_and_scopes() -> None:
    found = occurrences(WORKFLOW, FileKind.WORKFLOW)
    wf, cfg = "/p/flow.yml", "/p/lait.config.yml"
    assert set(found) == {
        ("input", "topic", wf, True),
        ("schema", "out", wf, True),
        ("model", "fast", wf, True),
        ("inline agent", "writer", wf, True),
        ("model", "slow", cfg, False),
        ("MCP server", "notes", cfg, False),
        ("model", "fast", wf, False),
        ("tool", "grep", cfg, False),
        ("step", "fetch", wf, True),
        ("input", "topic", wf, False),
        ("inline agent", "writer", wf, False),
        ("step", "fetch", wf, False),
        ("agent", "reviewer", cfg, False),
        ("agent", "helper", cfg, False),
        ("workflow", "child", cfg, False),
        ("input", "x", "/p/child.yml", False),  # a with: key names the child's input
        ("schema", "out", wf, False),
        ("skill", "style", cfg, False),
    }
    assert sum(1 for o in found if o == ("input", "topic", wf, False)) == 3
    index = build_index("/p/flow.yml", WORKFLOW, FileKind.WORKFLOW, "/p/lait.config.yml")
    assert sorted((link.namespace.value, link.target) for link in index.links) == [
        ("agent", "/p/agents/local.md"),
        ("workflow", "/p/child.yml"),
    ]


def test_occurrence_ranges_are_exact_in_every_scalar_style() -> None:
    text = (
        "inputs:\n  'topic': string\n"
        "steps:\n"
        '  - prompt: "😀 {{ inputs.topic }}"\n'
        "    system: |\n      line\n      {{ inputs.topic }}\n"
        '    mcp:\n      - "notes"\n'
    )
    index = build_index("/p/f.yml", text, FileKind.WORKFLOW, "/p/lait.config.yml")
    got = {(o.key.name, o.range) for o in index.occurrences}
    assert got == {
        ("topic", span(text, "topic", 0)),
        ("topic", span(text, "topic", 1)),
        ("topic", span(text, "topic", 2)),
        ("notes", span(text, "notes")),
    }


def test_config_index_links_registry_paths() -> None:
    text = (
        "agents:\n  reviewer: agents/r.md\nskills:\n  style: skills/style\n  one: skills/one.md\n"
        "workflows:\n  child: flows/child.yml\nmcp_servers:\n  notes: {command: x}\n"
        "default:\n  mcp: [notes]\n  compaction: {model: small, trigger_rounds: 2}\n"
        "prompts:\n  p: {template: x, model: big}\n"
    )
    index = build_index("/p/lait.config.yml", text, FileKind.CONFIG, "")
    assert index.config == "/p/lait.config.yml"
    assert sorted(link.target for link in index.links) == [
        "/p/agents/r.md",
        "/p/flows/child.yml",
        "/p/skills/one.md",
        "/p/skills/style/SKILL.md",
    ]
    refs = sorted((o.key.namespace.value, o.key.name) for o in index.occurrences if not o.definition)
    assert refs == [("MCP server", "notes"), ("model", "big"), ("model", "small")]


def test_agent_index_and_alias_copies_are_skipped() -> None:
    text = "---\nmcp: &servers [notes, web]\nmodel: local\ntools: *servers\n---\nBody\n"
    index = build_index("/p/agents/a.md", text, FileKind.AGENT, "/p/lait.config.yml")
    names = [(o.key.namespace.value, o.key.name, o.range.start.line) for o in index.occurrences]
    # the alias use on line 3 is a copy: renaming it would rewrite '*servers'
    assert names == [("model", "local", 2), ("MCP server", "notes", 1), ("MCP server", "web", 1)]


def test_broken_yaml_gives_an_empty_index() -> None:
    index = build_index("/p/f.yml", "steps:\n  - id: a\n    prompt: [\n", FileKind.WORKFLOW, "")
    assert index.occurrences == [] and index.links == []


@pytest.mark.parametrize("kind", [FileKind.WORKFLOW, FileKind.AGENT, FileKind.CONFIG])
def test_every_prefix_of_a_file_indexes_without_raising(kind: FileKind) -> None:
    text = {
        FileKind.WORKFLOW: WORKFLOW,
        FileKind.AGENT: "---\nmodel: local\nmcp: [notes]\nsubagents: [x]\n---\nHi {{ input }}\n",
        FileKind.CONFIG: "mcp_servers:\n  notes: {command: x}\nagents:\n  r: agents/r.md\ndefault:\n  mcp: [notes]\n",
    }[kind]
    for end in range(0, len(text) + 1, 2):
        index = build_index("/p/x", text[:end], kind, "/p/lait.config.yml")
        for o in index.occurrences:
            assert o.range.start <= o.range.end


# --------------------------------------------------------------------------------------------
# a project on disk


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    files = {
        "lait.config.yml": "mcp_servers:\n  notes:\n    command: python3\nagents:\n  reviewer: agents/reviewer.md\n"
        "  critic: agents/critic.md\ndefault:\n  mcp: [notes]\n",
        "agents/reviewer.md": "---\nmcp: [notes]\nsubagents: [reviewer]\n---\nReview.\n",
        "flows/flow.yml": "steps:\n  - agent: reviewer\n    mcp: [notes]\n  - prompt: hi\n    mcp: [notes]\n",
        "notes/README.md": "---\nmcp: [notes]\n---\nnot an agent: not in agents/, not registered, not linked\n",
        "other.yml": "services:\n  mcp: [notes]\n",
        "sub/lait.config.yml": "mcp_servers:\n  notes:\n    url: 'http://other'\n",
        "sub/flow.yml": "steps:\n  - prompt: hi\n    mcp: [notes]\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    return tmp_path


def document(path: Path, kind: FileKind, text: str | None = None) -> Document:
    return Document(path, path.read_text() if text is None else text, kind)


def test_references_cover_the_project_but_not_nested_projects(tree: Path) -> None:
    project = Project(Linter())
    doc = document(tree / "flows/flow.yml", FileKind.WORKFLOW)
    pos = at(doc.text, "notes", 1)
    found = [
        (Path(loc.path).relative_to(tree).as_posix(), loc.range.start.line)
        for loc in project.references(doc, pos)
    ]
    assert found == [
        ("agents/reviewer.md", 1),
        ("flows/flow.yml", 2),
        ("flows/flow.yml", 4),
        ("lait.config.yml", 1),
        ("lait.config.yml", 7),
    ]
    nested = document(tree / "sub/flow.yml", FileKind.WORKFLOW)
    refs = project.references(nested, at(nested.text, "notes", 1))
    assert sorted(Path(loc.path).relative_to(tree).as_posix() for loc in refs) == [
        "sub/flow.yml",
        "sub/lait.config.yml",
    ]
    defs = project.definition(nested, at(nested.text, "notes"))
    assert [(Path(d.path).name, d.range.start.line) for d in defs] == [("lait.config.yml", 1)]


def test_definition_of_registry_values_and_self_references(tree: Path) -> None:
    project = Project(Linter())
    config = document(tree / "lait.config.yml", FileKind.CONFIG)
    defs = project.definition(config, at(config.text, "agents/reviewer.md", 3))
    assert [(d.path, d.range) for d in defs] == [(str(tree / "agents/reviewer.md"), Range.at(0, 0))]
    agent = document(tree / "agents/reviewer.md", FileKind.AGENT)
    defs = project.definition(agent, at(agent.text, "reviewer", 2))
    assert [(d.path, d.range) for d in defs] == [
        (str(tree / "lait.config.yml"), span(config.text, "reviewer"))
    ]
    refs = project.references(agent, at(agent.text, "reviewer"), include_declaration=False)
    assert sorted((Path(r.path).name, r.range.start.line) for r in refs) == [
        ("flow.yml", 1),
        ("reviewer.md", 2),
    ]


def test_rename_uses_the_editor_text_of_open_files(tree: Path) -> None:
    overlay = {str(tree / "flows/flow.yml"): "steps:\n  - prompt: unsaved\n    mcp: [other, notes]\n"}

    def reader(path: Path) -> Loaded:
        text = overlay.get(str(path))
        return Loaded(text, None) if text is not None else read_source(path)

    linter = Linter(reader=reader)
    project = Project(linter)
    config = document(tree / "lait.config.yml", FileKind.CONFIG)
    edits = project.rename(config, at(config.text, "notes", 1), "memo")
    by_file = {
        Path(e.path).relative_to(tree).as_posix(): [(x.range, x.new_text) for x in e.edits] for e in edits
    }
    assert by_file["flows/flow.yml"] == [(span(overlay[str(tree / "flows/flow.yml")], "notes"), "memo")]
    assert sorted(by_file) == ["agents/reviewer.md", "flows/flow.yml", "lait.config.yml"]
    assert len(by_file["lait.config.yml"]) == 2


def test_rename_checks(tree: Path) -> None:
    project = Project(Linter())
    flow = document(tree / "flows/flow.yml", FileKind.WORKFLOW)
    with pytest.raises(RenameError, match="there is no step id"):
        project.rename(flow, Position(0, 1), "x")
    config = document(tree / "lait.config.yml", FileKind.CONFIG)
    with pytest.raises(RenameError, match="agent 'critic' is already defined"):
        project.rename(config, at(config.text, "reviewer"), "critic")
    with pytest.raises(RenameError, match="not a valid agent name"):
        project.rename(config, at(config.text, "reviewer"), "a b")
    assert project.rename(config, at(config.text, "reviewer"), "reviewer") == []


def test_prepare_rename_range_and_name(tree: Path) -> None:
    project = Project(Linter())
    flow = document(tree / "flows/flow.yml", FileKind.WORKFLOW)
    target = project.prepare_rename(flow, at(flow.text, "reviewer", 4))
    assert target is not None
    assert target.name == "reviewer" and target.range == span(flow.text, "reviewer")
    assert target.key == SymbolKey(Namespace.AGENT, str(tree / "lait.config.yml"), "reviewer")
    assert project.prepare_rename(flow, at(flow.text, "prompt")) is None


@pytest.mark.parametrize(
    ("namespace", "name", "ok"),
    [
        (Namespace.STEP, "fetch_2", True),
        (Namespace.STEP, "fetch-2", True),
        (Namespace.STEP, "2fetch", False),
        (Namespace.INPUT, "a b", False),
        (Namespace.MCP, "notes.v2", True),
        (Namespace.MCP, "2", False),
        (Namespace.TOOL, "true", False),
        (Namespace.TOOL, "", False),
        (Namespace.MODEL, "gpt-4o", True),
        (Namespace.MODEL, "a:b", False),
    ],
)
def test_check_name(namespace: Namespace, name: str, ok: bool) -> None:
    if ok:
        check_name(namespace, name)
    else:
        with pytest.raises(RenameError):
            check_name(namespace, name)


def test_occurrence_is_hashable_value() -> None:
    index = build_index("/p/f.yml", "steps:\n  - id: a\n    jq: .\n", FileKind.WORKFLOW, "")
    (o,) = index.occurrences
    assert isinstance(o, Occurrence) and o.definition and o.value is not None
    assert (
        index.at(Position(1, 8)) == o and index.at(Position(1, 9)) == o and index.at(Position(1, 6)) is None
    )
