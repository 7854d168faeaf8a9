"""Inlay hints: what a name or a step stands for, shown inline without hovering.

Kinds (each off unless enabled; the language server takes the set from its settings):

* ``modelAlias``: after a ``model:`` alias, ``model_id @ host`` of its first definition (the
  workflow's own ``models:`` win over the config's; ``embedded`` is the built-in model), ``+N``
  when connection fallbacks follow;
* ``shellArgv``: after a ``tools:`` item naming a shell tool, its ``command`` argv with each
  ``{{ input.x }}`` shown as ``<x>`` (the parameter names the model fills in);
* ``outputType``: after a step's ``id:``, the type its ``output_schema`` (inline or a ``schemas:``
  name, or its inline agent's) gives, e.g. ``{kind, summary, labels?}`` or ``string[]``, or what its
  ``output:`` or ``jq:`` program builds (:mod:`lait_core.language.value_shapes`);
* ``forEachItem``: after a ``for_each:`` that is exactly ``$inputs.x`` or ``$steps.x`` (a known
  array type), the type of one item.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from lait_core.documents.document_models import Config, ModelDefinition
from lait_core.language.nodes import tight_end
from lait_core.language.value_shapes import Shapes, Surroundings, type_label
from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import Position
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

KINDS = ("modelAlias", "shellArgv", "outputType", "forEachItem")
EMBEDDED_ALIAS = "embedded"
EMBEDDED_MODEL_ID = "SmolLM2-135M-Instruct"
_INPUT_REF = re.compile(r"\{\{~?\s*input\.([\w-]+)\s*~?\}\}")
_FOR_EACH = re.compile(r"^\s*\$(inputs|steps)\.([A-Za-z_][A-Za-z0-9_]*)\s*$")
_MAX_LABEL = 80


@dataclass(frozen=True, slots=True)
class Hint:
    position: Position
    """Code-point position the label goes after (the end of the value it describes)."""
    label: str
    kind: str
    """One of :data:`KINDS`."""
    tooltip: str = ""


def _short(text: str) -> str:
    return text if len(text) <= _MAX_LABEL else text[: _MAX_LABEL - 1] + "…"


def model_label(definitions: list[ModelDefinition]) -> str:
    first = definitions[0]
    provider = first.provider
    if provider.gguf is not None:
        host = "local GGUF"
    else:
        base = provider.base_url or ""
        host = urlsplit(base).netloc or base or "?"
    extra = f" +{len(definitions) - 1}" if len(definitions) > 1 else ""
    return f"{first.model_id} @ {host}{extra}"


def argv_label(command: Iterable[str]) -> str:
    parts = [_INPUT_REF.sub(lambda m: f"<{m.group(1)}>", item) for item in command]
    return shlex.join(parts).replace("'<", "<").replace(">'", ">")


_TYPE_NAMES = {"string", "integer", "number", "boolean", "object", "array", "null"}


def input_schema(value: Any) -> Any:
    """A workflow input's declaration as a JSON Schema (``x: string`` is ``{type: string}``)."""
    if isinstance(value, str) and value in _TYPE_NAMES:
        return {"type": value}
    return value


class _Hints:
    def __init__(self, enabled: set[str]) -> None:
        self.enabled = enabled
        self.out: list[Hint] = []

    def add(self, kind: str, node: Node, label: str | None, tooltip: str = "") -> None:
        if label and kind in self.enabled and isinstance(node, ScalarNode) and node.document is not None:
            self.out.append(Hint(tight_end(node), _short(label), kind, tooltip))


def _models_of(node: Node | None) -> dict[str, list[ModelDefinition]]:
    out: dict[str, list[ModelDefinition]] = {}
    if not isinstance(node, MappingNode):
        return out
    for alias, _k, value in node.items():
        entries = value.to_python()
        if not isinstance(entries, list) or not entries:
            continue
        try:
            out[str(alias)] = [ModelDefinition.model_validate(e) for e in entries]
        except Exception:
            continue
    return out


def _walk_pairs(node: Node | None) -> Iterable[tuple[str, ScalarNode, Node, MappingNode]]:
    """Every (key, key node, value, owner mapping) of the tree."""
    stack: list[Node] = [node] if node is not None else []
    while stack:
        cur = stack.pop()
        if isinstance(cur, MappingNode):
            for k, v in cur.pairs:
                if isinstance(k, ScalarNode) and isinstance(k.value, str):
                    yield k.value, k, v, cur
                stack.append(v)
        elif isinstance(cur, SequenceNode):
            stack.extend(cur.items)


