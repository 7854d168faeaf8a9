"""The ``inputs:`` a child workflow declares, as a ``workflow:`` step's ``with:`` binds them: the
child found by path (relative to the calling file) or by its ``workflows:`` registry name, each
input with its type, description, default and whether it is required (no ``default:``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lait_core.documents.document_models import Config
from lait_core.documents.workflow_file import is_workflow_path
from lait_core.syntax.bounded_read import read_source
from lait_core.syntax.yaml.parse import parse_yaml
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

Reader = Callable[[Path], str | None]
"""Reads a file's text (an editor's unsaved buffer wins over the disk); None when unreadable."""


@dataclass(frozen=True, slots=True)
class InputSpec:
    name: str
    required: bool
    type: str = ""
    """The schema's ``type`` (a list of types joined with ``|``); '' when it accepts anything."""
    description: str = ""
    default: str = ""
    """The default as compact JSON ('' when there is none)."""


def read_text(path: Path) -> str | None:
    return read_source(path).text


def child_path(ref: str, here: Path | None, config: Config | None) -> Path | None:
    """The file a ``workflow:`` value names, as the loader resolves it: a path relative to the
    calling file's directory, else a ``workflows:`` registry name (None when neither)."""
    if not ref or "{{" in ref:
        return None
    if is_workflow_path(ref):
        return here.parent / ref if here is not None else None
    target = config.workflows.get(ref) if config is not None else None
    return Path(target) if target else None


def _text(node: Node | None) -> str:
    return node.text if isinstance(node, ScalarNode) and node.value is not None else ""


def _type(node: Node | None) -> str:
    if isinstance(node, ScalarNode):
        return _text(node)
    if isinstance(node, SequenceNode):  # a list of type names
        return "|".join(_text(item) for item in node.items if isinstance(item, ScalarNode))
    return ""


def input_specs(inputs: Node | None) -> list[InputSpec]:
    """The declared inputs of an ``inputs:`` mapping, in the file's order."""
    out: list[InputSpec] = []
    if not isinstance(inputs, MappingNode):
        return out
    for name, _key, value in inputs.items():
        if isinstance(value, ScalarNode):  # `name: string` or `name:` (anything)
            out.append(InputSpec(str(name), True, _text(value)))
        elif isinstance(value, MappingNode):
            default = value.get("default")
            has_default = any(str(k) == "default" for k in value)
            shown = ""
            if has_default:
                try:
                    shown = json.dumps(
                        default.to_python() if default is not None else None, ensure_ascii=False
                    )
                except (TypeError, ValueError):
                    shown = _text(default)
            out.append(
                InputSpec(
                    str(name),
                    not has_default,
                    _type(value.get("type")),
                    _text(value.get("description")),
                    shown,
                )
            )
    return out


def child_inputs(
    ref: str, here: Path | None, config: Config | None, reader: Reader | None = None
) -> tuple[Path, list[InputSpec]] | None:
    """The child a ``workflow:`` value names and the inputs it declares (None when it cannot be read
    or does not parse)."""
    path = child_path(ref, here, config)
    if path is None:
        return None
    text = (reader or read_text)(path)
    if text is None:
        return None
    parsed = parse_yaml(text)
    root = parsed.root if parsed.ok else None
    if not isinstance(root, MappingNode):
        return None
    return path, input_specs(root.get("inputs"))
