"""Elicitation forms: the fields of a ``requestedSchema`` and the answers typed for them.

An MCP form is a flat object schema of primitive fields (spec 2025-11-25, elicitation). This
module reads one into :class:`FormField` objects -- text, integer, number, boolean, a single
choice or a multi-select -- with the shapes of SEP-1330 for choices:

* single choice: ``{type: string, enum: [...]}`` (untitled), ``{type: string, oneOf: [{const,
  title}...]}`` (titled), or the legacy ``enum`` + ``enumNames``;
* multi-select: ``{type: array, items: {type: string, enum: [...]}}`` (untitled) or ``items:
  {anyOf: [{const, title}...]}`` (titled), with ``minItems``/``maxItems``;

and SEP-1034 defaults (``default`` on every kind). :func:`with_defaults` fills the fields an
accepted answer leaves out with their defaults; :func:`parse_value` turns one typed answer into
the field's value (choices by number, value or title). Pure: no I/O, no ``mcp`` import.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

KINDS = ("string", "integer", "number", "boolean", "choice", "multi")


@dataclass(frozen=True, slots=True)
class Choice:
    value: str
    title: str | None = None

    @property
    def label(self) -> str:
        return f"{self.title} ({self.value})" if self.title and self.title != self.value else self.value


@dataclass(frozen=True, slots=True)
class FormField:
    name: str
    kind: str
    """One of :data:`KINDS`; an unknown ``type`` reads as ``string``."""
    title: str | None
    description: str | None
    required: bool
    default: Any = None
    has_default: bool = False
    choices: tuple[Choice, ...] = ()
    min_items: int | None = None
    max_items: int | None = None

    @property
    def type_text(self) -> str:
        if self.kind == "choice":
            return "one of " + ", ".join(c.label for c in self.choices)
        if self.kind == "multi":
            return "any of " + ", ".join(c.label for c in self.choices)
        return self.kind

    @property
    def about(self) -> str:
        return self.description or self.title or ""

    def default_text(self) -> str:
        """The default as the person types it (``yes``/``no`` for booleans, values by comma)."""
        value = self.default
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, list):
            return ", ".join(map(str, value))
        return str(value)


class FormInputError(ValueError):
    """A typed answer that does not fit its field; the message says what would."""


def _choices(schema: Mapping[str, Any]) -> tuple[Choice, ...] | None:
    """The choices of a string schema (``enum``, ``enumNames``, ``oneOf``/``anyOf`` of consts)."""
    options = schema.get("oneOf") or schema.get("anyOf")
    if (
        isinstance(options, list)
        and options
        and all(isinstance(o, Mapping) and "const" in o for o in options)
    ):
        return tuple(
            Choice(str(o["const"]), str(o["title"]) if isinstance(o.get("title"), str) else None)
            for o in options
        )
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        names = schema.get("enumNames")
        titles = names if isinstance(names, list) and len(names) == len(enum) else [None] * len(enum)
        return tuple(
            Choice(str(v), str(t) if t is not None else None) for v, t in zip(enum, titles, strict=True)
        )
    return None


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else None


def form_fields(schema: Mapping[str, Any] | None) -> list[FormField]:
    """The fields of a form schema in their order; a schema without ``properties`` has none."""
    if not isinstance(schema, Mapping):
        return []
    props = schema.get("properties")
    if not isinstance(props, Mapping):
        return []
    required = schema.get("required")
    required_names = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
    fields = []
    for name, sub in props.items():
        sub = sub if isinstance(sub, Mapping) else {}
        kind = sub.get("type")
        choices: tuple[Choice, ...] = ()
        min_items = max_items = None
        if kind == "array":
            items = sub.get("items")
            found = _choices(items) if isinstance(items, Mapping) else None
            kind, choices = ("multi", found) if found else ("string", ())
            min_items, max_items = _int_or_none(sub.get("minItems")), _int_or_none(sub.get("maxItems"))
        elif (found := _choices(sub)) is not None:
            kind, choices = "choice", found
        elif kind not in KINDS:
            kind = "string"
        title = sub.get("title")
        description = sub.get("description")
        fields.append(
            FormField(
                str(name),
                str(kind),
                title if isinstance(title, str) else None,
                description if isinstance(description, str) else None,
                name in required_names,
                sub.get("default"),
                "default" in sub,
                choices,
                min_items,
                max_items,
            )
        )
    return fields


def with_defaults(schema: Mapping[str, Any] | None, content: Mapping[str, Any] | None) -> dict[str, Any]:
    """``content`` with every field it leaves out that has a ``default`` set to that default
    (SEP-1034: the server gets the value the form showed)."""
    filled = dict(content or {})
    for field in form_fields(schema):
        if field.name not in filled and field.has_default:
            filled[field.name] = field.default
    return filled


_YES = {"y", "yes", "true", "1", "on"}
_NO = {"n", "no", "false", "0", "off"}


def _pick(field: FormField, text: str) -> str:
    text = text.strip()
    for choice in field.choices:
        if text == choice.value:
            return choice.value
    if text.isdigit() and 1 <= int(text) <= len(field.choices):
        return field.choices[int(text) - 1].value
    folded = text.casefold()
    for choice in field.choices:
        if choice.title is not None and folded == choice.title.casefold():
            return choice.value
    raise FormInputError(f"'{text}' is not one of the choices; type its number or its value")


def parse_value(field: FormField, text: str) -> Any:
    """The value of ``field`` for the typed ``text`` (not blank: the caller handles Enter)."""
    text = text.strip()
    if field.kind == "boolean":
        if text.lower() in _YES:
            return True
        if text.lower() in _NO:
            return False
        raise FormInputError("answer yes or no")
    if field.kind == "integer":
        try:
            return int(text)
        except ValueError:
            raise FormInputError(f"'{text}' is not a whole number") from None
    if field.kind == "number":
        try:
            number = float(text)
        except ValueError:
            raise FormInputError(f"'{text}' is not a number") from None
        return int(number) if number.is_integer() and "." not in text and "e" not in text.lower() else number
    if field.kind == "choice":
        return _pick(field, text)
    if field.kind == "multi":
        picked: list[str] = []
        for part in text.split(","):
            if part.strip():
                value = _pick(field, part)
                if value not in picked:
                    picked.append(value)
        check_count(field, picked)
        return picked
    return text


def check_count(field: FormField, picked: list[str]) -> None:
    if field.min_items is not None and len(picked) < field.min_items:
        raise FormInputError(f"choose at least {field.min_items}")
    if field.max_items is not None and len(picked) > field.max_items:
        raise FormInputError(f"choose at most {field.max_items}")
