"""Binding a workflow's ``inputs:`` and typing its initial value (docs/workflows.md)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from lait_core.documents.json_check import check_value
from lait_core.engine.workflow.workflow_errors import WorkflowError
from lait_core.support.keyvalue import KeyValueError, parse_key_values


class InputError(WorkflowError):
    """A bad ``--input``, ``with:`` binding or initial value."""


def parse_input_options(options: Sequence[str]) -> dict[str, str]:
    """``["k=v", ...]`` from repeated ``--input`` options; a repeated key keeps the last value."""
    try:
        return parse_key_values(options, "--input")
    except KeyValueError as exc:
        raise InputError(str(exc)) from None


def input_schema(declaration: Any) -> Any:
    """A declared input's schema: a mapping as is, a type name as ``{type: name}``, null as ``{}``."""
    if declaration is None:
        return {}
    if isinstance(declaration, str):
        return {"type": declaration}
    return declaration


def parse_text(text: str, schema: Any) -> Any:
    """CLI text for one input: verbatim when the schema's type is exactly ``"string"``, else JSON
    when it parses, else the text."""
    if isinstance(schema, dict) and schema.get("type") == "string":
        return text
    try:
        return json.loads(text)
    except ValueError:
        return text


def bind_inputs(
    declared: Mapping[str, Any] | None, provided: Mapping[str, Any], *, from_text: bool
) -> dict[str, Any]:
    """The resolved inputs: provided values (CLI text parsed per schema when ``from_text``), then
    defaults; unknown and missing names are errors and every value is validated."""
    names = list(declared or {})
    for key in provided:
        if declared is None:
            raise InputError(f"input '{key}' was provided, but the workflow declares no 'inputs:'")
        if key not in declared:
            raise InputError(f"unknown input '{key}'; the workflow declares: {', '.join(names)}")
    out: dict[str, Any] = {}
    for name in names:
        assert declared is not None
        schema = input_schema(declared[name])
        if name in provided:
            raw = provided[name]
            value = parse_text(raw, schema) if from_text and isinstance(raw, str) else raw
        elif isinstance(schema, dict) and "default" in schema:
            value = schema["default"]
        else:
            desc = schema.get("description") if isinstance(schema, dict) else None
            about = f" ({desc})" if isinstance(desc, str) and desc else ""
            raise InputError(f"missing required input '{name}'{about}")
        problems = check_value(value, schema, f"inputs.{name}")
        if problems:
            raise InputError("; ".join(problems))
        out[name] = value
    return out


def initial_value(prompt: str | None, schema: Any) -> Any:
    """PROMPT typed by the top-level ``input_schema`` (``inputs.rs::resolve_initial``)."""
    if prompt is None:
        return None
    if schema is None or not isinstance(schema, dict):
        return prompt
    kind = schema.get("type")
    if kind == "string":
        return prompt
    if kind is not None:
        try:
            return json.loads(prompt)
        except ValueError as exc:
            raise InputError(
                f"the workflow's 'input_schema' expects {kind if isinstance(kind, str) else 'typed'} input,"
                f" but PROMPT is not valid JSON: {exc}"
            ) from None
    try:
        return json.loads(prompt)
    except ValueError:
        return prompt
