"""Validate a located mapping against a pydantic model and turn every error into a located diagnostic.

pydantic reports *what* is wrong with a path (``loc``); the located tree knows *where* that path
is. This module joins the two and words the message for a person: the key, the expected type
or range, the value found, and a "did you mean" fix for unknown keys.
"""

from __future__ import annotations

import difflib
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from lait_core.rules.agents.schema_name import CODE as SCHEMA_NAME
from lait_core.syntax.diagnostics import Diagnostic, Fix, same_word
from lait_core.syntax.positions import Range
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode

M = TypeVar("M", bound=BaseModel)

_RANGES = {
    "temperature": ("0.0", "2.0"),
    "default_temperature": ("0.0", "2.0"),
    "top_p": ("0.0", "1.0"),
    "default_top_p": ("0.0", "1.0"),
}
_EXPECTED = {
    "string_type": "a string",
    "int_type": "an integer",
    "int_from_float": "an integer",
    "float_type": "a number",
    "bool_type": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "literal_error": "",
    "none_required": "null",
}


@dataclass(frozen=True, slots=True)
class Codes:
    """The rule codes a document kind uses for unknown keys and invalid values."""

    unknown: str
    invalid: str
    by_field: tuple[tuple[str, str], ...] = (("schema_name", SCHEMA_NAME),)
    """Fields whose value errors belong to a rule of their own (field, code)."""
    elsewhere: frozenset[str] = frozenset(("input_schema", "output_schema"))
    """Fields whose value errors another check reports (schema sources: LAIT206)."""

    def for_field(self, name: str) -> str:
        return dict(self.by_field).get(name, self.invalid)


def describe(value: Any) -> str:
    """A short name for the type of a YAML value, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return f"the integer {value}"
    if isinstance(value, float):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 30 else value[:27] + "..."
        return f"the string {shown!r}"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return type(value).__name__


def first_line(node: Node) -> Range:
    """The node's range cut to its first line (for errors about a whole mapping)."""
    rng = node.range
    if rng.end.line == rng.start.line:
        return rng
    if isinstance(node, MappingNode) and node.pairs:
        return node.pairs[0][0].range
    return Range(rng.start, rng.start)


def suggest(word: str, choices: Sequence[str]) -> str | None:
    matches = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return matches[0] if matches else None


def _models_in(annotation: Any) -> list[type[BaseModel]]:
    out: list[type[BaseModel]] = []
    stack = [annotation]
    while stack:
        ann = stack.pop()
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            out.append(ann)
            continue
        origin = typing.get_origin(ann)
        if origin is typing.Annotated:
            stack.append(typing.get_args(ann)[0])
        elif origin is not None or isinstance(ann, types.UnionType):
            stack.extend(typing.get_args(ann))
    return out


def accepted_keys(model: type[BaseModel]) -> list[str]:
    return [info.alias or name for name, info in model.model_fields.items()]


def _field(model: type[BaseModel], key: Any) -> Any:
    for name, info in model.model_fields.items():
        if (info.alias or name) == key:
            return info
    return None


class _Located:
    """Follows a pydantic ``loc`` through the located tree (and the model classes beside it)."""

    def __init__(self, root: Node, model: type[BaseModel], loc: tuple[Any, ...]) -> None:
        node: Node = root
        key_node: Node | None = None
        parent: Node = root
        cur_model: type[BaseModel] | None = model
        parent_model: type[BaseModel] | None = model
        path: list[str] = []
        for part in loc:
            if isinstance(node, MappingNode) and isinstance(part, str) and part in node:
                parent, parent_model = node, cur_model
                key_node = node.key_node(part)
                node = node.get(part)  # type: ignore[assignment]
                path.append(part if not path else f".{part}")
                info = _field(cur_model, part) if cur_model else None
                if info is not None:
                    found = _models_in(info.annotation)
                    cur_model = found[0] if found else None
            elif isinstance(node, SequenceNode) and isinstance(part, int) and 0 <= part < len(node.items):
                parent, parent_model = node, cur_model
                key_node = None
                node = node.items[part]
                path.append(f"[{part}]")
            elif isinstance(part, str) and part == "[key]":
                node = key_node or node
            # anything else is a union member's tag ('str', 'list[str]'): not a place in the document
        self.node = node
        self.key_node = key_node
        self.parent = parent
        self.model = cur_model
        self.parent_model = parent_model
        self.path = "".join(path)
        self.last = loc[-1] if loc else None


def _join(prefix: str, path: str) -> str:
    if not prefix:
        return path
    if not path:
        return prefix
    return prefix + ("" if path.startswith("[") else ".") + path


def pydantic_diagnostics(
    root: MappingNode,
    model: type[BaseModel],
    exc: ValidationError,
    codes: Codes,
    *,
    where: str,
    prefix: str = "",
) -> list[Diagnostic]:
    """Located diagnostics for every error of ``exc`` (validation of ``root`` against ``model``)."""
    out: list[Diagnostic] = []
    grouped: dict[tuple[int, str], list[dict[str, Any]]] = {}
    order: list[tuple[int, str]] = []
    for err in exc.errors(include_url=False):
        loc = tuple(err["loc"])
        if err["type"] == "extra_forbidden":
            out.append(_unknown_key(root, model, loc, codes, where, prefix))
            continue
        if err["type"] == "missing":
            at = _Located(root, model, loc[:-1])
            joined = _join(prefix, at.path)
            holder = f"'{joined}'" if joined else where
            key = loc[-1]
            node = at.node
            rng = first_line(node) if not isinstance(at.key_node, Node) else at.key_node.range
            out.append(Diagnostic(codes.invalid, f"{holder} is missing the required key '{key}'", rng))
            continue
        at = _Located(root, model, loc)
        group = (id(at.node), at.path)
        if group not in grouped:
            grouped[group] = []
            order.append(group)
        grouped[group].append(dict(err))
    for group in order:
        errs = grouped[group]
        at = _Located(root, model, tuple(errs[0]["loc"]))
        if str(at.last) in codes.elsewhere or _field_of(errs[0]) in codes.elsewhere:
            continue
        out.append(_value_error(at, errs, codes, prefix))
    return out


