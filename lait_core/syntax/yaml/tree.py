"""The located YAML tree: every mapping key, value and sequence item knows where it came from."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lait_core.syntax.positions import LineIndex, Position, Range

Loc = tuple[int, int, int, int]
"""(start line, start character, end line, end character): how nodes store their place cheaply."""


class Node:
    """A node of the located tree. ``start``/``end`` are code-point offsets into the file text."""

    __slots__ = ("_loc", "document", "end", "start")

    def __init__(
        self, start: int, end: int, loc: Loc | Range | None = None, document: SourceText | None = None
    ) -> None:
        self.start = start
        self.end = end
        self._loc: Loc | None = (
            None if loc is None else loc if len(loc) == 4 else (loc[0][0], loc[0][1], loc[1][0], loc[1][1])  # type: ignore[assignment,index]
        )
        """Line and character of start and end; None until first asked for (from ``document``)."""
        self.document = document

    def _located(self) -> Loc:
        loc = self._loc
        if loc is None:
            if self.document is None:
                loc = (0, 0, 0, 0)
            else:
                index = self.document.index
                (sl, sc), (el, ec) = index.position(self.start), index.position(self.end)
                loc = (sl, sc, el, ec)
            self._loc = loc
        return loc

    @property
    def range(self) -> Range:
        sl, sc, el, ec = self._located()
        return Range(Position(sl, sc), Position(el, ec))

    @range.setter
    def range(self, value: Range) -> None:
        self._loc = (value.start.line, value.start.character, value.end.line, value.end.character)

    def set_end(self, end: int, line: int, character: int) -> None:
        loc = self._located()
        self.end = end
        self._loc = (loc[0], loc[1], line, character)

    @property
    def kind(self) -> str:
        raise NotImplementedError

    def to_python(self) -> Any:
        raise NotImplementedError


class ScalarNode(Node):
    __slots__ = ("_offsets", "style", "value")

    def __init__(
        self,
        start: int,
        end: int,
        loc: Loc | Range | None = None,
        document: SourceText | None = None,
        *,
        value: Any = None,
        style: str = "",
    ) -> None:
        if loc is None:  # the parser's case: no call to Node.__init__ (this is the most common node)
            self.start = start
            self.end = end
            self._loc = None
            self.document = document
        else:
            Node.__init__(self, start, end, loc, document)
        self.value = value
        """The resolved value (YAML 1.2 core schema): str, int, float, bool or None."""
        self.style = style
        """'' plain, "'" single-quoted, '"' double-quoted, '|' literal, '>' folded."""
        self._offsets: tuple[list[int], list[int]] | None = None

    def __repr__(self) -> str:
        return f"ScalarNode({self.value!r} at {self.range})"

    @property
    def kind(self) -> str:
        return "scalar"

    def to_python(self) -> Any:
        return self.value

    @property
    def text(self) -> str:
        """The scalar's string content (the value before type resolution)."""
        return self.value if isinstance(self.value, str) else self.source_slice()

    def source_slice(self) -> str:
        return self.document.text[self.start : self.end] if self.document else ""

    def span(self, start: int, end: int) -> Range:
        """The file range of characters ``start:end`` of this scalar's string value.

        Exact for every scalar style: plain and quoted (with folding and escapes), and block
        scalars (``|``/``>`` with chomping and indentation indicators).
        """
        if self.document is None or not isinstance(self.value, str):
            return self.range
        offsets = self._offsets
        if offsets is None:
            from lait_core.syntax.yaml.scalars import value_offsets

            offsets = self._offsets = value_offsets(
                self.document.text, self.start, self.end, self.style, self.value
            )
        starts, ends = offsets
        n = len(starts)
        if n == 0:
            return self.range
        a = starts[min(max(start, 0), n - 1)]
        b = a if end <= start else ends[min(end - 1, n - 1)]
        index = self.document.index
        return Range(index.position(a), index.position(b))


_new = object.__new__


def new_scalar(start: int, end: int, document: SourceText | None, value: Any, style: str = "") -> ScalarNode:
    """``ScalarNode(start, end, None, document, value=value, style=style)``, about twice as fast: the
    composer makes one for every scalar of a file."""
    node: ScalarNode = _new(ScalarNode)
    node.start = start
    node.end = end
    node._loc = None
    node.document = document
    node.value = value
    node.style = style
    node._offsets = None
    return node


