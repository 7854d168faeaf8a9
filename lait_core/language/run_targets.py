"""What an editor can run in a lait file: where the "Run" lenses go and what the client must ask
for before it runs (the workflow's ``inputs:`` as JSON Schemas, whether a prompt is needed).

Pure functions of the file's text; never raises for bad input (a broken file gets no lens).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from lait_core.lint.discovery import FileKind
from lait_core.syntax.frontmatter import Split, split_frontmatter
from lait_core.syntax.positions import Position, Range
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node

TYPE_NAMES = ("string", "number", "integer", "boolean", "object", "array", "null")


@dataclass(frozen=True, slots=True)
class InputSpec:
    name: str
    schema: dict[str, Any]
    """Normalised: a type name becomes ``{"type": name}``, null becomes ``{}``."""
    required: bool
    """False when the schema has a ``default``."""


@dataclass(frozen=True, slots=True)
class RunTarget:
    kind: str
    """``workflow``, ``agent``, ``test`` or ``eval``."""
    anchor: Range
    """Where the lenses go: the ``steps:`` key of a workflow, the first line of an agent, the first
    top-level key of a test or eval file."""
    name: str | None = None
    prompt: str = "required"
    """``required`` (no ``inputs:``, and every agent), ``optional`` (a workflow with ``inputs:``)."""
    inputs: tuple[InputSpec, ...] = field(default=())


def run_target(kind: FileKind, text: str, path: str = "") -> RunTarget | None:
    """The runnable thing in a workflow or agent file (None for other kinds and unusable text)."""
    if kind is FileKind.WORKFLOW:
        return _workflow_target(text, path)
    if kind is FileKind.AGENT:
        return _agent_target(text, path)
    if kind in (FileKind.TEST, FileKind.EVAL):
        root = parse_yaml(text, path).root
        if not isinstance(root, MappingNode) or not root.pairs:
            return None
        return RunTarget(kind.value, root.pairs[0][0].range, prompt="none")
    return None


def _workflow_target(text: str, path: str) -> RunTarget | None:
    root = parse_yaml(text, path).root
    if not isinstance(root, MappingNode):
        return None
    key = root.key_node("steps")
    if key is None:
        return None
    inputs_node = root.get("inputs")
    inputs = tuple(_inputs(inputs_node)) if isinstance(inputs_node, MappingNode) else ()
    declared = isinstance(inputs_node, MappingNode) and len(inputs_node) > 0
    return RunTarget(
        "workflow",
        key.range,
        name=_string(root.get("name")),
        prompt="optional" if declared else "required",
        inputs=inputs,
    )


def _agent_target(text: str, path: str) -> RunTarget | None:
    split = split_frontmatter(text)
    name = None
    if isinstance(split, Split):
        root = parse_yaml(split.yaml_text, path).root
        if isinstance(root, MappingNode):
            name = _string(root.get("name"))
    first = text.split("\n", 1)[0].rstrip("\r")
    return RunTarget("agent", Range(Position(0, 0), Position(0, len(first))), name=name)


def _inputs(node: MappingNode) -> list[InputSpec]:
    out: list[InputSpec] = []
    for name, _key, value in node.items():
        if not isinstance(name, str):
            continue
        raw = value.to_python()
        if raw is None:
            schema: dict[str, Any] = {}
        elif isinstance(raw, str) and raw in TYPE_NAMES:
            schema = {"type": raw}
        elif isinstance(raw, dict):
            schema = {str(k): v for k, v in raw.items()}
        else:
            continue
        out.append(InputSpec(name, schema, required="default" not in schema))
    return out


def _string(node: Node | None) -> str | None:
    value = node.to_python() if node is not None else None
    return value if isinstance(value, str) and value.strip() else None
