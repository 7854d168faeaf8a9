"""JSON Schemas (draft 2020-12) generated from the document models.

The checked-in copies in ``schemas/`` are what editors attach (``# yaml-language-server:
$schema=...``); a test fails when they drift from what this module generates. The pydantic
models stay the source of truth; this module adds what a model cannot say by itself (the
step-kind union, schema sources, `oneOf`/`not` constraints between keys).
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel
from pydantic.json_schema import models_json_schema

from lait_core.documents import document_models as m

KINDS = ("config", "agent", "workflow", "test", "eval")
DRAFT = "https://json-schema.org/draft/2020-12/schema"

_SCHEMA_SOURCE = {
    "description": "An inline JSON Schema (mapping or boolean), or {file: path} relative to this file.",
    "oneOf": [
        {
            "type": "object",
            "properties": {
                "file": {"type": "string", "minLength": 1, "description": "Path to a JSON Schema file."}
            },
            "required": ["file"],
            "additionalProperties": False,
        },
        {
            "anyOf": [
                {"type": "boolean"},
                {
                    "type": "object",
                    "not": {
                        "properties": {"file": True},
                        "required": ["file"],
                        "maxProperties": 1,
                    },
                },
            ]
        },
    ],
}
_INPUT_DEFINITION = {
    "description": "A type name, a full JSON Schema (a `default` makes the input optional), or null (any value).",
    "oneOf": [
        {"enum": ["string", "number", "integer", "boolean", "object", "array", "null"]},
        {"type": "object"},
        {"type": "null"},
    ],
}
_KEY_PAIR = {"not": {"required": ["api_key", "api_key_cmd"]}}


def _tidy(node: Any) -> Any:
    """Resolve our `x-lait-ref` markers to `$ref`s and drop pydantic's per-property titles."""
    if isinstance(node, dict):
        out: dict[str, Any] = {}
        for k, v in node.items():
            if k == "x-lait-ref":
                out["$ref"] = f"#/$defs/{v}"
            elif k == "properties" and isinstance(v, dict):
                out[k] = {
                    pk: _tidy(
                        {kk: vv for kk, vv in pv.items() if kk != "title"} if isinstance(pv, dict) else pv
                    )
                    for pk, pv in v.items()
                }
            else:
                out[k] = _tidy(v)
        return out
    if isinstance(node, list):
        return [_tidy(x) for x in node]
    return node


def _generate(models: list[type[BaseModel]]) -> dict[str, Any]:
    _keys, schema = models_json_schema(
        [(cls, "validation") for cls in models], by_alias=True, ref_template="#/$defs/{model}"
    )
    defs: dict[str, Any] = schema.get("$defs", {})
    return defs


def _root(defs: dict[str, Any], name: str) -> dict[str, Any]:
    root = dict(defs.pop(name))
    out: dict[str, Any] = {"$schema": DRAFT}
    out.update(root)
    return out


def _common_defs(defs: dict[str, Any]) -> None:
    for name in ("ProviderConfig", "JevConfig"):
        if name in defs:
            defs[name].update(_KEY_PAIR)
    if "McpServerConfig" in defs:
        defs["McpServerConfig"]["oneOf"] = [{"required": ["command"]}, {"required": ["url"]}]
    if "CompactionConfig" in defs:
        defs["CompactionConfig"]["anyOf"] = [
            {"required": ["trigger_rounds"]},
            {"required": ["trigger_tokens"]},
        ]
    for name in ("AgentFrontmatter", "InlineAgent", "PromptStep"):
        if name in defs:
            defs[name]["dependentRequired"] = {"schema_name": ["output_schema"]}


def _assertion_defs(defs: dict[str, Any]) -> None:
    """Descriptions for the assertion models, and one ``assertion`` definition their lists refer to
    (pydantic's OpenAPI-only ``discriminator`` dropped: a ``const`` ``type`` already tells them apart)."""
    from lait_core.rules.testfiles.docs import ASSERTION_KEYS, ASSERTION_TYPES
    from lait_core.rules.testfiles.invalid_value import assertion_models

    members = []
    for type_name, cls in assertion_models().items():
        sub = defs[cls.__name__]
        sub["description"] = ASSERTION_TYPES[type_name]
        for key, prop in sub["properties"].items():
            prop["description"] = ASSERTION_KEYS[key]
            if key == "assert":
                sub["properties"][key] = {
                    "description": ASSERTION_KEYS[key],
                    "type": "array",
                    "items": {"$ref": "#/$defs/assertion"},
                }
        members.append({"$ref": f"#/$defs/{cls.__name__}"})
    defs["assertion"] = {"description": "One assertion: a mapping with a `type` key.", "oneOf": members}


