"""What the models allow at a YAML path: the shapes completion walks (keys, lists, steps, scalars).

The pydantic models of :mod:`lait_core.documents.document_models` are the only source of key names, types,
enum values and descriptions. A step's model is picked by its kind key; step lists (``steps:``,
``on_error:``, ``group:``, ``else:``, parallel branches, switch cases' ``steps:``) lead to steps.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, WithJsonSchema
from pydantic.fields import FieldInfo
from pydantic_core import PydanticUndefined

from lait_core.documents import document_models as m
from lait_core.language.context import YamlPath
from lait_core.lint.discovery import FileKind

ShapeKind = Literal["model", "map", "list", "steps", "step", "scalar", "schema", "any"]

ROOT_MODELS: dict[FileKind, type[BaseModel]] = {
    FileKind.CONFIG: m.Config,
    FileKind.AGENT: m.AgentFrontmatter,
    FileKind.WORKFLOW: m.Workflow,
}


@dataclass(frozen=True, slots=True)
class Shape:
    kind: ShapeKind
    model: type[BaseModel] | None = None
    item: Shape | None = None
    literals: tuple[Any, ...] = ()
    boolean: bool = False
    schema_name: bool = False
    """A schema reference: a ``schemas:`` name is allowed."""


ANY = Shape("any")
SCALAR = Shape("scalar")
STEP = Shape("step")
STEPS = Shape("steps", item=STEP)


def _marker(meta: Sequence[Any]) -> dict[str, Any]:
    for x in meta:
        if isinstance(x, WithJsonSchema) and isinstance(x.json_schema, dict):
            return x.json_schema
    return {}


def shape_of(annotation: Any, meta: Sequence[Any] = ()) -> Shape:
    marker = _marker(meta)
    if marker.get("x-lait-ref") == "stepList":
        return STEPS
    if marker.get("x-lait-ref") == "schemaSource":
        return Shape("schema")
    if "oneOf" in marker:
        return Shape("schema", schema_name=True)
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return shape_of(args[0], args[1:])
    if origin is typing.Union or origin is types.UnionType:
        options = [a for a in args if a is not type(None)]
        if len(options) == 1:
            return shape_of(options[0])
        return SCALAR if all(_scalarish(a) for a in options) else ANY
    if origin is Literal:
        return Shape("scalar", literals=args)
    if origin is list:
        return Shape("list", item=shape_of(args[0]) if args else ANY)
    if origin is dict:
        return Shape("map", item=shape_of(args[1]) if len(args) == 2 else ANY)
    if annotation is bool:
        return Shape("scalar", boolean=True)
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return Shape("model", model=annotation)
    if annotation in (str, int, float):
        return SCALAR
    return ANY


def _scalarish(annotation: Any) -> bool:
    """``str | list[str]`` (a command) completes like a scalar."""
    if annotation in (str, int, float, bool):
        return True
    origin = typing.get_origin(annotation)
    if origin is typing.Annotated:
        return _scalarish(typing.get_args(annotation)[0])
    return origin is list


def field_of(model: type[BaseModel], key: str) -> FieldInfo | None:
    """The field a YAML key names (``with``/``else``/``while``/``break`` are aliases)."""
    for name, info in model.model_fields.items():
        if (info.alias or name) == key:
            return info
    return None


def fields(model: type[BaseModel]) -> list[tuple[str, FieldInfo]]:
    return [(info.alias or name, info) for name, info in model.model_fields.items()]


_SCALAR_NAMES = {str: "string", int: "integer", float: "number", bool: "boolean"}


def type_text(annotation: Any, meta: Sequence[Any] = ()) -> str:
    """A short readable type: ``string``, ``list of string``, ``"low" | "high"``, ``mapping``."""
    marker = _marker(meta)
    if marker.get("x-lait-ref") == "stepList":
        return "list of steps"
    if marker.get("x-lait-ref") == "schemaSource":
        return "JSON Schema"
    if "oneOf" in marker:
        return "`schemas:` name or JSON Schema"
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        return type_text(args[0], args[1:])
    if origin is typing.Union or origin is types.UnionType:
        return " or ".join(type_text(a) for a in args if a is not type(None))
    if origin is Literal:
        return " | ".join(literal_text(a) for a in args)
    if origin is list:
        return f"list of {type_text(args[0])}" if args else "list"
    if origin is dict:
        return f"mapping of names to {type_text(args[1])}" if len(args) == 2 else "mapping"
    if isinstance(annotation, type):
        if issubclass(annotation, BaseModel):
            return "mapping"
        name = _SCALAR_NAMES.get(annotation)
        if name:
            return name
    return "any value"


def literal_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def default_text(info: FieldInfo) -> str | None:
    value = info.default
    if value is PydanticUndefined or value is None or info.default_factory is not None:
        return None
    if isinstance(value, bool | int | float | str):
        return literal_text(value)
    return None


def model_doc(cls: type) -> str:
    doc = cls.__dict__.get("__doc__")
    return " ".join(doc.split()) if isinstance(doc, str) else ""


def step_model(kind: str | None, key: str | None = None) -> type[m.StepBase]:
    """The model of a step of ``kind``; without a kind, the first model that has ``key``."""
    if kind is not None:
        return m.STEP_KINDS[kind]
    if key is not None:
        if key in m.STEP_KINDS:
            return m.STEP_KINDS[key]
        if field_of(m.CommonStep, key) is None:
            for cls in m.STEP_KINDS.values():
                if field_of(cls, key) is not None:
                    return cls
    return m.CommonStep


@dataclass(frozen=True, slots=True)
class Place:
    """Where a path leads in the models."""

    shape: Shape
    owner: type[BaseModel] | None
    """The model whose field the path's last key names (None above any field)."""
    key: str | None
    """That field's YAML key."""
    info: FieldInfo | None
    steps: tuple[YamlPath, ...]
    """The paths of the steps the path passes through, outermost first."""


def walk(kind: FileKind, path: YamlPath, step_kind: Callable[[YamlPath], str | None]) -> Place | None:
    """Follow ``path`` through the models of a file of ``kind`` (None: the models say nothing there)."""
    root = ROOT_MODELS.get(kind)
    if root is None:
        return None
    shape = Shape("model", model=root)
    owner: type[BaseModel] | None = None
    key: str | None = None
    info: FieldInfo | None = None
    steps: list[YamlPath] = []
    for i, seg in enumerate(path):
        if shape.kind == "step":
            prefix = path[:i]
            steps.append(prefix)
            shape = Shape("model", model=step_model(step_kind(prefix), seg if isinstance(seg, str) else None))
        if shape.kind == "model" and shape.model is not None:
            if not isinstance(seg, str):
                return None
            found = field_of(shape.model, seg)
            if found is None:
                return None
            owner, key, info = shape.model, seg, found
            shape = shape_of(found.annotation, found.metadata)
        elif shape.kind in ("list", "steps") and shape.item is not None:
            if not isinstance(seg, int):
                return None
            shape = shape.item
        elif shape.kind == "map" and shape.item is not None:
            if not isinstance(seg, str):
                return None
            shape = shape.item
        else:
            return None
    if shape.kind == "step":
        steps.append(path)
    return Place(shape, owner, key, info, tuple(steps))
