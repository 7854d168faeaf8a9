"""What both YAML readers share (tree-sitter's in :mod:`lait_core.syntax.yaml.parse`, libyaml's events in
:mod:`lait_core.syntax.yaml.libyaml_events`): the parse result, the builder of one document (tags, anchors,
aliases expanded under a node budget, the key diagnostics) and the diagnostic of a syntax error.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from lait_core.rules.files.alias_expansion import CODE as CODE_ALIAS
from lait_core.rules.files.duplicate_key import CODE as CODE_DUPLICATE_KEY
from lait_core.rules.files.tab_indentation import CODE as CODE_TAB
from lait_core.rules.files.yaml_syntax import CODE as CODE_SYNTAX
from lait_core.syntax.diagnostics import Diagnostic, Related, Severity
from lait_core.syntax.positions import Position, Range
from lait_core.syntax.yaml.scalar_values import TagError, resolve_tagged
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode, SourceText

ALIAS_NODE_BUDGET = 100_000
"""Nodes that alias expansion may create in one document before it is cut off (LAIT003)."""

MAX_DEPTH = 128
"""Nesting depth of mappings and sequences; deeper documents are cut off with LAIT001 (no lait file
comes close, and it bounds the recursion of everything that walks the tree)."""


@dataclass(slots=True)
class ParsedYaml:
    source: SourceText
    root: Node | None
    problems: list[Diagnostic] = field(default_factory=list)
    comments: list[tuple[int, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(p.severity is Severity.ERROR for p in self.problems)


def second_document(use: Range) -> Diagnostic:
    """The error for a second document in a file (``use``: its ``---``)."""
    return Diagnostic(
        CODE_SYNTAX,
        "this file holds more than one YAML document; a lait file is one document (remove the '---' separator)",
        use,
    )


class DocumentBuilder:
    """What both readers do alike while they build one document (the tree-sitter composer here,
    libyaml's events in :mod:`lait_core.syntax.yaml.libyaml_events`): explicit tags, anchors, alias expansion
    under :data:`ALIAS_NODE_BUDGET`, and the diagnostics for tags, aliases and mapping keys, added to
    ``problems``. Each reader locates nodes itself and passes the ranges in."""

    def __init__(self, src: SourceText, path: str, problems: list[Diagnostic]) -> None:
        self.src = src
        self.path = path
        self.problems = problems
        self.anchors: dict[str, Node] = {}
        self._budget = [ALIAS_NODE_BUDGET]
        self._reported_aliases: set[str] = set()

    def tagged(self, tag: str, raw: str, use: Range) -> Any:
        """The value of a scalar with an explicit tag; its text when the text does not fit the tag
        (reported)."""
        try:
            return resolve_tagged(tag, raw)
        except TagError as exc:
            self.problems.append(Diagnostic(CODE_SYNTAX, str(exc), use))
            return raw

    def anchor(self, name: str, node: Node) -> None:
        self.anchors[name] = node

    def alias(self, name: str, start: int, end: int, use: Range, open_nodes: Iterable[Node]) -> Node:
        """The node an alias stands for: a copy of its anchor's node located at the use, or a null
        scalar there (reported) when there is no such anchor, the anchor's node is still open (one
        of ``open_nodes``: it would contain itself) or the copy would exceed the node budget."""
        target = self.anchors.get(name)
        if target is None:
            self.problems.append(
                Diagnostic(CODE_SYNTAX, f"alias '*{name}' refers to no anchor '&{name}'", use)
            )
            return ScalarNode(start, end, use, self.src, value=None)
        if any(node is target for node in open_nodes):
            self.problems.append(
                Diagnostic(CODE_ALIAS, f"alias '*{name}' refers to a node that contains it", use)
            )
            return ScalarNode(start, end, use, self.src, value=None)
        copy = _relocated_copy(target, start, end, use, self._budget)
        if copy is None:
            if name not in self._reported_aliases:
                self._reported_aliases.add(name)
                self.problems.append(
                    Diagnostic(
                        CODE_ALIAS,
                        f"alias '*{name}' expands to more than {ALIAS_NODE_BUDGET:,} nodes in"
                        " this file; expand it by hand or simplify the anchors",
                        use,
                    )
                )
            return ScalarNode(start, end, use, self.src, value=None)
        return copy

    def bad_key(self, key_node: Node) -> None:
        self.problems.append(
            Diagnostic(
                CODE_SYNTAX,
                "only scalar mapping keys are supported here; use a plain string key",
                key_node.range,
            )
        )

    def duplicate_key(self, key: Any, key_node: Node, first: Node) -> None:
        self.problems.append(
            Diagnostic(
                CODE_DUPLICATE_KEY,
                f"duplicate key '{key}'; YAML mappings need unique keys (the first one is kept)",
                key_node.range,
                related=(Related(self.path, first.range, f"'{key}' is first defined here"),),
            )
        )


TAB_MESSAGE = "tab character where YAML expects spaces; indent with spaces"


def _relocated_copy(target: Node, start: int, end: int, use: Range, budget: list[int]) -> Node | None:
    """A deep copy of ``target`` whose every node is located at the alias use."""
    saved = budget[0]
    try:
        return _copy_at(target, start, end, use, budget)
    except _BudgetExceeded:
        budget[0] = min(saved, 0)
        return None
    except RecursionError:
        budget[0] = min(saved, 0)
        return None


def _copy_at(node: Node, start: int, end: int, use: Range, budget: list[int]) -> Node:
    # a module function, not a closure over itself: that would be a reference cycle per alias
    budget[0] -= 1
    if budget[0] < 0:
        raise _BudgetExceeded
    if isinstance(node, ScalarNode):
        return ScalarNode(start, end, use, None, value=node.value, style=node.style)
    if isinstance(node, SequenceNode):
        items = [_copy_at(i, start, end, use, budget) for i in node.items]
        return SequenceNode(start, end, use, None, items=items, flow=node.flow)
    assert isinstance(node, MappingNode)
    pairs = [
        (_copy_at(k, start, end, use, budget), _copy_at(v, start, end, use, budget)) for k, v in node.pairs
    ]
    return MappingNode(start, end, use, None, pairs=pairs, flow=node.flow)


class _BudgetExceeded(Exception):
    pass


class TooDeep(Exception):
    def __init__(self, mark: Any) -> None:
        super().__init__("too deep")
        self.problem_mark = mark
        self.problem = f"mappings and lists are nested more than {MAX_DEPTH} levels deep"
        self.context = None


def error_diagnostic(exc: Exception, src: SourceText) -> Diagnostic:
    mark = getattr(exc, "problem_mark", None)
    text = src.text
    if mark is not None:
        # libyaml may put the mark one line past the end of a text without a final newline
        offset = src.index.offset(Position(mark.line, mark.column))
        pos = src.position(offset)
    elif isinstance(exc, UnicodeError):  # a lone surrogate (an editor's UTF-16 buffer) is not text
        offset = int(getattr(exc, "start", 0) or 0)
        pos = src.position(offset)
        return Diagnostic(
            CODE_SYNTAX,
            "this character is not valid Unicode text (a lone surrogate); delete it",
            Range(pos, src.position(offset + 1)),
        )
    else:  # a ReaderError: its position counts UTF-8 bytes of the text libyaml was given
        byte_offset = int(getattr(exc, "position", 0) or 0)
        offset = len(text.encode("utf-8", "surrogatepass")[:byte_offset].decode("utf-8", "ignore"))
        pos = src.position(offset)
    end = src.position(offset + 1) if offset < len(text) and text[offset] != "\n" else pos
    rng = Range(pos, end)
    if offset < len(text) and text[offset] == "\t":
        return Diagnostic(
            CODE_TAB,
            TAB_MESSAGE,
            rng,
        )
    problem = getattr(exc, "problem", None)
    if problem is None:
        reason = getattr(exc, "reason", None)
        if reason is not None:
            character = getattr(exc, "character", "")
            code = ord(character) if isinstance(character, str) and character else character
            problem = f"{reason} (#x{code:04x})" if isinstance(code, int) else str(reason)
        else:
            problem = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    context = getattr(exc, "context", None)
    message = f"YAML syntax error: {problem}"
    if context:
        message += f" ({context})"
    return Diagnostic(CODE_SYNTAX, message, rng)
