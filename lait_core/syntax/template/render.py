"""Strict rendering of a parsed template.

* Output is never HTML-escaped; ``{{ x }}`` and ``{{{ x }}}`` write the *text form* of the value
  (strings raw, anything else compact JSON).
* Strict: a path that does not resolve is a :class:`TemplateRenderError` pointing at the path.
  Only the argument of ``#if``, ``#unless``, ``#each`` and ``#with`` is lenient: a missing value
  is falsy / empty there.
* Helpers: ``json`` (compact JSON, strings quoted) and ``text`` (text form), one argument each.
* ``../`` climbs the contexts pushed by ``#each`` and ``#with`` (``#if``/``#unless`` push none).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from lait_core.syntax.template.ast import (
    Block,
    Call,
    Expr,
    LiteralExpr,
    Node,
    Output,
    PathExpr,
    PathKind,
    Template,
    Text,
)
from lait_core.syntax.template.parser import parse
from lait_core.syntax.template.template_errors import TemplateRenderError
from lait_core.syntax.template.values import a_type_name, is_truthy, json_form, text_form


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "<missing>"


MISSING: Final = _Missing()


class _Frame:
    """One context level: the ``this`` value, ``@`` data variables and ``as |x|`` block params."""

    __slots__ = ("data", "params", "value")

    def __init__(
        self, value: Any, data: dict[str, Any] | None = None, params: dict[str, Any] | None = None
    ) -> None:
        self.value = value
        self.data = data
        self.params = params


def render(template: Template | str, context: Mapping[str, Any]) -> str:
    """Render ``template`` (parsed or source) with ``context`` as the root value."""
    if isinstance(template, str):
        template = parse(template)
    out: list[str] = []
    _render_nodes(template.nodes, [_Frame(context)], out)
    return "".join(out)


def _render_nodes(nodes: tuple[Node, ...], frames: list[_Frame], out: list[str]) -> None:
    for node in nodes:
        if isinstance(node, Text):
            out.append(node.value)
        elif isinstance(node, Output):
            value = _evaluate(node.expr, frames)
            out.append(value if type(value) is str else text_form(value))
        elif isinstance(node, Block):
            _render_block(node, frames, out)
        # Comment: nothing


def _render_block(block: Block, frames: list[_Frame], out: list[str]) -> None:
    helper = block.helper
    param = block.params[0]
    value = _evaluate_lenient(param, frames)
    if helper == "if" or helper == "unless":
        include_zero = any(
            arg.key == "includeZero" and is_truthy(_evaluate(arg.value, frames)) for arg in block.hash
        )
        truthy = value is not MISSING and is_truthy(value, include_zero)
        if truthy == (helper == "if"):
            _render_nodes(block.body, frames, out)
        elif block.inverse is not None:
            _render_nodes(block.inverse, frames, out)
    elif helper == "with":
        if value is not MISSING and is_truthy(value):
            params = {block.block_params[0]: value} if block.block_params else None
            frames.append(_Frame(value, None, params))
            _render_nodes(block.body, frames, out)
            frames.pop()
        elif block.inverse is not None:
            _render_nodes(block.inverse, frames, out)
    else:  # each
        _render_each(block, param, value, frames, out)


def _render_each(block: Block, param: Expr, value: Any, frames: list[_Frame], out: list[str]) -> None:
    items: list[tuple[Any, Any]]  # (index or key, item)
    keyed = False
    if value is MISSING or value is None:
        items = []
    elif isinstance(value, list | tuple):
        items = list(enumerate(value))
    elif isinstance(value, Mapping):
        items = list(value.items())
        keyed = True
    else:
        raise TemplateRenderError(
            f"'{{{{#each}}}}' needs an array or an object, but {_describe(param)} is {a_type_name(value)}",
            param.start,
            param.end,
        )
    if not items:
        if block.inverse is not None:
            _render_nodes(block.inverse, frames, out)
        return
    names = block.block_params
    last = len(items) - 1
    for index, (key, item) in enumerate(items):
        data: dict[str, Any] = {"index": index, "first": index == 0, "last": index == last}
        if keyed:
            data["key"] = key
        params: dict[str, Any] | None = None
        if names:
            params = {names[0]: item}
            if len(names) > 1:
                params[names[1]] = key
        frames.append(_Frame(item, data, params))
        _render_nodes(block.body, frames, out)
        frames.pop()


# -- expressions -----------------------------------------------------------------------------
def _evaluate(expr: Expr, frames: list[_Frame]) -> Any:
    if isinstance(expr, PathExpr):
        value = _lookup(expr, frames)
        if value is MISSING:
            raise _missing_error(expr, frames)
        return value
    if isinstance(expr, LiteralExpr):
        return expr.value
    return _call(expr, frames)


def _evaluate_lenient(expr: Expr, frames: list[_Frame]) -> Any:
    """Like :func:`_evaluate`, but a missing path gives ``MISSING`` instead of an error."""
    if isinstance(expr, PathExpr):
        return _lookup(expr, frames)
    return _evaluate(expr, frames)


def _call(call: Call, frames: list[_Frame]) -> Any:
    name = call.name
    if name not in ("json", "text"):
        raise TemplateRenderError(
            f"unknown helper '{name}'; available helpers: json, text", call.name_start, call.name_end
        )
    if len(call.params) != 1:
        raise TemplateRenderError(
            f"'{name}' takes exactly one argument, got {len(call.params)}", call.start, call.end
        )
    value = _evaluate(call.params[0], frames)
    return json_form(value) if name == "json" else text_form(value)


def _lookup(path: PathExpr, frames: list[_Frame]) -> Any:
    kind = path.kind
    parts = path.parts
    first = 0
    if kind is PathKind.CONTEXT:
        if path.depth:
            level = len(frames) - 1 - path.depth
            if level < 0:
                return MISSING
            value = frames[level].value
        else:
            name = parts[0]
            for frame in reversed(frames):
                if frame.params is not None and name in frame.params:
                    return _walk(frame.params[name], parts, 1)
            value = frames[-1].value
    elif kind is PathKind.THIS:
        value = frames[-1].value
    elif kind is PathKind.ROOT:
        value = frames[0].value
    else:  # DATA
        name = parts[0]
        for frame in reversed(frames):
            if frame.data is not None and name in frame.data:
                return _walk(frame.data[name], parts, 1)
        return MISSING
    return _walk(value, parts, first)


def _walk(value: Any, parts: tuple[str, ...], first: int) -> Any:
    for index in range(first, len(parts)):
        value = _step(value, parts[index])
        if value is MISSING:
            return MISSING
    return value


def _step(value: Any, part: str) -> Any:
    if isinstance(value, Mapping):
        return value.get(part, MISSING)
    if isinstance(value, list | tuple) and part.isascii() and part.isdigit():
        index = int(part)
        return value[index] if index < len(value) else MISSING
    return MISSING


# -- error messages --------------------------------------------------------------------------
def _describe(expr: Expr) -> str:
    if isinstance(expr, PathExpr):
        return f"'{expr.raw}'"
    if isinstance(expr, LiteralExpr):
        return json_form(expr.value)
    return "the subexpression"


def _missing_error(path: PathExpr, frames: list[_Frame]) -> TemplateRenderError:
    """Say which part of ``path`` failed to resolve."""
    raw, parts, kind = path.raw, path.parts, path.kind
    value: Any = MISSING
    start = 0
    base = ""
    if kind is PathKind.DATA:
        name = parts[0]
        for frame in reversed(frames):
            if frame.data is not None and name in frame.data:
                value, start, base = frame.data[name], 1, f"@{name}"
                break
        else:
            hint = ""
            if name in ("index", "first", "last"):
                hint = "; it exists only inside '{{#each}}'"
            elif name == "key":
                hint = "; it exists only inside '{{#each}}' over an object"
            return TemplateRenderError(f"'@{name}' is not defined here{hint}", path.start, path.end)
    elif kind is PathKind.THIS:
        value, base = frames[-1].value, "this"
    elif kind is PathKind.ROOT:
        value, base = frames[0].value, "@root"
    elif path.depth:
        level = len(frames) - 1 - path.depth
        if level < 0:
            return TemplateRenderError(
                f"'{raw}' goes above the top-level context; '../' only works inside '#each' or '#with'",
                path.start,
                path.end,
            )
        value, base = frames[level].value, "../" * path.depth
    else:
        name = parts[0]
        for frame in reversed(frames):
            if frame.params is not None and name in frame.params:
                value, start, base = frame.params[name], 1, name
                break
        else:
            value = frames[-1].value
            if _step(value, name) is MISSING:
                hint = ""
                if len(frames) > 1:
                    hint = (
                        " in the current context (inside '#each' and '#with' it is the current item; "
                        f"use '@root.{raw}' or '../{raw}' for outer values)"
                    )
                return TemplateRenderError(f"'{name}' is not defined{hint}", path.start, path.end)
    return TemplateRenderError(_field_message(raw, value, parts, start, base), path.start, path.end)


def _join(base: str, parts: tuple[str, ...]) -> str:
    if not base:
        return ".".join(parts)
    if not parts:
        return base.rstrip("/") if base.endswith("../") else base
    return base + ("" if base.endswith("/") else ".") + ".".join(parts)


def _field_message(raw: str, value: Any, parts: tuple[str, ...], start: int, base: str) -> str:
    for index in range(start, len(parts)):
        part = parts[index]
        nxt = _step(value, part)
        if nxt is MISSING:
            owner = _join(base, parts[start:index])
            if isinstance(value, Mapping):
                known = ", ".join(sorted(map(str, value)))
                if len(known) > 120:
                    known = known[:117] + "..."
                hint = f" (it has: {known})" if known else " (it is empty)"
                return f"'{raw}' is missing: '{owner}' has no field '{part}'{hint}"
            if isinstance(value, list | tuple):
                if part.isascii() and part.isdigit():
                    return f"'{raw}' is missing: '{owner}' has {len(value)} item(s), no index {part}"
                return f"'{raw}' is missing: '{owner}' is an array; index it with a number, not '{part}'"
            return f"'{raw}' is missing: '{owner}' is {a_type_name(value)}, not an object"
        value = nxt
    return f"'{raw}' is missing"  # pragma: no cover - only when the context changed meanwhile
