"""What the security rules need to know about a template: its parse, and the values in it that a
model may have chosen."""

from __future__ import annotations

from collections.abc import Iterator

from lait_core.syntax.template import (
    Block,
    Output,
    PathExpr,
    PathKind,
    Template,
    TemplateSyntaxError,
    parse,
    walk,
)
from lait_core.syntax.template.ast import walk_exprs

MODEL_ROOTS = frozenset({"input", "steps", "vars"})
"""Template roots whose values a run computes (a tool's arguments, step outputs, ``vars``); a
workflow's ``inputs.*`` come from the person, ``loop.index`` is a number."""


def parsed(source: str) -> Template | None:
    """The template, or None when it does not parse (LAIT401 reports that)."""
    if "{{" not in source:
        return None
    try:
        return parse(source)
    except TemplateSyntaxError:
        return None


def is_model_path(expr: PathExpr) -> bool:
    if expr.kind not in (PathKind.CONTEXT, PathKind.ROOT) or not expr.parts:
        return False
    root = expr.parts[0]
    return root in MODEL_ROOTS or (root == "loop" and expr.parts[1:2] == ("item",))


def model_paths(template: Template) -> Iterator[PathExpr]:
    """Every path in ``template`` whose value may come from a model (also as helper arguments and
    block parameters: ``{{ json steps.x }}``, ``{{#each steps.list}}``)."""
    for node in walk(template.nodes):
        if isinstance(node, Output):
            exprs = [node.expr]
        elif isinstance(node, Block):
            exprs = list(node.params)
        else:
            continue
        for expr in exprs:
            for inner in walk_exprs(expr):
                if isinstance(inner, PathExpr) and is_model_path(inner):
                    yield inner