def _field_of(err: dict[str, Any]) -> str:
    """The innermost named field of an error's loc (union tags and indexes skipped)."""
    names = [p for p in err["loc"] if isinstance(p, str) and p not in ("str", "bool") and "[" not in p]
    return names[-1] if names else ""


def _unknown_key(
    root: MappingNode, model: type[BaseModel], loc: tuple[Any, ...], codes: Codes, where: str, prefix: str
) -> Diagnostic:
    at = _Located(root, model, loc)
    key = str(loc[-1])
    holder_path = at.path[: -len(key)].rstrip(".") if at.path.endswith(key) else at.path
    holder = f"'{_join(prefix, holder_path)}'" if holder_path or prefix else where
    target = at.key_node or at.node
    choices = accepted_keys(at.parent_model) if at.parent_model else []
    guess = suggest(key, choices)
    if guess:
        message = f"unknown key '{key}' in {holder}; did you mean '{guess}'?"
        fixes: tuple[Fix, ...] = (
            Fix(f"Replace with '{guess}'", target.range, guess, safe=same_word(key, guess)),
        )
    else:
        listed = ", ".join(choices)
        message = f"unknown key '{key}' in {holder}" + (f"; expected one of: {listed}" if listed else "")
        fixes = ()
    return Diagnostic(codes.unknown, message, target.range, fixes=fixes)


def _value_error(at: _Located, errs: list[dict[str, Any]], codes: Codes, prefix: str) -> Diagnostic:
    err = errs[0]
    kind = err["type"]
    name = _join(prefix, at.path) or str(at.last)
    value = err.get("input")
    node = at.node
    ctx = err.get("ctx") or {}
    field_name = str(at.last) if at.last is not None else ""
    if kind in ("greater_than_equal", "less_than_equal", "greater_than", "less_than"):
        bounds = _RANGES.get(field_name)
        if bounds:
            message = f"'{name}' is {value}; it must be between {bounds[0]} and {bounds[1]}"
        elif "ge" in ctx:
            message = f"'{name}' is {value}; it must be at least {ctx['ge']}"
        elif "le" in ctx:
            message = f"'{name}' is {value}; it must be at most {ctx['le']}"
        else:
            message = f"'{name}' is {value}; {err['msg'].lower()}"
    elif kind == "string_pattern_mismatch":
        if field_name == "id":
            message = (
                f"invalid step id '{value}': use a letter or '_' followed by letters, digits, '_' or '-'"
            )
        elif field_name == "schema_name":
            message = f"invalid schema name '{value}': use 1 to 64 characters of A-Z, a-z, 0-9, '_' or '-'"
        elif field_name == "model":
            message = f"'{name}' must not be blank"
        else:
            message = f"'{name}' does not match the pattern {ctx.get('pattern')}"
    elif kind in ("too_short", "string_too_short"):
        message = f"'{name}' must not be empty"
    elif kind == "finite_number":
        message = f"'{name}' must be a finite number (got {value})"
    elif kind == "literal_error":
        options = str(ctx.get("expected", "")).replace("True", "true").replace("False", "false")
        one_of = "one of " if " or " in options else ""
        message = f"'{name}' must be {one_of}{options} (got {describe(value)})"
        if options == "true":
            message = f"'{name}' only accepts 'true' (got {describe(value)})"
    elif kind in _EXPECTED:
        expected: list[str] = []
        for e in errs:
            word = _EXPECTED.get(e["type"])
            if word and word not in expected:
                expected.append(word)
        message = f"'{name}' must be {' or '.join(expected)} (got {describe(value)})"
    else:
        message = f"'{name}': {err['msg']}"
    return Diagnostic(codes.for_field(field_name), message, node.range)


def validate_mapping(
    node: Node,
    model: type[M],
    codes: Codes,
    out: list[Diagnostic],
    *,
    where: str,
    prefix: str = "",
    data: dict[str, Any] | None = None,
) -> M | None:
    """Validate ``node`` with ``model``; append diagnostics to ``out``; the instance when valid."""
    if not isinstance(node, MappingNode):
        value = node.to_python()
        if isinstance(node, ScalarNode) and value is None:
            data = {}
        else:
            out.append(
                Diagnostic(codes.invalid, f"{where} must be a mapping (got {describe(value)})", node.range)
            )
            return None
    if data is None:
        data = node.to_python() if isinstance(node, MappingNode) else {}
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        if isinstance(node, MappingNode):
            out.extend(pydantic_diagnostics(node, model, exc, codes, where=where, prefix=prefix))
        else:
            out.append(Diagnostic(codes.invalid, f"{where}: {exc.errors()[0]['msg']}", node.range))
        return None
