"""lait_core.engine.mcp.forms: reading form schemas (SEP-1330 choice shapes, SEP-1034 defaults)
and parsing typed answers."""

from __future__ import annotations

import pytest

from lait_core.engine.mcp.forms import Choice, FormInputError, form_fields, parse_value, with_defaults

SCHEMA = {
    "type": "object",
    "properties": {
        "untitled": {"type": "string", "enum": ["option1", "option2"], "default": "option2"},
        "titled": {
            "type": "string",
            "oneOf": [{"const": "v1", "title": "First"}, {"const": "v2", "title": "Second"}],
        },
        "legacy": {"type": "string", "enum": ["opt1", "opt2"], "enumNames": ["Option One", "Option Two"]},
        "multi": {"type": "array", "items": {"type": "string", "enum": ["a", "b", "c"]}, "maxItems": 2},
        "titled_multi": {
            "type": "array",
            "items": {"anyOf": [{"const": "x", "title": "Ex"}, {"const": "y", "title": "Why"}]},
            "minItems": 1,
            "default": ["y"],
        },
        "count": {"type": "integer", "title": "How many", "default": 3},
        "ratio": {"type": "number"},
        "ok": {"type": "boolean", "default": False},
        "name": {"type": "string", "description": "Your name"},
    },
    "required": ["name", "titled"],
}


def test_fields_kinds_choices_and_defaults() -> None:
    fields = {f.name: f for f in form_fields(SCHEMA)}
    assert list(fields) == list(SCHEMA["properties"])  # type: ignore[call-overload]
    assert fields["untitled"].kind == "choice" and fields["untitled"].choices == (
        Choice("option1"),
        Choice("option2"),
    )
    assert fields["titled"].choices == (Choice("v1", "First"), Choice("v2", "Second"))
    assert fields["titled"].required and fields["name"].required and not fields["ok"].required
    assert fields["legacy"].choices[1] == Choice("opt2", "Option Two")
    assert fields["multi"].kind == "multi" and fields["multi"].max_items == 2
    assert fields["titled_multi"].type_text == "any of Ex (x), Why (y)"
    assert fields["titled_multi"].default_text() == "y" and fields["ok"].default_text() == "no"
    assert fields["count"].about == "How many" and fields["name"].about == "Your name"
    assert not fields["ratio"].has_default and fields["ok"].has_default


def test_with_defaults_fills_only_what_is_left_out() -> None:
    assert with_defaults(SCHEMA, {"name": "Ann", "count": 7}) == {
        "name": "Ann",
        "count": 7,
        "untitled": "option2",
        "titled_multi": ["y"],
        "ok": False,
    }
    assert with_defaults(None, {"a": 1}) == {"a": 1}
    assert with_defaults({"properties": "nonsense"}, None) == {}


@pytest.mark.parametrize(
    ("name", "typed", "value"),
    [
        ("titled", "2", "v2"),
        ("titled", "v1", "v1"),
        ("titled", "second", "v2"),
        ("legacy", "Option One", "opt1"),
        ("multi", "1, c", ["a", "c"]),
        ("multi", "b,b", ["b"]),
        ("titled_multi", "Why, 1", ["y", "x"]),
        ("count", " 12 ", 12),
        ("ratio", "2.5", 2.5),
        ("ratio", "4", 4),
        ("ok", "Yes", True),
        ("ok", "n", False),
        ("name", "  Ann Lee ", "Ann Lee"),
    ],
)
def test_parse_value(name: str, typed: str, value: object) -> None:
    field = next(f for f in form_fields(SCHEMA) if f.name == name)
    assert parse_value(field, typed) == value


@pytest.mark.parametrize(
    ("name", "typed", "message"),
    [
        ("titled", "3", "'3' is not one of the choices"),
        ("multi", "a, b, c", "choose at most 2"),
        ("titled_multi", " , ", "choose at least 1"),
        ("count", "1.5", "'1.5' is not a whole number"),
        ("ratio", "lots", "'lots' is not a number"),
        ("ok", "maybe", "answer yes or no"),
    ],
)
def test_parse_value_errors(name: str, typed: str, message: str) -> None:
    field = next(f for f in form_fields(SCHEMA) if f.name == name)
    with pytest.raises(FormInputError, match=message):
        parse_value(field, typed)
