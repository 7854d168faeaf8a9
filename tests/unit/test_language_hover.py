"""lait_core.language: key documentation from the models, and hover texts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from lait_core.documents import document_models as m
from lait_core.language import Document, KeyDoc, NameDoc, Project, describe_path, hover_at
from lait_core.language.keydocs import type_text
from lait_core.language.nodes import Segment, trail_at
from lait_core.lint.discovery import FileKind
from lait_core.lint.engine import Linter
from lait_core.syntax.positions import Position
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import ScalarNode


def path(*keys: str | int) -> list[Segment]:
    """Segments for a key path (values are placeholders; only step mappings are looked at)."""
    return [Segment(k, None, ScalarNode(0, 0, (0, 0, 0, 0))) for k in keys]


def doc_at(kind: FileKind, text: str, needle: str, nth: int = 0) -> KeyDoc | NameDoc | None:
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    line = text.count("\n", 0, start)
    col = start - (text.rfind("\n", 0, start) + 1)
    root = parse_yaml(text).root
    trail = trail_at(root, Position(line, col + 1))
    return describe_path(kind, trail.segments)


def fields(model: type[BaseModel]) -> list[tuple[str, str]]:
    return [(info.alias or name, info.description or "") for name, info in model.model_fields.items()]


@pytest.mark.parametrize(
    ("kind", "model"),
    [(FileKind.CONFIG, m.Config), (FileKind.WORKFLOW, m.Workflow), (FileKind.AGENT, m.AgentFrontmatter)],
)
def test_every_top_level_key_is_documented(kind: FileKind, model: type[BaseModel]) -> None:
    for key, description in fields(model):
        doc = describe_path(kind, path(key))
        assert isinstance(doc, KeyDoc), key
        assert doc.description == description and description, key


@pytest.mark.parametrize("kind", list(m.STEP_KINDS))
def test_every_step_key_is_documented_by_its_kind(kind: str) -> None:
    model = m.STEP_KINDS[kind]
    others = [(key, description) for key, description in fields(model) if key != kind]
    text = f"steps:\n  - {kind}: x\n" + "".join(f"    {key}: x\n" for key, _d in others)
    root = parse_yaml(text).root
    for i, (key, description) in enumerate(others):
        trail = trail_at(root, Position(2 + i, 5))
        doc = describe_path(FileKind.WORKFLOW, trail.segments)
        assert isinstance(doc, KeyDoc), (kind, key)
        assert doc.description == description and doc.step_kind == kind, (kind, key)
    kind_doc = describe_path(FileKind.WORKFLOW, trail_at(root, Position(1, 5)).segments)
    assert isinstance(kind_doc, KeyDoc) and kind_doc.kind_doc == " ".join((model.__doc__ or "").split())


@pytest.mark.parametrize(
    ("kind", "keys", "model", "field"),
    [
        (FileKind.CONFIG, ("default", "compaction", "keep_last_n"), m.CompactionConfig, "keep_last_n"),
        (FileKind.CONFIG, ("mcp_servers", "x", "allowed_tools"), m.McpServerConfig, "allowed_tools"),
        (FileKind.CONFIG, ("models", "x", 0, "provider", "api_key_cmd"), m.ProviderConfig, "api_key_cmd"),
        (FileKind.CONFIG, ("tools", "grep", "timeout"), m.ShellToolDefinition, "timeout"),
        (FileKind.CONFIG, ("prompts", "p", "vars"), m.PromptDefinition, "vars"),
        (FileKind.CONFIG, ("jev", "model"), m.JevConfig, "model"),
        (FileKind.CONFIG, ("tool_policy", "deny"), m.ToolPolicy, "deny"),
        (FileKind.WORKFLOW, ("default", "retry", "backoff"), m.RetryDefinition, "backoff"),
        (FileKind.WORKFLOW, ("agents", "w", "system"), m.InlineAgent, "system"),
        (FileKind.WORKFLOW, ("models", "x", 0, "pricing", "input_per_1m"), m.Pricing, "input_per_1m"),
    ],
)
def test_nested_blocks(
    kind: FileKind, keys: tuple[str | int, ...], model: type[BaseModel], field: str
) -> None:
    doc = describe_path(kind, path(*keys))
    assert isinstance(doc, KeyDoc)
    assert doc.owner is model and doc.description == model.model_fields[field].description


def test_nested_step_lists_lead_to_steps_again() -> None:
    text = (
        "steps:\n"
        "  - switch:\n"
        "      - when: 'true'\n"
        "        steps:\n"
        "          - parallel:\n"
        "              a:\n"
        "                - until: 'true'\n"
        "                  max_iterations: 2\n"
        "                  steps:\n"
        "                    - group:\n"
        "                        - write: out.txt\n"
        "                    - ask: Why?\n"
        "                      on_error:\n"
        "                        - stop: true\n"
        "    else:\n"
        "      - break: true\n"
    )
    expected = {
        "when": m.SwitchCase,
        "parallel": m.ParallelStep,
        "max_iterations": m.UntilStep,
        "write": m.WriteStep,
        "ask": m.AskStep,
        "stop": m.StopStep,
        "break": m.BreakStep,
    }
    for needle, model in expected.items():
        doc = doc_at(FileKind.WORKFLOW, text, needle + ":")
        assert isinstance(doc, KeyDoc) and doc.owner is model, needle
    branch = doc_at(FileKind.WORKFLOW, text, "a:")
    assert isinstance(branch, NameDoc) and branch.section == "parallel"


def test_unknown_keys_and_schema_contents_have_no_doc() -> None:
    assert describe_path(FileKind.CONFIG, path("bogus")) is None
    assert describe_path(FileKind.WORKFLOW, path("inputs", "topic", "type")) is None
    assert describe_path(FileKind.WORKFLOW, path("steps", "x")) is None
    assert describe_path(FileKind.UNKNOWN, path("steps")) is None


def test_step_without_a_kind_yet_still_documents_common_keys() -> None:
    doc = doc_at(FileKind.WORKFLOW, "steps:\n  - id: a\n    retry: {max_attempts: 2}\n", "retry")
    assert isinstance(doc, KeyDoc) and doc.owner is m.CommonStep


@pytest.mark.parametrize(
    ("annotation", "text"),
    [
        (str, "string"),
        (list[str], "list of string"),
        (dict[str, int], "mapping of names to integer"),
        (m.ReasoningEffort, '"none" | "minimal" | "low" | "medium" | "high" | "xhigh"'),
        (m.CommandSpec, "string or list of string"),
        (m.StepList, "list of steps"),
        (Any, "any value"),
        (bool | None, "boolean"),
    ],
)
def test_type_text(annotation: Any, text: str) -> None:
    assert type_text(annotation) == text


# --------------------------------------------------------------------------------------------
# hover texts on a project


@pytest.fixture
def project_dir(tmp_path: Path) -> Path:
    files = {
        "lait.config.yml": "mcp_servers:\n  notes:\n    command: python3\n    args: [n.py, 'a b']\n"
        "    allowed_tools: []\n",
        "flow.yml": "inputs:\n  n: integer\n  free:\n"
        "steps:\n  - id: a\n    jq: '$inputs.n + 1'\n  - prompt: '{{ steps.a }} {{ steps.zz }}'\n"
        "    mcp: [notes, nope]\n    model: gpt-4o\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).write_text(text)
    return tmp_path


def hover_text(project_dir: Path, needle: str, offset: int = 1, nth: int = 0) -> str | None:
    path = project_dir / "flow.yml"
    text = path.read_text()
    start = -1
    for _ in range(nth + 1):
        start = text.index(needle, start + 1)
    start += offset
    pos = Position(text.count("\n", 0, start), start - (text.rfind("\n", 0, start) + 1))
    result = hover_at(Project(Linter()), Document(path, text, FileKind.WORKFLOW), pos)
    return result.markdown if result is not None else None


def test_hover_texts(project_dir: Path) -> None:
    notes = hover_text(project_dir, "notes")
    assert notes is not None
    assert "stdio: `python3 n.py 'a b'`" in notes and "allowed tools: none (`[]`)" in notes
    assert "Defined at `lait.config.yml:2`." in notes
    nope = hover_text(project_dir, "nope")
    assert nope == "**MCP server `nope`**\n\nNot defined under `mcp_servers:` in lait.config.yml."
    assert hover_text(project_dir, "zz") == "**step `zz`**\n\nNo step in this file has this `id`."
    step = hover_text(project_dir, "a }}")
    assert (
        step is not None and step.startswith("**step `a`**\n\nA `jq` step.") and "jq: `$inputs.n + 1`" in step
    )
    assert hover_text(project_dir, "n + 1") == "**input `n`**\n\nType `integer`.\n\nDefined at `flow.yml:2`."
    free = hover_text(project_dir, "free")
    assert free is not None and "Any value (no schema)." in free
    raw = hover_text(project_dir, "gpt-4o")
    assert raw is not None and "raw model id" in raw


def test_hover_on_every_position_never_raises(project_dir: Path) -> None:
    path = project_dir / "flow.yml"
    text = path.read_text()
    project = Project(Linter())
    for end in range(0, len(text) + 1, 7):
        prefix = text[:end]
        doc = Document(path, prefix, FileKind.WORKFLOW)
        lines = prefix.split("\n")
        for line in range(len(lines)):
            for col in range(0, len(lines[line]) + 1, 3):
                hover_at(project, doc, Position(line, col))


def test_hover_on_a_registry_entry_shows_the_served_tool(tmp_path: Path) -> None:
    files = {
        "lait.config.yml": "workflows:\n  ship: ship.yml\nagents:\n  rev: rev.md\n  gone: missing.md\n",
        "ship.yml": "inputs:\n  count: {type: integer}\nsteps:\n  - group:\n      - ask: 'ok?'\n",
        "rev.md": "---\ndescription: Reviews\ninput_schema:\n  type: object\n  properties: {diff: {type: string}}\n---\nhi\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).write_text(text)
    path = tmp_path / "lait.config.yml"
    text = path.read_text()
    project = Project(Linter())
    doc = Document(path, text, FileKind.CONFIG)

    def at(needle: str) -> str:
        start = text.index(needle) + 1
        result = hover_at(
            project, doc, Position(text.count("\n", 0, start), start - (text.rfind("\n", 0, start) + 1))
        )
        assert result is not None
        return result.markdown

    ship = at("ship:")
    assert "*`lait serve --mcp` tool* `workflow__ship`, input schema:" in ship
    assert '"required": [\n    "inputs"\n  ]' in ship
    assert "offered only to clients that support elicitation" in ship
    rev = at("rev:")
    assert "`agent__rev`" in rev and '"diff"' in rev
    assert "skipped" in at("gone:")


def test_hover_on_a_prompt_variable(tmp_path: Path) -> None:
    text = (
        "prompts:\n  summary:\n    template: |\n      In {{ vars.words }} words ({{ vars.tone }}): {{ input }}\n"
        "    vars: {words: '20'}\n"
    )
    path = tmp_path / "lait.config.yml"
    path.write_text(text)
    project = Project(Linter())
    doc = Document(path, text, FileKind.CONFIG)

    def at(needle: str) -> Any:
        start = text.index(needle) + 1
        return hover_at(
            project, doc, Position(text.count("\n", 0, start), start - (text.rfind("\n", 0, start) + 1))
        )

    words = at("words }}")
    assert words is not None and "Default: `20`" in words.markdown and "--var words=VALUE" in words.markdown
    assert words.range.start.line == 3 and words.range.end.character - words.range.start.character == len(
        "words"
    )
    tone = at("tone }}")
    assert tone is not None and "Not declared under `vars:`" in tone.markdown
