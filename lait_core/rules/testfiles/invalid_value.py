"""LAIT702 test-invalid-value: a test or eval file value has the wrong type, a required key is missing,
or an assertion has no known ``type``."""

from __future__ import annotations

import typing
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field, create_model

from lait_core.documents.validate import Codes, describe, first_line, suggest, validate_mapping
from lait_core.rules.registry import Example, rule
from lait_core.rules.testfiles import unknown_key
from lait_core.syntax.diagnostics import Diagnostic, Fix, Severity
from lait_core.syntax.yaml.tree import MappingNode, Node, SequenceNode

CODE = "LAIT702"

_WORKFLOW = ("wf.yml", "steps:\n  - prompt: Say hi\n")

RULE = rule(
    CODE,
    "test-invalid-value",
    Severity.ERROR,
    "A test or eval value has the wrong type, a required key is missing, or an assertion type is unknown.",
    "A test file needs `workflow` and `replay`, an eval file `target` (one of its two forms) and `cases` "
    "(each with a string `input`); `assert` is a list of mappings, each with a `type` of "
    "`equals`, `contains`, `jq`, `tool_called`, `usage`, `step_output` or (in eval files) `llm_judge`, "
    "and that type's required fields (`value`, `expr`, `name`, `id` and a nested `assert`, `criteria`). "
    "An `llm_judge` assertion in a test file always fails (`lait test` calls no model), so it is "
    "reported too.",
    Example(
        "workflow: wf.yml\nreplay: tape\nassert:\n  - type: contain\n    value: hi\n",
        "smoke.test.yml",
        extra=(_WORKFLOW, ("tape/.keep", "")),
    ),
    Example(
        "workflow: wf.yml\nreplay: tape\nassert:\n  - type: contains\n    value: hi\n",
        "smoke.test.yml",
        extra=(_WORKFLOW, ("tape/.keep", "")),
    ),
)


# -- the check (LAIT701 and LAIT702: the shape of a test file and of every assertion) -------------


@dataclass(frozen=True, slots=True)
class AssertionNode:
    """One assertion of the file whose ``type`` is known (nested ``step_output`` ones included)."""

    node: MappingNode
    type: str
    prefix: str
    """Its place for messages: ``assert[0]``, ``assert[1].assert[0]``, ``cases[2].assert[0]``."""


def assertion_models() -> dict[str, type[BaseModel]]:
    """``type`` value -> the model of that assertion (from lait_core.testing.definition)."""
    from lait_core.testing.definition import Assertion

    union = typing.get_args(Assertion)[0]
    out: dict[str, type[BaseModel]] = {}
    for cls in typing.get_args(union):
        out[typing.get_args(cls.model_fields["type"].annotation)[0]] = cls
    return out


def _loose(model: type[BaseModel]) -> type[BaseModel]:
    """``model`` with its lists of checked-one-by-one items (``assert``, an eval file's ``cases``) taken
    as any list."""
    cached = _LOOSE.get(model)
    if cached is None:
        fields: dict[str, Any] = {}
        for name, alias in (("assert_", "assert"), ("cases", None)):
            info = model.model_fields.get(name)
            if info is not None:
                default: Any = ... if info.is_required() else []
                fields[name] = (list[Any], Field(default, alias=alias) if alias else Field(default))
        cached = create_model(f"Loose{model.__name__}", __base__=model, **fields) if fields else model
        _LOOSE[model] = cached
    return cached


_LOOSE: dict[type[BaseModel], type[BaseModel]] = {}
CODES = Codes(unknown=unknown_key.CODE, invalid=CODE, by_field=(), elsewhere=frozenset())


def check_top(
    root: Node, model: type[BaseModel], where: str, out: list[Diagnostic], prefix: str = ""
) -> None:
    """A mapping's own keys (its assertion lists and eval cases are checked item by item)."""
    validate_mapping(root, _loose(model), CODES, out, where=where, prefix=prefix)


def check_assertions(
    items: Node | None, prefix: str, in_test: bool, out: list[Diagnostic], found: list[AssertionNode]
) -> None:
    """Every item of an ``assert:`` list: a mapping with a known ``type`` and that type's fields."""
    if not isinstance(items, SequenceNode):
        return  # absent, or not a list: the holder's validation says so
    models = assertion_models()
    for i, item in enumerate(items.items):
        where = f"{prefix}assert[{i}]"
        if not isinstance(item, MappingNode):
            out.append(
                Diagnostic(
                    CODE,
                    f"'{where}' must be a mapping with a 'type' key (got {describe(item.to_python())})",
                    item.range,
                )
            )
            continue
        type_node = item.get("type")
        if type_node is None:
            out.append(
                Diagnostic(
                    CODE,
                    f"'{where}' is missing the required key 'type' (one of: {', '.join(models)})",
                    first_line(item),
                )
            )
            continue
        kind = type_node.to_python()
        if not isinstance(kind, str) or kind not in models:
            listed = ", ".join(models)
            guess = suggest(kind, list(models)) if isinstance(kind, str) else None
            if not isinstance(kind, str):
                message = f"'{where}.type' must be one of {listed} (got {describe(kind)})"
            elif guess:
                message = f"unknown assertion type '{kind}' in '{where}'; did you mean '{guess}'?"
            else:
                message = f"unknown assertion type '{kind}' in '{where}'; expected one of: {listed}"
            fixes = (Fix(f"Replace with '{guess}'", type_node.range, guess),) if guess else ()
            out.append(Diagnostic(CODE, message, type_node.range, fixes=fixes))
            continue
        if kind == "llm_judge" and in_test:
            out.append(
                Diagnostic(
                    CODE,
                    f"'{where}': 'llm_judge' always fails in a test file (lait test calls no model); use it in"
                    " an eval file",
                    type_node.range,
                )
            )
        validate_mapping(item, _loose(models[kind]), CODES, out, where=f"'{where}'", prefix=where)
        found.append(AssertionNode(item, kind, where))
        if kind == "step_output":
            check_assertions(item.get("assert"), f"{where}.", in_test, out, found)
