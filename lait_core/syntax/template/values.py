"""Value conversions shared by the renderer and callers: text form, JSON form, truthiness."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any


def json_form(value: Any) -> str:
    """Compact JSON (``{"a":1,"b":[1,2]}``), non-ASCII kept as is; strings are quoted."""
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)


def text_form(value: Any) -> str:
    """A string as is; anything else as compact JSON (``1.5``, ``true``, ``null``, ``[1,2]``)."""
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str(value)
    return json_form(value)


def type_name(value: Any) -> str:
    """The JSON type name of a value, for messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, Mapping):
        return "object"
    return type(value).__name__


def a_type_name(value: Any) -> str:
    """``type_name`` with an article, for messages: "a string", "an array", "null"."""
    name = type_name(value)
    if name == "null":
        return name
    return ("an " if name[0] in "aeiou" else "a ") + name


def is_truthy(value: Any, include_zero: bool = False) -> bool:
    """Handlebars truthiness: ``false``, ``null``, ``""``, ``0``, ``[]`` and ``{}`` are falsy.

    With ``include_zero`` (the ``includeZero=true`` hash argument of ``#if``) zero is truthy.
    """
    if value is None or value is False:
        return False
    if value is True:
        return True
    if isinstance(value, int | float):
        if math.isnan(value):
            return False
        return include_zero or value != 0
    if isinstance(value, str | list | tuple | Mapping):
        return len(value) > 0
    return True
