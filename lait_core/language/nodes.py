"""Small helpers over the located YAML tree for editor features: where a node really ends, which
node a position is on, and the exact range of a scalar's text."""

from __future__ import annotations

from dataclasses import dataclass

from lait_core.syntax.positions import Position, Range
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode, mapping_key

_SPACE = " \t\r\n"


def last_leaf(node: Node) -> Node:
    """The node whose end is ``node``'s own end: the last value of a block collection, and of its
    last value, and so on; ``node`` itself when it is a scalar, a flow collection or empty."""
    cur = node
    while True:
        if isinstance(cur, MappingNode) and cur.pairs and not cur.flow:
            cur = cur.pairs[-1][1]
        elif isinstance(cur, SequenceNode) and cur.items and not cur.flow:
            cur = cur.items[-1]
        else:
            return cur


def tight_end(node: Node) -> Position:
    """Where ``node``'s own text ends.

    A block collection's end mark is where the next token starts (often the next line, after
    comments), and a block scalar's end includes its trailing line breaks; this is the end of the
    last character that belongs to the node instead.
    """
    cur = last_leaf(node)
    if isinstance(cur, ScalarNode) and cur.style in ("|", ">") and cur.document is not None:
        text = cur.document.text
        end = min(cur.end, len(text))
        while end > cur.start and text[end - 1] in _SPACE:
            end -= 1
        return cur.document.position(end)
    return cur.range.end


def tight_range(node: Node) -> Range:
    return Range(node.range.start, max(node.range.start, tight_end(node)))


def covers(node: Node, pos: Position) -> bool:
    """``pos`` is on ``node`` (its end included, so a cursor right after a name counts)."""
    return node.range.start <= pos <= tight_end(node)


def name_range(node: ScalarNode) -> Range:
    """The range of a scalar's characters, without quotes (the range to edit when renaming it)."""
    text = node.value if isinstance(node.value, str) else node.text
    if not text:
        return node.range
    return node.span(0, len(text))


@dataclass(frozen=True, slots=True)
class Segment:
    """One step down a located tree: a mapping key (with its key node) or a sequence index."""

    key: str | int
    key_node: Node | None
    value: Node


@dataclass(frozen=True, slots=True)
class Trail:
    """The path from the root to the deepest node at a position."""

    segments: tuple[Segment, ...]
    on_key: bool
    """The position is on the last segment's key (not in its value)."""

    @property
    def keys(self) -> tuple[str | int, ...]:
        return tuple(s.key for s in self.segments)

    @property
    def node(self) -> Node | None:
        """The deepest node at the position (the key node when ``on_key``)."""
        if not self.segments:
            return None
        last = self.segments[-1]
        return last.key_node if self.on_key else last.value


def trail_at(root: Node | None, pos: Position) -> Trail:
    """The keys and indexes leading to the node at ``pos`` (empty when ``pos`` is outside ``root``)."""
    segments: list[Segment] = []
    cur = root
    while cur is not None:
        nxt: Node | None = None
        if isinstance(cur, MappingNode):
            for k, v in cur.pairs:
                key = mapping_key(k)
                name: str | int = key if isinstance(key, str | int) else str(key)
                if covers(k, pos):
                    segments.append(Segment(name, k, v))
                    return Trail(tuple(segments), True)
                if v.range != k.range and covers(v, pos):
                    segments.append(Segment(name, k, v))
                    nxt = v
                    break
        elif isinstance(cur, SequenceNode):
            for i, item in enumerate(cur.items):
                if covers(item, pos):
                    segments.append(Segment(i, None, item))
                    nxt = item
                    break
        cur = nxt
    return Trail(tuple(segments), False)
