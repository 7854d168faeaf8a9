"""lait's deliberately partial JSON Schema check: `type`, `enum` and `required`, recursing
through `properties` and `items` only. Unknown type names match anything; extra fields are
never rejected. (The original tool's semantics; a full validator would reject more.)"""

from __future__ import annotations

import json
from typing import Any

_TYPE_TESTS = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: (
        (isinstance(v, int) and not isinstance(v, bool)) or (isinstance(v, float) and v.is_integer())
    ),
    "number": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
}


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "integer" if value.is_integer() else "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list):
        return "array"
    return "object"


def check_value(value: Any, schema: Any, path: str = "input") -> list[str]:
    """Messages for every way ``value`` breaks ``schema`` (empty when it conforms)."""
    errors: list[str] = []
    stack: list[tuple[Any, Any, str]] = [(value, schema, path)]
    while stack:
        val, sch, where = stack.pop()
        if not isinstance(sch, dict):
            continue
        t = sch.get("type")
        names = (
            [t] if isinstance(t, str) else [x for x in t if isinstance(x, str)] if isinstance(t, list) else []
        )
        if names and not any(n not in _TYPE_TESTS or _TYPE_TESTS[n](val) for n in names):
            errors.append(f"{where} must be of type {' or '.join(names)} (got {type_name(val)})")
            continue
        enum = sch.get("enum")
        if isinstance(enum, list) and not any(_json_equal(val, e) for e in enum):
            shown = ", ".join(json.dumps(e, ensure_ascii=False) for e in enum)
            errors.append(f"{where} must be one of [{shown}] (got {json.dumps(val, ensure_ascii=False)})")
        if isinstance(val, dict):
            required = sch.get("required")
            if isinstance(required, list):
                missing = [r for r in required if isinstance(r, str) and r not in val]
                if missing:
                    errors.append(f"{where} is missing required field(s): {', '.join(missing)}")
            props = sch.get("properties")
            if isinstance(props, dict):
                for key, sub in reversed(list(props.items())):
                    if key in val:
                        stack.append((val[key], sub, f"{where}.{key}"))
        elif isinstance(val, list):
            items = sch.get("items")
            if isinstance(items, dict):
                for i in range(len(val) - 1, -1, -1):
                    stack.append((val[i], items, f"{where}[{i}]"))
    return errors


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    return bool(a == b)
