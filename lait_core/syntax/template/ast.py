"""The immutable syntax tree of a template.

Every node and expression carries ``start``/``end``: a code-point range (end exclusive) into the
template source.  Nodes are immutable (named tuples, which are several times cheaper to build
than frozen dataclasses; equality also compares the node type), so a parsed :class:`Template`
can be cached and shared.
"""

from __future__ import annotations

from collections.abc import Iterator
from enum import Enum
from typing import Any, NamedTuple, TypeAlias

Scalar: TypeAlias = str | int | float | bool | None


class PathKind(Enum):
    CONTEXT = "context"  # ``x.y``, ``../x``: block params first, then the current context
    THIS = "this"  # ``this``, ``this.x``, ``./x``, ``.``: the current context only
    DATA = "data"  # ``@index``, ``@key``, ``@first``, ``@last``
    ROOT = "root"  # ``@root``, ``@root.x``


class PathExpr(NamedTuple):
    """A variable reference such as ``inputs.x``, ``../name``, ``this.[my key]`` or ``@index``."""

    raw: str  # as written
    kind: PathKind
    depth: int  # number of leading ``../``
    parts: tuple[str, ...]  # segments after the prefix (for DATA, parts[0] is the name after ``@``)
    start: int
    end: int


class LiteralExpr(NamedTuple):
    """A literal argument: ``"text"``, ``'text'``, ``12``, ``1.5``, ``true``, ``false``, ``null``."""

    value: Scalar
    start: int
    end: int


class HashArg(NamedTuple):
    """A ``key=value`` argument."""

    key: str
    value: Expr
    start: int
    end: int


class Call(NamedTuple):
    """A helper call: ``json x`` inside ``{{ }}`` or a subexpression ``(text x)``."""

    name: str
    name_start: int
    name_end: int
    params: tuple[Expr, ...]
    hash: tuple[HashArg, ...]
    start: int
    end: int


Expr: TypeAlias = PathExpr | LiteralExpr | Call


class Text(NamedTuple):
    """Literal text.  ``value`` is what renders; it differs from ``source[start:end]`` when the text
    contained an escaped ``\\{{``."""

    value: str
    start: int
    end: int


class Comment(NamedTuple):
    """``{{! ... }}`` or ``{{!-- ... --}}``; renders nothing."""

    text: str
    start: int
    end: int


class Output(NamedTuple):
    """``{{ expr }}`` or ``{{{ expr }}}``: renders the text form of the expression's value."""

    expr: Expr
    triple: bool
    start: int
    end: int


class Block(NamedTuple):
    """``{{#helper arg}} body {{else}} inverse {{/helper}}``.

    ``start`` is the start of the opening tag (for a chained ``{{else if x}}`` block: of that else
    tag), ``end`` the end of the closing tag.  ``open_end`` ends the opening tag and
    ``close_start`` starts the closing tag.
    """

    helper: str
    name_start: int
    name_end: int
    params: tuple[Expr, ...]
    hash: tuple[HashArg, ...]
    block_params: tuple[str, ...]
    body: tuple[Node, ...]
    inverse: tuple[Node, ...] | None
    start: int
    open_end: int
    close_start: int
    end: int


Node: TypeAlias = Text | Comment | Output | Block


class Template(NamedTuple):
    """A parsed template: its source and top-level nodes."""

    source: str
    nodes: tuple[Node, ...]


def _typed_eq(self: tuple[Any, ...], other: object) -> bool:
    return type(self) is type(other) and tuple.__eq__(self, other)


def _typed_ne(self: tuple[Any, ...], other: object) -> bool:
    return not _typed_eq(self, other)


def _typed_hash(self: tuple[Any, ...]) -> int:
    return hash((type(self).__name__, tuple.__hash__(self)))


for _cls in (PathExpr, LiteralExpr, HashArg, Call, Text, Comment, Output, Block, Template):
    # A Text is never equal to a Comment with the same fields (plain tuples would be).
    setattr(_cls, "__eq__", _typed_eq)  # noqa: B010
    setattr(_cls, "__ne__", _typed_ne)  # noqa: B010
    setattr(_cls, "__hash__", _typed_hash)  # noqa: B010
del _cls


def walk(nodes: tuple[Node, ...]) -> Iterator[Node]:
    """Every node in document order, descending into block bodies and inverses."""
    for node in nodes:
        yield node
        if isinstance(node, Block):
            yield from walk(node.body)
            if node.inverse is not None:
                yield from walk(node.inverse)


def walk_exprs(expr: Expr) -> Iterator[Expr]:
    """``expr`` and every expression nested in it (helper arguments, subexpressions)."""
    yield expr
    if isinstance(expr, Call):
        for param in expr.params:
            yield from walk_exprs(param)
        for arg in expr.hash:
            yield from walk_exprs(arg.value)
