"""Schema sources (`input_schema`/`output_schema`/`schemas:`): shape checks, loading, type scan."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lait_core.syntax import read_log as reads
from lait_core.syntax.bounded_read import read_source
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

JSON_TYPES = frozenset(("object", "array", "string", "boolean", "null", "integer", "number"))


def file_reference(node: Node) -> Node | None:
    """The `file:` value node when ``node`` is a `{file: ...}`-only mapping."""
    if isinstance(node, MappingNode) and len(node.pairs) == 1 and node.keys() == ["file"]:
        return node.get("file")
    return None


def shape_problem(node: Node, *, names_allowed: bool) -> str | None:
    """Why ``node`` is not a schema source (None when it is one)."""
    ref = file_reference(node)
    if ref is not None:
        value = ref.to_python()
        if not isinstance(value, str) or not value.strip():
            return "'file' must be a non-empty path string"
        return None
    if isinstance(node, MappingNode):
        return None
    value = node.to_python()
    if isinstance(value, bool):
        return None
    if names_allowed and isinstance(value, str):
        return None
    expected = "a 'schemas:' name, " if names_allowed else ""
    return f"must be {expected}an inline JSON Schema mapping, a boolean, or {{file: path}}"


@dataclass(frozen=True, slots=True)
class LoadedSchema:
    value: Any
    error: str | None


def load_schema_file(base: Path, relative: str) -> LoadedSchema:
    path = (base / relative) if not Path(relative).is_absolute() else Path(relative)
    reads.note(path)
    loaded = read_source(path)
    if loaded.text is None:
        assert loaded.problem is not None
        return LoadedSchema(None, loaded.problem.message)
    try:
        return LoadedSchema(json.loads(loaded.text), None)
    except json.JSONDecodeError as exc:
        return LoadedSchema(
            None, f"'{path}' is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        )


def unknown_types(schema: Any) -> Iterator[str]:
    """Type names lait does not recognize, each once; recursing through `properties` and `items`."""
    seen: set[str] = set()
    stack = [schema]
    while stack:
        cur = stack.pop()
        if not isinstance(cur, dict):
            continue
        t = cur.get("type")
        names = (
            [t] if isinstance(t, str) else [x for x in t if isinstance(x, str)] if isinstance(t, list) else []
        )
        for name in names:
            if name not in JSON_TYPES and name not in seen:
                seen.add(name)
                yield name
        props = cur.get("properties")
        if isinstance(props, dict):
            stack.extend(reversed(list(props.values())))
        items = cur.get("items")
        if isinstance(items, dict):
            stack.append(items)


def unknown_type_nodes(node: Node) -> Iterator[tuple[str, Node]]:
    """Like :func:`unknown_types` over a located schema: (name, node of the type value)."""
    seen: set[str] = set()
    stack = [node]
    while stack:
        cur = stack.pop()
        if not isinstance(cur, MappingNode):
            continue
        t = cur.get("type")
        candidates: list[Node] = []
        if isinstance(t, ScalarNode):
            candidates = [t]
        elif isinstance(t, SequenceNode):
            candidates = list(t.items)
        for c in candidates:
            name = c.to_python()
            if isinstance(name, str) and name not in JSON_TYPES and name not in seen:
                seen.add(name)
                yield name, c
        props = cur.get("properties")
        if isinstance(props, MappingNode):
            stack.extend(reversed([v for _k, v in props.pairs]))
        items = cur.get("items")
        if isinstance(items, MappingNode):
            stack.append(items)
