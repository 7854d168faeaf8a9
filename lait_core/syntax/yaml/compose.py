"""Compose the located tree from tree-sitter-yaml's concrete syntax tree.

tree-sitter-yaml (a YAML 1.2 grammar) gives the structure and the exact extent of every node; this
module turns it into :mod:`lait_core.syntax.yaml.tree` nodes: scalar values (folding, escapes, block
scalars: :mod:`lait_core.syntax.yaml.scalar_values`), the core schema, tags (``%TAG`` handles, verbatim
tags), anchors and aliases, with the checks of a YAML 1.2 parser that the grammar leaves out.

Node ranges follow the convention lait has always used (the one of libyaml's marks): a node with an
anchor or tag starts at its first property; a block mapping or sequence ends where the next token
after it starts (or at the end of the text); a block scalar ends at the start of the first line after
it; an empty value is a zero-width node right after its ``:`` or ``-``. Lines and characters are
computed from the offsets only when a node's range is first asked for.

This is the hot path of every lint and every keystroke in the editor: node kinds are compared as
tree-sitter's integer ids, and the CST is read once.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote

from lait_core.rules.files.tab_indentation import CODE as TAB_INDENTATION
from lait_core.rules.files.yaml_syntax import CODE as YAML_SYNTAX
from lait_core.support.cancel import checkpoint
from lait_core.syntax.yaml.scalar_values import (
    ScalarError,
    block_value,
    double_quoted_value,
    plain_value,
    single_quoted_value,
)
from lait_core.syntax.yaml.tree import (
    MappingNode,
    Node,
    ScalarNode,
    SequenceNode,
    SourceText,
    mapping_key,
    new_scalar,
)

_ASTRAL = re.compile("[\U00010000-\U0010ffff]")
_NON_ASCII = re.compile("[^\x00-\x7f]")
_GAP = re.compile(r"[ \t\r\n\ufeff]*(?:#[^\n\r]*[ \t\r\n\ufeff]*)*")
_CORE = "tag:yaml.org,2002:"
_MAYBE_SPECIAL = frozenset("0123456789-+.~nNtTfF")
"""First characters of the plain scalars that the core schema does not resolve to a string."""
_DEFAULT_HANDLES = {"!": "!", "!!": _CORE}
_TAB_MESSAGE = "tab character where YAML expects spaces; indent with spaces"


class ComposeError(Exception):
    """A rule of YAML that the grammar does not enforce is broken at code-point ``offset``."""

    def __init__(self, message: str, offset: int, code: str = YAML_SYNTAX) -> None:
        super().__init__(message)
        self.message = message
        self.offset = offset
        self.code = code


class Offsets:
    """The text as tree-sitter reads it, and how its byte offsets become code-point offsets.

    Outside ASCII, no character is syntax to YAML 1.2 (indicators, white space and line breaks are
    all ASCII): the text is given to tree-sitter with every other character replaced by ``x``, so a
    byte is a character and the structure is the same. A byte-order mark is the one exception (it
    may start a document); a text holding one is parsed as UTF-16 instead, with the characters
    beyond U+FFFF replaced by one private-use character (a code unit is then a character)."""

    __slots__ = ("data", "encoding", "shift")

    def __init__(self, text: str) -> None:
        self.shift = 0
        self.encoding = "utf8"
        if text.isascii():
            self.data = text.encode("ascii")
        elif "\ufeff" not in text:
            self.data = _NON_ASCII.sub("x", text).encode("ascii")
        else:
            self.shift = 1
            self.encoding = "utf16"
            self.data = _ASTRAL.sub("\ue000", text).encode("utf-16-le")

    def cp(self, byte: int) -> int:
        return byte >> self.shift


class _Kinds:
    """tree-sitter-yaml's node kind ids (``Node.kind_id`` is the canonical id of a name)."""

    def __init__(self, language: Any) -> None:
        def named(name: str) -> int:
            return int(language.id_for_node_kind(name, True))

        def token(name: str) -> int:
            return int(language.id_for_node_kind(name, False))

        self.block_node = named("block_node")
        self.flow_node = named("flow_node")
        self.anchor = named("anchor")
        self.tag = named("tag")
        self.comment = named("comment")
        self.plain = named("plain_scalar")
        self.double = named("double_quote_scalar")
        self.single = named("single_quote_scalar")
        self.block_scalar = named("block_scalar")
        self.alias = named("alias")
        self.block_mapping = named("block_mapping")
        self.block_sequence = named("block_sequence")
        self.flow_mapping = named("flow_mapping")
        self.flow_sequence = named("flow_sequence")
        self.block_pair = named("block_mapping_pair")
        self.block_item = named("block_sequence_item")
        self.flow_pair = named("flow_pair")
        self.colon = token(":")
        self.question = token("?")
        self.dash = token("-")
        self.nodes = frozenset((self.block_node, self.flow_node))