def _schema_value(node: Node | None, schemas: Mapping[str, Any]) -> Any:
    if isinstance(node, ScalarNode) and isinstance(node.value, str):
        return schemas.get(node.value)
    return node.to_python() if node is not None else None


def inlay_hints(
    kind: FileKind, text: str, path: str, *, config: Config | None, enabled: Iterable[str]
) -> list[Hint]:
    """The hints of a lait file, in document order. Never raises for bad input."""
    hints = _Hints(set(enabled))
    if not hints.enabled:
        return []
    root: Node | None
    own_models: dict[str, list[ModelDefinition]] = {}
    schemas: dict[str, Any] = {}
    inputs: dict[str, Any] = {}
    step_outputs: dict[str, Any] = {}
    if kind is FileKind.WORKFLOW:
        from lait_core.documents.workflow_file import parse_workflow

        wf = parse_workflow(text, path)
        root = wf.root
        if isinstance(root, MappingNode):
            own_models = _models_of(root.get("models"))
            raw_schemas = root.get("schemas")
            schemas = raw_schemas.to_python() if isinstance(raw_schemas, MappingNode) else {}
            raw_inputs = root.get("inputs")
            inputs = raw_inputs.to_python() if isinstance(raw_inputs, MappingNode) else {}
        # what completion and hover of `steps.<id>.` fields know too
        shapes = Shapes(root, Surroundings(Path(path) if path else None, config))
        for step in wf.all_steps():
            sid = step.node.get("id")
            schema = _schema_value(step.node.get("output_schema"), schemas)
            if isinstance(sid, ScalarNode) and isinstance(sid.value, str):
                tooltip = "the step's output type (output_schema)"
                if "output" in step.node or (step.kind == "jq" and schema is None):
                    schema, tooltip = shapes.step(sid.value), "the step's output type (its jq)"
                elif schema is None and step.kind in ("agent", "workflow"):
                    schema = shapes.step(sid.value)
                    tooltip = (
                        "the step's output type (its agent's output_schema)"
                        if step.kind == "agent"
                        else "the step's output type (the child workflow's result)"
                    )
                if schema is not None:
                    step_outputs[sid.value] = schema
                    hints.add("outputType", sid, type_label(schema), tooltip)
            each = step.node.get("for_each")
            if isinstance(each, ScalarNode) and isinstance(each.value, str):
                m = _FOR_EACH.match(each.value)
                if m:
                    source = input_schema(inputs.get(m.group(2))) if m.group(1) == "inputs" else None
                    if m.group(1) == "steps":
                        source = step_outputs.get(m.group(2))
                    if isinstance(source, dict) and (source.get("type") == "array" or "items" in source):
                        label = type_label(source.get("items")) or "any"
                        hints.add("forEachItem", each, f"item: {label}", "the type of loop.item")
    elif kind is FileKind.AGENT:
        from lait_core.documents.agent_file import parse_agent

        root = parse_agent(text, path).front
    elif kind is FileKind.CONFIG:
        from lait_core.documents.config_file import parse_config

        root = parse_config(text, path).root
    else:
        return []
    models: dict[str, list[ModelDefinition]] = dict(config.models) if config is not None else {}
    models.update(own_models)
    tools = dict(config.tools) if config is not None else {}
    for key, _k, value, _owner in _walk_pairs(root):
        if key == "model" and isinstance(value, ScalarNode) and isinstance(value.value, str):
            alias = value.value
            if alias in models:
                hints.add("modelAlias", value, model_label(models[alias]), f"model alias '{alias}'")
            elif alias == EMBEDDED_ALIAS:
                hints.add("modelAlias", value, f"{EMBEDDED_MODEL_ID} @ built-in", "the built-in model")
        elif key == "tools" and isinstance(
            value, SequenceNode
        ):  # a capability list (config's own is a mapping)
            for item in value.items:
                if isinstance(item, ScalarNode) and isinstance(item.value, str) and item.value in tools:
                    tool = tools[item.value]
                    hints.add("shellArgv", item, argv_label(tool.command), f"shell tool '{item.value}'")
    hints.out.sort(key=lambda h: h.position)
    return hints.out


__all__ = ["KINDS", "Hint", "argv_label", "inlay_hints", "model_label", "type_label"]