class SequenceNode(Node):
    __slots__ = ("flow", "items")

    def __init__(
        self,
        start: int,
        end: int,
        loc: Loc | Range | None = None,
        document: SourceText | None = None,
        *,
        items: list[Node] | None = None,
        flow: bool = False,
    ) -> None:
        Node.__init__(self, start, end, loc, document)
        self.items: list[Node] = [] if items is None else items
        self.flow = flow

    def __repr__(self) -> str:
        return f"SequenceNode({len(self.items)} items at {self.range})"

    @property
    def kind(self) -> str:
        return "sequence"

    def to_python(self) -> list[Any]:
        return [item.to_python() for item in self.items]

    def __iter__(self) -> Iterator[Node]:
        return iter(self.items)

    def __len__(self) -> int:
        return len(self.items)


class MappingNode(Node):
    __slots__ = ("_index", "flow", "pairs")

    def __init__(
        self,
        start: int,
        end: int,
        loc: Loc | Range | None = None,
        document: SourceText | None = None,
        *,
        pairs: list[tuple[Node, Node]] | None = None,
        flow: bool = False,
    ) -> None:
        Node.__init__(self, start, end, loc, document)
        self.pairs: list[tuple[Node, Node]] = [] if pairs is None else pairs
        self.flow = flow
        self._index: dict[Any, tuple[Node, Node]] | None = None

    def __repr__(self) -> str:
        return f"MappingNode({len(self.pairs)} pairs at {self.range})"

    @property
    def kind(self) -> str:
        return "mapping"

    def _lookup(self) -> dict[Any, tuple[Node, Node]]:
        index = self._index
        if index is None:
            index = {}
            for k, v in self.pairs:
                key = mapping_key(k)
                if key is not None and key not in index:
                    index[key] = (k, v)
            self._index = index
        return index

    # The composer sets ``_index`` while it builds the mapping: these hot accessors read it directly.

    def get(self, key: str) -> Node | None:
        pair = (self._index if self._index is not None else self._lookup()).get(key)
        return pair[1] if pair else None

    def key_node(self, key: str) -> Node | None:
        pair = (self._index if self._index is not None else self._lookup()).get(key)
        return pair[0] if pair else None

    def __contains__(self, key: object) -> bool:
        return key in (self._index if self._index is not None else self._lookup())

    def keys(self) -> list[Any]:
        return list(self._index if self._index is not None else self._lookup())

    def __iter__(self) -> Iterator[Any]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self._index if self._index is not None else self._lookup())

    def items(self) -> Iterator[tuple[Any, Node, Node]]:
        """(python key, key node, value node) for every first occurrence of a key."""
        for key, (k, v) in (self._index if self._index is not None else self._lookup()).items():
            yield key, k, v

    def to_python(self) -> dict[Any, Any]:
        return {key: v.to_python() for key, (_k, v) in self._lookup().items()}


def mapping_key(node: Node) -> Any:
    """The Python key for a key node: scalars give their value (booleans as 'true'/'false')."""
    if isinstance(node, ScalarNode):
        value = node.value
        if isinstance(value, bool):
            return "true" if value else "false"
        if value is None:
            return "null" if node.end > node.start else ""
        if isinstance(value, int | float):
            return value
        return value
    return None


class SourceText:
    """The text of one file (or one frontmatter) that nodes point into."""

    __slots__ = ("_index", "path", "text")

    def __init__(self, text: str, path: str = "") -> None:
        self.text = text
        self.path = path
        self._index: LineIndex | None = None

    @property
    def index(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self.text)
        return self._index

    def position(self, offset: int) -> Position:
        return self.index.position(offset)

    def range(self, start: int, end: int) -> Range:
        return self.index.range(start, end)


def retarget(node: Node | None, source: SourceText) -> None:
    """Point every node at the file text (the parser saw a blanked copy of the same length)."""
    stack = [node] if node is not None else []
    while stack:
        cur = stack.pop()
        if cur.document is not None:
            cur.document = source
        if isinstance(cur, MappingNode):
            for k, v in cur.pairs:
                stack.append(k)
                stack.append(v)
        elif hasattr(cur, "items") and isinstance(cur.items, list):
            stack.extend(cur.items)
