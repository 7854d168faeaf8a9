"""The documentation of a key at a path in a lait file, read from the pydantic models.

The models in :mod:`lait_core.documents.document_models` are the single source of truth: their field
descriptions are the ones the JSON Schemas carry. A path of keys and list indexes is followed
through the models (a step's model is chosen by its kind key; nested step lists lead to steps
again), and the field at its end is described: its type, whether it is required, its default.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, WithJsonSchema
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from lait_core.documents import document_models as m
from lait_core.language.nodes import Segment
from lait_core.lint.discovery import FileKind
from lait_core.syntax.yaml.tree import MappingNode, Node

ROOT_MODELS: dict[FileKind, type[BaseModel]] = {
    FileKind.CONFIG: m.Config,
    FileKind.AGENT: m.AgentFrontmatter,
    FileKind.WORKFLOW: m.Workflow,
    FileKind.SKILL: m.SkillFrontmatter,
}

ShapeKind = Literal["model", "list", "dict", "steps", "step", "leaf"]


@dataclass(frozen=True, slots=True)
class Shape:
    kind: ShapeKind
    model: type[BaseModel] | None = None
    item: Shape | None = None


LEAF = Shape("leaf")
STEP = Shape("step")
STEPS = Shape("steps", item=STEP)


@dataclass(frozen=True, slots=True)
class KeyDoc:
    """A key of a lait file and what the models say about it."""

    key: str
    owner: type[BaseModel]
    """The model the key belongs to."""
    description: str
    type: str
    required: bool
    default: str | None = None
    step_kind: str | None = None
    """The kind of the step the key is in (None outside steps)."""
    kind_doc: str | None = None
    """When the key *is* the step's kind key: what that kind of step does."""


@dataclass(frozen=True, slots=True)
class NameDoc:
    """A name that is a key of a mapping of named things (a prompt, a branch, a question)."""

    name: str
    section: str
    """The key of the mapping it is in (``prompts``, ``parallel``, ``decide``)."""
    description: str


def _doc(cls: type) -> str:
    doc = cls.__dict__.get("__doc__")
    return " ".join(doc.split()) if isinstance(doc, str) else ""


def _is_step_list(meta: Sequence[Any]) -> bool:
    return any(
        isinstance(x, WithJsonSchema) and (x.json_schema or {}).get("x-lait-ref") == "stepList" for x in meta
    )


def _schema_ref(meta: Sequence[Any]) -> str | None:
    for x in meta:
        if isinstance(x, WithJsonSchema):
            schema = x.json_schema or {}
            if schema.get("x-lait-ref") == "schemaSource":
                return "JSON Schema (inline mapping, boolean or `{file: path}`)"
            if "oneOf" in schema:
                return "`schemas:` name or JSON Schema"
    return None


def _non_none(args: Sequence[Any]) -> list[Any]:
    return [a for a in args if a is not type(None)]


def shape_of(annotation: Any, meta: Sequence[Any] = ()) -> Shape:
    """What a value of this annotation looks like, for following a path into it."""
    if _is_step_list(meta):
        return STEPS
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return shape_of(args[0], args[1:])
    if origin is typing.Union or origin is types.UnionType:
        options = _non_none(args)
        if len(options) == 1:
            return shape_of(options[0])
        return LEAF
    if origin is list and args:
        return Shape("list", item=shape_of(args[0]))
    if origin is dict and len(args) == 2:
        return Shape("dict", item=shape_of(args[1]))
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return Shape("model", model=annotation)
    return LEAF


_SCALARS = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}


def type_text(annotation: Any, meta: Sequence[Any] = ()) -> str:
    """A short readable type: ``string``, ``list of string``, ``"low" | "high"``, ``mapping``."""
    if _is_step_list(meta):
        return "list of steps"
    ref = _schema_ref(meta)
    if ref is not None:
        return ref
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return type_text(args[0], args[1:])
    if origin is typing.Union or origin is types.UnionType:
        return " or ".join(type_text(a) for a in _non_none(args))
    if origin is Literal:
        return " | ".join(_literal(a) for a in args)
    if origin is list:
        return f"list of {type_text(args[0])}" if args else "list"
    if origin is dict:
        return f"mapping of names to {type_text(args[1])}" if len(args) == 2 else "mapping"
    if annotation is Any:
        return "any value"
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return "mapping"
        for cls, name in _SCALARS.items():
            if annotation is cls:
                return name
    return "value"


def _literal(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    return str(value)


def field_of(model: type[BaseModel], key: str) -> FieldInfo | None:
    """The field a YAML key names (aliases such as ``with``/``else``/``while`` included)."""
    for name, info in model.model_fields.items():
        if (info.alias or name) == key:
            return info
    return None


def step_kind(node: Node | None) -> str | None:
    if not isinstance(node, MappingNode):
        return None
    kinds = [k for k in node if isinstance(k, str) and k in m.STEP_KINDS]
    return kinds[0] if len(kinds) == 1 else None


def _step_model(node: Node | None, key: str) -> tuple[type[BaseModel], str | None]:
    kind = step_kind(node)
    if kind is not None:
        return m.STEP_KINDS[kind], kind
    if key in m.STEP_KINDS:
        return m.STEP_KINDS[key], key
    if field_of(m.CommonStep, key) is not None:
        return m.CommonStep, None
    for name, cls in m.STEP_KINDS.items():
        if field_of(cls, key) is not None:
            return cls, name
    return m.CommonStep, None


def _default(info: FieldInfo) -> str | None:
    value = info.default
    if value is PydanticUndefined or value is None or info.default_factory is not None:
        return None
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float | str):
        return f"{value}"
    return None


def describe_path(kind: FileKind, segments: Sequence[Segment]) -> KeyDoc | NameDoc | None:
    """The documentation of the last key of ``segments`` (a path from the file's root)."""
    root = ROOT_MODELS.get(kind)
    if root is None or not segments:
        return None
    shape = Shape("model", model=root)
    parent: Node | None = None
    section = ""
    step: str | None = None
    for i, seg in enumerate(segments):
        last = i == len(segments) - 1
        if shape.kind == "step":
            model, step = _step_model(parent, str(seg.key))
            shape = Shape("model", model=model)
        if shape.kind == "model" and shape.model is not None:
            if not isinstance(seg.key, str):
                return None
            info = field_of(shape.model, seg.key)
            if info is None:
                return None
            if last:
                return KeyDoc(
                    key=seg.key,
                    owner=shape.model,
                    description=info.description or "",
                    type=type_text(info.annotation, info.metadata),
                    required=info.is_required(),
                    default=_default(info),
                    step_kind=step,
                    kind_doc=_doc(m.STEP_KINDS[seg.key])
                    if step == seg.key and seg.key in m.STEP_KINDS
                    else None,
                )
            section = seg.key
            shape = shape_of(info.annotation, info.metadata)
            if shape.kind != "steps":
                step = None
        elif shape.kind in ("list", "steps") and shape.item is not None:
            if not isinstance(seg.key, int):
                return None
            shape = shape.item
        elif shape.kind == "dict" and shape.item is not None:
            if last:
                item = shape.item
                if item.kind == "model" and item.model is not None:
                    description = _doc(item.model)
                elif item.kind == "steps":
                    description = "A named list of steps."
                else:
                    description = ""
                return NameDoc(str(seg.key), section, description)
            shape = shape.item
        else:
            return None
        parent = seg.value
    return None
