"""The located tree from libyaml's events (through ``ruamel.yaml.clib``): the reader for texts that
tree-sitter-yaml cannot take whole.

tree-sitter-yaml 0.7.2 stops fitting a text after about 32,768 lines with content (a limit of its
scanner), so :func:`lait_core.syntax.yaml.parse.parse_yaml` reads a text that long with this composer, the one
lait used before: same tree, same diagnostics, but libyaml 0.1.7's YAML 1.1 syntax (it rejects a few
valid YAML 1.2 documents and accepts a few invalid ones; see docs/decisions.md). Scalars, tags,
anchors, aliases and the key and document diagnostics go through the same code as the tree-sitter
reader's (:class:`lait_core.syntax.yaml.document_builder.DocumentBuilder`); only the walk over the events
is here.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from lait_core.syntax.positions import Position, Range
from lait_core.syntax.yaml.document_builder import (
    MAX_DEPTH,
    DocumentBuilder,
    ParsedYaml,
    TooDeep,
    error_diagnostic,
    second_document,
)
from lait_core.syntax.yaml.scalar_values import MAYBE_SPECIAL, resolve_plain
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode, SourceText, mapping_key


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


def parse_events(text: str, path: str, src: SourceText) -> ParsedYaml:
    """Parse ``text`` from libyaml's events; never raises for bad input."""
    result = ParsedYaml(src, None)
    problems = result.problems
    document = DocumentBuilder(src, path, problems)
    stack: list[_Frame] = []
    documents = 0
    root: Node | None = None

    def here(mark: Any) -> Position:
        return Position(mark.line, mark.column)

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
            document.bad_key(key_node)
            return
        first = frame.keys.get(key)
        if first is not None:
            document.duplicate_key(key, key_node, first)
            return
        frame.keys[key] = key_node
        parent.pairs.append((key_node, node))

    scalar_event: Any = _EVENT_CLASSES.get("ScalarEvent")
    from lait_core.support.cancel import checkpoint

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
                    value = document.tagged(tag, raw, Range(here(sm), here(em)))
                elif not style and event.implicit[0] and (not raw or raw[0] in MAYBE_SPECIAL):
                    value = resolve_plain(raw)
                node: Node = ScalarNode(
                    sm.index,
                    em.index,
                    (sm.line, sm.column, em.line, em.column),
                    src,
                    value=value,
                    style=style,
                )
                if event.anchor:
                    document.anchor(event.anchor, node)
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
                    document.anchor(event.anchor, collection)
                add(collection)
                stack.append(_Frame(collection))
                if len(stack) > MAX_DEPTH:
                    raise TooDeep(sm)
            elif name in ("MappingEndEvent", "SequenceEndEvent"):
                frame = stack.pop()
                em = event.end_mark
                frame.node.set_end(em.index, em.line, em.column)
                if frame.pending is not None:  # a key without value cannot happen with libyaml
                    frame.pending = None
            elif name == "AliasEvent":
                sm, em = event.start_mark, event.end_mark
                use = Range(here(sm), here(em))
                add(document.alias(event.anchor, sm.index, em.index, use, (f.node for f in stack)))
            elif name == "DocumentStartEvent":
                documents += 1
                if documents == 2:
                    problems.append(second_document(Range(here(event.start_mark), here(event.end_mark))))
    except Exception as exc:  # libyaml/ruamel errors of every kind become one located diagnostic
        problems.append(error_diagnostic(exc, src))
        return result
    result.root = root
    if root is not None and _YAML11_BREAKS.search(text):
        _locate_by_offsets(root, src)
    return result


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
