"""Parse YAML text into the located tree of :mod:`lait_core.source.tree`.

Events come from libyaml through ``ruamel.yaml.clib`` (pure-Python ruamel events when the C
extension is missing); the composer below is ours so that

* scalars resolve with the YAML 1.2 core schema (``yes``/``on`` stay strings),
* duplicate keys, undefined aliases, multiple documents and syntax errors become located
  diagnostics instead of exceptions,
* an alias is expanded as a copy located at its use, under a node budget, so a "billion laughs"
  file is a diagnostic, not an out-of-memory kill.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lait_core.diagnostics import Diagnostic, Related, Severity
from lait_core.source.positions import Position, Range
from lait_core.source.tree import MappingNode, Node, ScalarNode, SequenceNode, SourceText, mapping_key

ALIAS_NODE_BUDGET = 100_000
"""Nodes that alias expansion may create in one document before it is cut off (LAIT003)."""
MAX_DEPTH = 128
"""Nesting depth of mappings and sequences; deeper documents are cut off with LAIT001 (no lait file
comes close, and it bounds the recursion of everything that walks the tree)."""

CODE_SYNTAX = "LAIT001"
CODE_DUPLICATE_KEY = "LAIT002"
CODE_ALIAS = "LAIT003"
CODE_TAB = "LAIT008"

_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?[0-9]+")
_OCT = re.compile(r"0o[0-7]+")
_HEX = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)")
_MAYBE_SPECIAL = frozenset("0123456789-+.~nNtTfF")
_TAG_PREFIX = "tag:yaml.org,2002:"


def resolve_plain(text: str) -> Any:
    """The YAML 1.2 core-schema value of a plain scalar."""
    if text and text[0] not in _MAYBE_SPECIAL:
        return text
    if text in _NULLS:
        return None
    boolean = _BOOLS.get(text)
    if boolean is not None:
        return boolean
    if _INT.fullmatch(text):
        return int(text)
    if _OCT.fullmatch(text):
        return int(text[2:], 8)
    if _HEX.fullmatch(text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INF.fullmatch(text):
        return -math.inf if text[0] == "-" else math.inf
    if _NAN.fullmatch(text):
        return math.nan
    return text


@dataclass(slots=True)
class ParsedYaml:
    source: SourceText
    root: Node | None
    problems: list[Diagnostic] = field(default_factory=list)
    comments: list[tuple[int, str]] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not any(p.severity is Severity.ERROR for p in self.problems)


class _Frame:
    __slots__ = ("keys", "node", "pending")

    def __init__(self, node: MappingNode | SequenceNode) -> None:
        self.node = node
        self.pending: Node | None = None
        self.keys: dict[Any, Node] | None = {} if isinstance(node, MappingNode) else None


def _event_source(text: str) -> Callable[[], Any]:
    """A function returning the next parse event (None at the end), from libyaml when available."""
    try:
        from _ruamel_yaml import CParser
    except ImportError:  # pragma: no cover - the C extension is a declared dependency
        from ruamel.yaml import YAML

        events = iter(YAML(typ="safe", pure=True).parse(text))
        return lambda: next(events, None)
    parser = CParser(text)
    get: Callable[[], Any] = parser.get_event
    return get


def _event_classes() -> dict[str, type]:
    from ruamel.yaml import events

    return {"ScalarEvent": events.ScalarEvent}


_EVENT_CLASSES = _event_classes()


def parse_yaml(text: str, path: str = "", *, source: SourceText | None = None) -> ParsedYaml:
    """Parse ``text``; never raises for bad input."""
    src = source or SourceText(text, path)
    result = ParsedYaml(src, None)
    problems = result.problems
    anchors: dict[str, Node] = {}
    stack: list[_Frame] = []
    budget = [ALIAS_NODE_BUDGET]
    documents = 0
    root: Node | None = None

    def here(mark: Any) -> Position:
        return Position(mark.line, mark.column)

    reported_aliases: set[str] = set()

    def add(node: Node) -> None:
        nonlocal root
        if not stack:
            if documents == 1:
                root = node
            return
        frame = stack[-1]
        parent = frame.node
        if isinstance(parent, SequenceNode):
            parent.items.append(node)
            return
        if frame.pending is None:
            frame.pending = node
            return
        key_node = frame.pending
        frame.pending = None
        key = mapping_key(key_node)
        assert frame.keys is not None
        if key is None:
            problems.append(
                Diagnostic(
                    CODE_SYNTAX,
                    "only scalar mapping keys are supported here; use a plain string key",
                    key_node.range,
                )
            )
            return
        first = frame.keys.get(key)
        if first is not None:
            problems.append(
                Diagnostic(
                    CODE_DUPLICATE_KEY,
                    f"duplicate key '{key}'; YAML mappings need unique keys (the first one is kept)",
                    key_node.range,
                    related=(Related(path, first.range, f"'{key}' is first defined here"),),
                )
            )
            return
        frame.keys[key] = key_node
        parent.pairs.append((key_node, node))

    scalar_event: Any = _EVENT_CLASSES.get("ScalarEvent")
    from lait_core.cancel import checkpoint

    try:
        get_event = _event_source(text)
        count = 0
        while True:
            event: Any = get_event()
            if event is None:
                break
            count += 1
            if not count & 511:
                checkpoint()
            if event.__class__ is scalar_event:
                sm, em = event.start_mark, event.end_mark
                style = event.style or ""
                raw = event.value
                value: Any = raw
                tag = event.tag
                if tag and tag != "!":
                    value = _apply_tag(
                        tag, raw, problems, Range(Position(sm.line, sm.column), Position(em.line, em.column))
                    )
                elif not style and event.implicit[0] and raw and raw[0] in _MAYBE_SPECIAL:
                    value = resolve_plain(raw)
                elif not style and not raw and event.implicit[0]:
                    value = None
                node: Node = ScalarNode(
                    sm.index,
                    em.index,
                    (sm.line, sm.column, em.line, em.column),
                    src,
                    value=value,
                    style=style,
                )
                if event.anchor:
                    anchors[event.anchor] = node
                if stack:
                    frame = stack[-1]
                    if frame.keys is None:
                        frame.node.items.append(node)  # type: ignore[union-attr]
                        continue
                    if frame.pending is None:
                        frame.pending = node
                        continue
                add(node)
                continue
            name = event.__class__.__name__
            if name in ("MappingStartEvent", "SequenceStartEvent"):
                sm = event.start_mark
                cls = MappingNode if name == "MappingStartEvent" else SequenceNode
                collection = cls(
                    sm.index,
                    sm.index,
                    (sm.line, sm.column, sm.line, sm.column),
                    src,
                    flow=bool(event.flow_style),
                )
                if event.anchor:
                    anchors[event.anchor] = collection
                add(collection)
                stack.append(_Frame(collection))
                if len(stack) > MAX_DEPTH:
                    raise _TooDeep(sm)
            elif name in ("MappingEndEvent", "SequenceEndEvent"):
                frame = stack.pop()
                em = event.end_mark
                frame.node.set_end(em.index, em.line, em.column)
                if frame.pending is not None:  # a key without value cannot happen with libyaml
                    frame.pending = None
            elif name == "AliasEvent":
                sm, em = event.start_mark, event.end_mark
                use = Range(here(sm), here(em))
                target = anchors.get(event.anchor)
                if target is None:
                    problems.append(
                        Diagnostic(
                            CODE_SYNTAX, f"alias '*{event.anchor}' refers to no anchor '&{event.anchor}'", use
                        )
                    )
                    add(ScalarNode(sm.index, em.index, use, src, value=None))
                elif any(f.node is target for f in stack):
                    problems.append(
                        Diagnostic(
                            CODE_ALIAS, f"alias '*{event.anchor}' refers to a node that contains it", use
                        )
                    )
                    add(ScalarNode(sm.index, em.index, use, src, value=None))
                else:
                    copy = _relocated_copy(target, sm.index, em.index, use, budget)
                    if copy is None:
                        if event.anchor not in reported_aliases:
                            reported_aliases.add(event.anchor)
                            problems.append(
                                Diagnostic(
                                    CODE_ALIAS,
                                    f"alias '*{event.anchor}' expands to more than {ALIAS_NODE_BUDGET:,} nodes in"
                                    " this file; expand it by hand or simplify the anchors",
                                    use,
                                )
                            )
                        add(ScalarNode(sm.index, em.index, use, src, value=None))
                    else:
                        add(copy)
            elif name == "DocumentStartEvent":
                documents += 1
                if documents == 2:
                    problems.append(
                        Diagnostic(
                            CODE_SYNTAX,
                            "this file holds more than one YAML document; a lait file is one document"
                            " (remove the '---' separator)",
                            Range(here(event.start_mark), here(event.end_mark)),
                        )
                    )
    except Exception as exc:  # libyaml/ruamel errors of every kind become one located diagnostic
        problems.append(_error_diagnostic(exc, src))
        return result
    result.root = root
    if root is not None and _YAML11_BREAKS.search(text):
        _locate_by_offsets(root, src)
    return result


def _apply_tag(tag: str, raw: str, problems: list[Diagnostic], rng: Range) -> Any:
    if not tag.startswith(_TAG_PREFIX):
        return raw
    kind = tag[len(_TAG_PREFIX) :]
    if kind == "str":
        return raw
    value = resolve_plain(raw)
    expected = {"int": int, "float": (int, float), "bool": bool, "null": type(None)}.get(kind)
    if expected is None:
        return raw
    if isinstance(value, bool) and kind != "bool":
        value = raw
    if not isinstance(value, expected):  # type: ignore[arg-type]
        problems.append(Diagnostic(CODE_SYNTAX, f"'{raw}' is not a valid !!{kind}", rng))
        return raw
    return float(value) if kind == "float" else value


def _relocated_copy(target: Node, start: int, end: int, use: Range, budget: list[int]) -> Node | None:
    """A deep copy of ``target`` whose every node is located at the alias use."""

    def make(node: Node) -> Node:
        budget[0] -= 1
        if budget[0] < 0:
            raise _BudgetExceeded
        if isinstance(node, ScalarNode):
            return ScalarNode(start, end, use, None, value=node.value, style=node.style)
        if isinstance(node, SequenceNode):
            return SequenceNode(start, end, use, None, items=[make(i) for i in node.items], flow=node.flow)
        assert isinstance(node, MappingNode)
        return MappingNode(
            start, end, use, None, pairs=[(make(k), make(v)) for k, v in node.pairs], flow=node.flow
        )

    saved = budget[0]
    try:
        return make(target)
    except _BudgetExceeded:
        budget[0] = min(saved, 0)
        return None
    except RecursionError:
        budget[0] = min(saved, 0)
        return None


_YAML11_BREAKS = re.compile("[\u0085\u2028\u2029]")


def _locate_by_offsets(root: Node, src: SourceText) -> None:
    """libyaml (YAML 1.1) also ends lines at U+0085/U+2028/U+2029, LSP and :class:`LineIndex` do not:
    when the text has one, every node's line/column is recomputed from its code-point offsets."""
    index = src.index
    stack = [root]
    while stack:
        node = stack.pop()
        if node.document is src:
            start, end = index.position(node.start), index.position(node.end)
            node._loc = (start.line, start.character, end.line, end.character)
        if isinstance(node, MappingNode):
            for k, v in node.pairs:
                stack.append(k)
                stack.append(v)
        elif isinstance(node, SequenceNode):
            stack.extend(node.items)


class _BudgetExceeded(Exception):
    pass


class _TooDeep(Exception):
    def __init__(self, mark: Any) -> None:
        super().__init__("too deep")
        self.problem_mark = mark
        self.problem = f"mappings and lists are nested more than {MAX_DEPTH} levels deep"
        self.context = None


def _error_diagnostic(exc: Exception, src: SourceText) -> Diagnostic:
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
            "tab character where YAML expects spaces; indent with spaces",
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
