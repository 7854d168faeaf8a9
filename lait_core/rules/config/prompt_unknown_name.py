"""LAIT111: a named prompt's template names a variable other than ``input`` and ``vars``.

The template of a named prompt renders with ``{"input": ..., "vars": {...}, "steps": {}}``
(:mod:`lait_core.documents.named_prompts`); strict rendering makes any other top-level name an error on every run.
Only the template's own context is checked: inside ``{{#each}}``/``{{#with}}`` the context is the
current item, whose names cannot be known here."""

from __future__ import annotations

import difflib
from collections.abc import Iterator

from lait_core.rules.config.prompt_undeclared_var import prompt_templates
from lait_core.rules.registry import Example, rule
from lait_core.syntax.diagnostics import Diagnostic, Severity
from lait_core.syntax.template.ast import Block, Expr, Node, Output, PathExpr, PathKind, walk_exprs
from lait_core.syntax.template.parser import parse
from lait_core.syntax.template.template_errors import TemplateSyntaxError
from lait_core.syntax.yaml.tree import MappingNode

C = "lait.config.yml"

CODE = "LAIT111"

RULE = rule(
    CODE,
    "prompt-unknown-name",
    Severity.WARNING,
    "A named prompt's template names a variable other than `input` and `vars`.",
    "A named prompt (`lait -p NAME`, `lait prompt run NAME`) renders its `template` with two names: "
    "`input` (the text after the prompt's name) and `vars` (its `vars:` defaults overridden by "
    "`--var KEY=VALUE`). Templates render strictly, so any other name, such as `{{ words }}` for "
    "`{{ vars.words }}`, fails every run. Names inside `{{#each}}` and `{{#with}}` blocks are the "
    "current item's and are not checked.",
    Example("prompts:\n  summary:\n    template: 'In {{ words }} words: {{ input }}'\n", filename=C),
    Example(
        "prompts:\n  summary:\n    template: 'In {{ vars.words }} words: {{ input }}'\n    vars: {words: '20'}\n",
        filename=C,
    ),
)


NAMES = ("input", "vars", "steps")


"""The names a named prompt's template is rendered with (``steps`` is always empty)."""


_NEW_CONTEXT = ("each", "with")


def check_prompt_names(root: MappingNode, out: list[Diagnostic]) -> None:
    for name, template, var_names in prompt_templates(root):
        assert isinstance(template.value, str)
        if "{{" not in template.value:
            continue
        try:
            parsed = parse(template.value)
        except TemplateSyntaxError:
            continue  # a syntax error is reported where templates are checked for syntax
        seen: set[str] = set()
        for path in _top_level_paths(parsed.nodes):
            first = path.parts[0] if path.parts else ""
            if not first or first in NAMES or first in seen:
                continue
            seen.add(first)
            hint = ""
            if first in var_names:
                hint = f"; did you mean 'vars.{first}'?"
            elif declared_close := difflib.get_close_matches(first, var_names, n=1, cutoff=0.8):
                hint = f"; did you mean 'vars.{declared_close[0]}'?"
            elif close := difflib.get_close_matches(first, NAMES[:2], n=1, cutoff=0.75):
                hint = f"; did you mean '{close[0]}'?"
            out.append(
                Diagnostic(
                    CODE,
                    f"the template of prompt '{name}' uses '{_shown(path, first)}', which a named prompt does not "
                    f"have: it is rendered with 'input' and 'vars' only{hint}",
                    template.span(path.start, path.end),
                    Severity.WARNING,
                )
            )


def _shown(path: PathExpr, first: str) -> str:
    return f"@root.{first}" if path.kind is PathKind.ROOT else first


def _top_level_paths(nodes: tuple[Node, ...]) -> Iterator[PathExpr]:
    """Paths resolved against the template's own context: plain ``name.x`` outside ``#each`` and
    ``#with`` bodies, and ``@root.name`` anywhere."""
    for node in nodes:
        if isinstance(node, Output):
            yield from _paths(node.expr, top=True)
        elif isinstance(node, Block):
            for expr in (*node.params, *(h.value for h in node.hash)):
                yield from _paths(expr, top=True)
            if node.helper in _NEW_CONTEXT:
                yield from _root_paths(node.body)
            else:
                yield from _top_level_paths(node.body)
            if node.inverse is not None:
                yield from _top_level_paths(node.inverse)


def _root_paths(nodes: tuple[Node, ...]) -> Iterator[PathExpr]:
    """Only the ``@root.name`` paths of nodes rendered in another context."""
    for node in nodes:
        if isinstance(node, Output):
            yield from _paths(node.expr, top=False)
        elif isinstance(node, Block):
            for expr in (*node.params, *(h.value for h in node.hash)):
                yield from _paths(expr, top=False)
            yield from _root_paths(node.body)
            if node.inverse is not None:
                yield from _root_paths(node.inverse)


def _paths(expr: Expr, *, top: bool) -> Iterator[PathExpr]:
    for e in walk_exprs(expr):
        if not isinstance(e, PathExpr):
            continue
        if e.kind is PathKind.ROOT or (top and e.kind is PathKind.CONTEXT and e.depth == 0):
            yield e