def _test_schema() -> tuple[dict[str, Any], dict[str, Any]]:
    from lait_core.rules.testfiles.docs import TEST_KEYS
    from lait_core.testing.definition import TestDefinition

    defs = _generate([TestDefinition])
    _assertion_defs(defs)
    schema = _root(defs, "TestDefinition")
    schema["description"] = "A `lait test` file: a workflow replayed from its cassette, then assertions."
    for key, prop in schema["properties"].items():
        prop["description"] = TEST_KEYS[key]
    schema["properties"]["assert"] = {
        "description": TEST_KEYS["assert"],
        "type": "array",
        "items": {"$ref": "#/$defs/assertion"},
    }
    return schema, defs


def _eval_schema() -> tuple[dict[str, Any], dict[str, Any]]:
    from lait_core.rules.testfiles.docs import EVAL_CASE_KEYS, EVAL_KEYS, EVAL_TARGET_KEYS
    from lait_core.testing.definition import EvalDefinition

    defs = _generate([EvalDefinition])
    _assertion_defs(defs)
    schema = _root(defs, "EvalDefinition")
    for key, prop in schema["properties"].items():
        prop["description"] = EVAL_KEYS[key]
    target = defs["EvalTarget"]
    target["description"] = "What each case runs: a workflow, or one model call with a prompt template."
    for key, prop in target["properties"].items():
        prop["description"] = EVAL_TARGET_KEYS[key]
    target["oneOf"] = [
        {"required": ["workflow"], "not": {"anyOf": [{"required": ["model"]}, {"required": ["prompt"]}]}},
        {
            "required": ["model", "prompt"],
            "not": {"anyOf": [{"required": ["workflow"]}, {"required": ["inputs"]}]},
        },
    ]
    case = defs["EvalCase"]
    case["description"] = "One case: an input and the assertions each of its runs must pass."
    for key, prop in case["properties"].items():
        prop["description"] = EVAL_CASE_KEYS[key]
    case["properties"]["assert"] = {
        "description": EVAL_CASE_KEYS["assert"],
        "type": "array",
        "items": {"$ref": "#/$defs/assertion"},
    }
    return schema, defs


def generate(kind: str) -> dict[str, Any]:
    if kind == "config":
        defs = _generate([m.Config])
        _common_defs(defs)
        schema = _root(defs, "Config")
        schema.update(_KEY_PAIR)
    elif kind == "agent":
        defs = _generate([m.AgentFrontmatter])
        _common_defs(defs)
        defs["schemaSource"] = _SCHEMA_SOURCE
        schema = _root(defs, "AgentFrontmatter")
        schema["not"] = {"required": ["system"]}
    elif kind == "workflow":
        kinds = list(m.STEP_KINDS.values())
        defs = _generate([m.Workflow, *kinds])
        _common_defs(defs)
        defs["schemaSource"] = _SCHEMA_SOURCE
        defs["inputDefinition"] = _INPUT_DEFINITION
        defs["stepList"] = {"type": "array", "minItems": 1, "items": {"$ref": "#/$defs/step"}}
        defs["step"] = {
            "description": "One step: a mapping with exactly one kind key.",
            "oneOf": [{"$ref": f"#/$defs/{cls.__name__}"} for cls in kinds],
        }
        for key, cls in m.STEP_KINDS.items():
            defs[cls.__name__]["required"] = sorted({key, *defs[cls.__name__].get("required", [])})
        schema = _root(defs, "Workflow")
    elif kind == "test":
        schema, defs = _test_schema()
    elif kind == "eval":
        schema, defs = _eval_schema()
    else:
        raise ValueError(f"unknown schema kind {kind!r}")
    if defs:
        schema["$defs"] = dict(sorted(defs.items()))
    return dict(_tidy(schema))


def schema_text(kind: str) -> str:
    return json.dumps(generate(kind), indent=2, ensure_ascii=False) + "\n"
