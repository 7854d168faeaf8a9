"""A Handlebars-dialect template engine with source ranges.

Reproduces the behaviour of the original tool (the Rust ``handlebars`` crate in strict mode, no
HTML escaping, helpers ``json`` and ``text``), with every syntax and render error carrying an
exact code-point range into the template source.

* :func:`parse` / :func:`check_syntax`: grammar and block structure.  Beyond the grammar, syntax
  checking rejects unknown *block* helpers (only ``#if``, ``#unless``, ``#each``, ``#with``) and
  block helpers without exactly one argument; it accepts unknown *inline* helpers
  (``{{ foo x }}``) like the original did, which fail at render time with "unknown helper 'foo'"
  (walk :class:`Call` nodes, or compare with :data:`HELPERS`, to lint them early).
* :func:`render`: strict; a missing variable is an error pointing at the path, except as the
  argument of ``#if``/``#unless``/``#each``/``#with`` (falsy / empty).
* :func:`text_form`: how ``{{ x }}`` prints a value.
* :func:`references`: the ``inputs.*`` / ``steps.*`` names a template mentions.
"""

from lait_core.syntax.template.ast import (
    Block,
    Call,
    Comment,
    Expr,
    HashArg,
    LiteralExpr,
    Node,
    Output,
    PathExpr,
    PathKind,
    Template,
    Text,
    walk,
    walk_exprs,
)
from lait_core.syntax.template.expressions import BLOCK_HELPERS, HELPERS
from lait_core.syntax.template.mentions import ROOTS, Reference, references
from lait_core.syntax.template.parser import check_syntax, parse
from lait_core.syntax.template.render import render
from lait_core.syntax.template.template_errors import TemplateRenderError, TemplateSyntaxError
from lait_core.syntax.template.values import is_truthy, json_form, text_form

__all__ = [
    "BLOCK_HELPERS",
    "HELPERS",
    "ROOTS",
    "Block",
    "Call",
    "Comment",
    "Expr",
    "HashArg",
    "LiteralExpr",
    "Node",
    "Output",
    "PathExpr",
    "PathKind",
    "Reference",
    "Template",
    "TemplateRenderError",
    "TemplateSyntaxError",
    "Text",
    "check_syntax",
    "is_truthy",
    "json_form",
    "parse",
    "references",
    "render",
    "text_form",
    "walk",
    "walk_exprs",
]