_KINDS: dict[int, _Kinds] = {}


def kinds(language: Any) -> _Kinds:
    found = _KINDS.get(id(language))
    if found is None:
        found = _KINDS[id(language)] = _Kinds(language)
    return found


class Composer:
    """Composes one document's nodes; the owner's callbacks resolve tags, aliases and mapping pairs."""

    def __init__(
        self,
        src: SourceText,
        offsets: Offsets,
        kind_ids: _Kinds,
        resolve_plain: Callable[[str], Any],
        apply_tag: Callable[[str, str, int, int], Any],
        alias: Callable[[str, int, int], Node],
        anchor: Callable[[str, Node], None],
        bad_key: Callable[[Node], None],
        duplicate_key: Callable[[Any, Node, Node], None],
        max_depth: int,
        open_nodes: list[Node] | None = None,
    ) -> None:
        self.src = src
        self.text = src.text
        self.shift = offsets.shift
        self.k = kind_ids
        self.resolve_plain = resolve_plain
        self.apply_tag = apply_tag
        self.alias = alias
        self.anchor = anchor
        self.bad_key = bad_key
        """Reports a key that is not a scalar (the pair is dropped)."""
        self.duplicate_key = duplicate_key
        """Reports ``(key, key node, first key node)`` for a repeated key (the first pair is kept)."""
        self.open: list[Node] = [] if open_nodes is None else open_nodes
        """The collections being composed (an alias to one of them is a cycle)."""
        self.max_depth = max_depth
        self.handles: dict[str, str] = dict(_DEFAULT_HANDLES)
        self.depth = 0
        self.collections = 0

    def cp(self, byte: int) -> int:
        return byte >> self.shift

    def _slice(self, ts: Any) -> str:
        sh = self.shift
        return self.text[ts.start_byte >> sh : ts.end_byte >> sh]

    def _after_gap(self, offset: int) -> int:
        match = _GAP.match(self.text, offset)
        return match.end() if match else offset

    # -- documents ----------------------------------------------------------------------------------

    def directives(self, document: Any) -> None:
        """Read the ``%YAML`` and ``%TAG`` directives of ``document`` (others are ignored)."""
        self.handles = dict(_DEFAULT_HANDLES)
        seen_yaml = False
        for child in document.children:
            kind = child.type
            if kind == "yaml_directive":
                if seen_yaml:
                    raise ComposeError(
                        "a document may have only one %YAML directive", self.cp(child.start_byte)
                    )
                seen_yaml = True
            elif kind == "tag_directive":
                handle = prefix = None
                for part in child.children:
                    if part.type == "tag_handle":
                        handle = self._slice(part)
                    elif part.type == "tag_prefix":
                        prefix = self._slice(part)
                if handle is not None and prefix is not None:
                    if self.handles.get(handle, prefix) != _DEFAULT_HANDLES.get(handle, prefix):
                        raise ComposeError(
                            f"tag handle '{handle}' is defined twice", self.cp(child.start_byte)
                        )
                    self.handles[handle] = prefix

    # -- nodes --------------------------------------------------------------------------------------

    def node(self, ts: Any, indent: int) -> Node:
        """Compose a ``block_node`` or ``flow_node``; ``indent`` is the column of the entry holding it."""
        k = self.k
        children = ts.children
        if len(children) == 1:  # no properties: the common case
            content = children[0]
            if content.kind_id == k.plain:  # the most common node of all
                sh = self.shift
                start, end = content.start_byte >> sh, content.end_byte >> sh
                value: Any = self.text[start:end]
                if "\n" in value or "\r" in value:
                    value = plain_value(value)
                if not value or value[0] in _MAYBE_SPECIAL:  # else it is a string (the core schema)
                    value = self.resolve_plain(value)
                return new_scalar(start, end, self.src, value)
            if content.kind_id != k.anchor and content.kind_id != k.tag:
                return self._content(content, indent, None, None, -1)
        tag: str | None = None
        anchor: str | None = None
        start = -1
        props_end = 0
        sh = self.shift
        for child in children:
            ck = child.kind_id
            if ck == k.comment:
                continue
            if ck == k.anchor:
                if anchor is not None:
                    raise ComposeError("a node may have only one anchor", child.start_byte >> sh)
                anchor = self._slice(child)[1:]
            elif ck == k.tag:
                if tag is not None:
                    raise ComposeError("a node may have only one tag", child.start_byte >> sh)
                tag = self._tag(child)
            else:
                return self._content(child, indent, tag, anchor, start)
            if start < 0:
                start = child.start_byte >> sh
            props_end = child.end_byte >> sh
        # properties and no content: an empty scalar
        node = self._scalar(start, props_end, "", "", tag, plain=True)
        if anchor is not None:
            self.anchor(anchor, node)
        return node

    def _content(self, ts: Any, indent: int, tag: str | None, anchor: str | None, start: int) -> Node:
        k = self.k
        kind = ts.kind_id
        sh = self.shift
        begin = ts.start_byte >> sh
        if start < 0:
            start = begin
        node: Node
        if kind == k.plain:
            end = ts.end_byte >> sh
            node = self._scalar(start, end, plain_value(self.text[begin:end]), "", tag, plain=True)
        elif kind == k.double:
            end = ts.end_byte >> sh
            try:
                value = double_quoted_value(self.text[begin + 1 : end - 1])
            except ScalarError as exc:
                raise ComposeError(str(exc), begin + exc.offset) from None
            node = self._scalar(start, end, value, '"', tag)
        elif kind == k.single:
            end = ts.end_byte >> sh
            node = self._scalar(start, end, single_quoted_value(self.text[begin + 1 : end - 1]), "'", tag)
        elif kind == k.block_scalar:
            try:
                value, end = block_value(self.text, begin, indent)
            except ScalarError as exc:
                if exc.tab:
                    raise ComposeError(_TAB_MESSAGE, begin + exc.offset, TAB_INDENTATION) from None
                raise ComposeError(str(exc), begin + exc.offset) from None
            node = self._scalar(start, end, value, self.text[begin], tag)
        elif kind == k.alias:
            end = ts.end_byte >> sh
            if tag is not None or anchor is not None:
                raise ComposeError("an alias cannot have an anchor or a tag", start)
            return self.alias(self.text[begin + 1 : end], start, end)
        else:
            return self._collection(ts, kind, start, tag, anchor)
        if anchor is not None:
            self.anchor(anchor, node)
        return node

    def _collection(self, ts: Any, kind: int, start: int, tag: str | None, anchor: str | None) -> Node:
        k = self.k
        self.collections += 1
        if not self.collections & 63:
            checkpoint()  # the language server cancels a lint that the next edit made stale
        self.depth += 1
        if self.depth > self.max_depth:
            raise ComposeError(
                f"mappings and lists are nested more than {self.max_depth} levels deep",
                ts.start_byte >> self.shift,
            )
        try:
            if kind == k.block_mapping:
                return self._block_mapping(ts, start, tag, anchor)
            if kind == k.block_sequence:
                return self._block_sequence(ts, start, tag, anchor)
            if kind == k.flow_mapping:
                return self._flow_mapping(ts, start, tag, anchor)
            if kind == k.flow_sequence:
                return self._flow_sequence(ts, start, tag, anchor)
        finally:
            self.depth -= 1
        raise ComposeError(f"unexpected {ts.type.replace('_', ' ')}", ts.start_byte >> self.shift)

    def _scalar(
        self, start: int, end: int, value: str, style: str, tag: str | None, *, plain: bool = False
    ) -> Node:
        resolved: Any = value
        if tag is not None and tag != "!":
            resolved = self.apply_tag(tag, value, start, end)
        elif plain and tag is None:
            resolved = self.resolve_plain(value)
        return new_scalar(start, end, self.src, resolved, style)

    def _empty(self, at: int) -> Node:
        return new_scalar(at, at, self.src, None)

    def _check_tag(self, tag: str | None, kind: str, at: int) -> None:
        if not tag or not tag.startswith(_CORE):
            return
        name = tag[len(_CORE) :]
        if name in ("str", "int", "float", "bool", "null") or (name != kind and name in ("map", "seq")):
            raise ComposeError(f"a {('mapping' if kind == 'map' else 'list')} cannot be tagged !!{name}", at)

    def _open(self, node: MappingNode | SequenceNode, anchor: str | None) -> None:
        if anchor is not None:
            self.anchor(anchor, node)
        self.open.append(node)

    def _add(
        self, index: dict[Any, tuple[Node, Node]], mapping: MappingNode, key_node: Node, value: Node
    ) -> None:
        """Add a pair to ``mapping`` and to its key ``index`` (a repeated or non-scalar key is reported)."""
        key = mapping_key(key_node)
        if key is None:
            self.bad_key(key_node)
        elif key in index:
            self.duplicate_key(key, key_node, index[key][0])
        else:
            index[key] = pair = (key_node, value)
            mapping.pairs.append(pair)

    def _block_mapping(self, ts: Any, start: int, tag: str | None, anchor: str | None) -> MappingNode:
        if tag:
            self._check_tag(tag, "map", start)
        mapping = MappingNode(start, start, None, self.src)
        self._open(mapping, anchor)
        # The key index that MappingNode.get() would build is built here, from the keys just composed.
        index: dict[Any, tuple[Node, Node]] = {}
        pairs = mapping.pairs
        column = ts.start_point[1] >> self.shift  # only spaces and indicators precede a block node
        k = self.k
        pair_kind = k.block_pair
        colon = k.colon
        flow_node = k.flow_node
        comment = k.comment
        plain = k.plain
        node = self.node
        resolve_plain = self.resolve_plain
        sh = self.shift
        text = self.text
        src = self.src
        scalar: Any
        key_node: Node
        value: Node
        for pair in ts.children:
            kind = pair.kind_id
            if kind == pair_kind:
                parts = pair.children
                if len(parts) == 3 and parts[1].kind_id == colon and parts[0].kind_id == flow_node:
                    key_ts = parts[0]  # key: value
                    content = key_ts.children
                    if len(content) == 1 and content[0].kind_id == plain:  # a plain key, inline
                        key_start, key_end = content[0].start_byte >> sh, content[0].end_byte >> sh
                        scalar = text[key_start:key_end]
                        if "\n" in scalar or "\r" in scalar:
                            scalar = plain_value(scalar)
                        if not scalar or scalar[0] in _MAYBE_SPECIAL:
                            scalar = resolve_plain(scalar)
                        key_node = new_scalar(key_start, key_end, src, scalar)
                    else:
                        key_node = node(key_ts, column)
                    value_ts = parts[2]
                    content = value_ts.children
                    if len(content) == 1 and content[0].kind_id == plain:  # a plain value, inline
                        value_start, value_end = content[0].start_byte >> sh, content[0].end_byte >> sh
                        scalar = text[value_start:value_end]
                        if "\n" in scalar or "\r" in scalar:
                            scalar = plain_value(scalar)
                        if not scalar or scalar[0] in _MAYBE_SPECIAL:
                            scalar = resolve_plain(scalar)
                        value = new_scalar(value_start, value_end, src, scalar)
                    else:
                        value = node(value_ts, column)
                else:
                    key_node, value = self._pair(pair, column)
                # the key index: a string key as it is, mapping_key() for the others
                key = key_node.value if key_node.__class__ is ScalarNode else None
                if key.__class__ is not str:
                    key = mapping_key(key_node)
                    if key is None:
                        self.bad_key(key_node)
                        continue
                if key in index:
                    self.duplicate_key(key, key_node, index[key][0])
                else:
                    index[key] = entry = (key_node, value)
                    pairs.append(entry)
            elif kind != comment:
                raise ComposeError("expected a 'key: value' line", pair.start_byte >> self.shift)
        mapping._index = index
        self.open.pop()
        mapping.end = self._after_gap(ts.end_byte >> self.shift)
        return mapping

    def _pair(self, pair: Any, indent: int) -> tuple[Node, Node]:
        k = self.k
        sh = self.shift
        key: Node | None = None
        value: Node | None = None
        colon = -1
        after = pair.start_byte >> sh
        for child in pair.children:
            ck = child.kind_id
            if ck == k.colon:
                colon = child.start_byte >> sh
                after = colon + 1
            elif ck == k.question:
                after = child.end_byte >> sh
            elif ck == k.comment:
                continue
            elif colon < 0:
                key = self.node(child, indent)
                after = key.end
            else:
                value = self.node(child, indent)
        if key is None:
            key = self._empty(colon if colon >= 0 else pair.start_byte >> sh)
        if value is None:
            value = self._empty(after)
        return key, value

    def _block_sequence(self, ts: Any, start: int, tag: str | None, anchor: str | None) -> SequenceNode:
        if tag:
            self._check_tag(tag, "seq", start)
        sequence = SequenceNode(start, start, None, self.src)
        self._open(sequence, anchor)
        items = sequence.items
        k = self.k
        sh = self.shift
        nodes = k.nodes
        for item in ts.children:
            if item.kind_id != k.block_item:
                if item.kind_id == k.comment:
                    continue
                raise ComposeError("expected a '- ' list item", item.start_byte >> sh)
            content = None
            for child in item.children:
                if child.kind_id in nodes:
                    content = child
                    break
            if content is None:
                items.append(self._empty((item.start_byte >> sh) + 1))
            else:
                items.append(self.node(content, item.start_point[1] >> sh))
        self.open.pop()
        sequence.end = self._after_gap(ts.end_byte >> sh)
        return sequence

    def _flow_mapping(self, ts: Any, start: int, tag: str | None, anchor: str | None) -> MappingNode:
        self._check_tag(tag, "map", start)
        k = self.k
        mapping = MappingNode(start, ts.end_byte >> self.shift, None, self.src, flow=True)
        self._open(mapping, anchor)
        index: dict[Any, tuple[Node, Node]] = {}
        for child in ts.children:
            ck = child.kind_id
            if ck == k.flow_pair:
                key, value = self._pair(child, -1)
                self._add(index, mapping, key, value)
            elif ck == k.flow_node:
                key = self.node(child, -1)
                self._add(index, mapping, key, self._empty(key.end))
        mapping._index = index
        self.open.pop()
        return mapping

    def _flow_sequence(self, ts: Any, start: int, tag: str | None, anchor: str | None) -> SequenceNode:
        self._check_tag(tag, "seq", start)
        k = self.k
        sequence = SequenceNode(start, ts.end_byte >> self.shift, None, self.src, flow=True)
        self._open(sequence, anchor)
        items = sequence.items
        for child in ts.children:
            ck = child.kind_id
            if ck == k.flow_node:
                items.append(self.node(child, -1))
            elif ck == k.flow_pair:  # `[a: 1]`: a single-pair mapping
                key, value = self._pair(child, -1)
                single = MappingNode(key.start, value.end, None, self.src, flow=True)
                single_index: dict[Any, tuple[Node, Node]] = {}
                self._add(single_index, single, key, value)
                single._index = single_index
                items.append(single)
        self.open.pop()
        return sequence

    # -- tags ---------------------------------------------------------------------------------------

    def _tag(self, ts: Any) -> str:
        raw = self._slice(ts)
        at = ts.start_byte >> self.shift
        if raw.startswith("!<"):
            if not raw.endswith(">"):
                raise ComposeError(f"tag '{raw}' is missing its closing '>'", at)
            return unquote(raw[2:-1])
        if raw == "!":
            return "!"
        second = raw.find("!", 1)
        if second == -1:
            handle, suffix = "!", raw[1:]
        else:
            handle, suffix = raw[: second + 1], raw[second + 1 :]
        prefix = self.handles.get(handle)
        if prefix is None:
            raise ComposeError(f"tag handle '{handle}' is not defined by a %TAG directive", at)
        return prefix + unquote(suffix)
