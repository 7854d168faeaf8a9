"""Where the cursor is in a lait file, tolerant of the half-typed text an editor holds while typing.

:func:`analyze` answers, for a cursor offset: the YAML path of keys and list indexes from the root
to the cursor; whether the cursor is where a mapping key goes, in a key's value, or in a list item
(block ``- x`` or flow ``[a, x``); the partial word and its range (what a completion replaces);
and, inside a template field or a jq field, the ``{{ ... }}`` expression or the ``$steps.``-style
token before the cursor.

Two locators give the same answers:

* When the text parses, the located tree is used for a cursor inside a node (a key, a scalar of
  any style, a flow collection), so multi-line scalars and flow collections are exact.
* Otherwise (the usual state while typing: ``  - pro‸``, ``    mcp: [fs, ‸``, ``  model: ‸``, a key
  without its colon), and for cursors in whitespace, an indentation scan of the lines above the
  cursor: block mappings and ``- `` items by column, block scalars (``|``/``>``), multi-line plain,
  quoted and flow values, and flow ``[...]``/``{...}`` on the current line.

Agent Markdown files are YAML frontmatter plus a body; the body is one template.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from enum import Enum

from lait_core.lint.discovery import FileKind
from lait_core.syntax.yaml.tree import MappingNode, Node, ScalarNode, SequenceNode, mapping_key

Segment = str | int
YamlPath = tuple[Segment, ...]


class Role(Enum):
    KEY = "key"
    """Where a mapping key is (being) written; ``path`` is the mapping's path."""
    VALUE = "value"
    """In (or right where) a key's scalar value is; ``path`` ends with the key."""
    ITEM = "item"
    """A list item (``- x`` or ``[a, x``); ``path`` ends with the item's index."""
    NONE = "none"
    """A comment, a block scalar header, a document marker: nothing to complete."""


@dataclass(frozen=True, slots=True)
class TemplateCursor:
    """The cursor is inside ``{{ ... }}`` of a template field."""

    expression: str
    """The text between ``{{`` and the cursor."""
    token: str
    """The token being typed (``steps.fe``, ``#ea``, ``@in``; empty after a space)."""
    token_start: int
    first: bool
    """The token is the tag's first (a helper or a variable goes here, not an argument)."""
    blocks: tuple[str, ...]
    """Block helpers open around the tag, innermost last (``each``, ``if``, ...)."""


@dataclass(frozen=True, slots=True)
class JqCursor:
    """The cursor ends a ``$name`` or ``$name.field`` token in a jq field."""

    token: str
    """``$``, ``$st``, ``$steps.``, ``$inputs.to`` ..."""
    token_start: int


@dataclass(frozen=True, slots=True)
class CursorContext:
    offset: int
    role: Role
    path: YamlPath = ()
    word: str = ""
    """The part of the word before the cursor."""
    word_start: int = 0
    word_end: int = 0
    """The end of the whole word, including characters after the cursor."""
    column: int = 0
    """The column where the key or item at the cursor starts (for indenting multi-line inserts)."""
    flow: bool = False
    """Inside a flow collection (``[...]``, ``{...}``)."""
    keys: frozenset[str] = frozenset()
    """KEY: the keys the mapping already has (the one being typed excluded)."""
    colon_after: bool = False
    """KEY: a ``:`` already follows the word."""
    needs_space: bool = False
    """An insert needs a leading space (the cursor is right after ``key:`` or ``-``)."""
    needs_dash: bool = False
    """ITEM on a fresh line of a block list where the ``- `` is not typed yet."""
    value_start: int | None = None
    """Where the scalar's text starts (after an opening quote) for VALUE and ITEM."""
    language: str | None = None
    """``"template"`` or ``"jq"`` when the scalar at ``path`` is one."""
    template: TemplateCursor | None = None
    jq: JqCursor | None = None
    in_body: bool = False
    """In an agent file's Markdown body (a template)."""
    frame_keys: dict[YamlPath, frozenset[str]] = field(default_factory=dict)
    """Keys the scan saw in the mappings around the cursor (for a step's kind while the tree is broken)."""
    siblings: frozenset[str] = frozenset()
    """ITEM in a flow list: the other items already written there."""


# --------------------------------------------------------------------------------------------
# What a scalar at a path is

STEP_LIST_KEYS = frozenset(("steps", "on_error", "group", "else"))
_STEP_JQ = frozenset(("when", "input", "output", "jq", "with", "for_each", "while", "until"))
_STEP_TEMPLATE = frozenset(("prompt", "system", "ask", "write"))
_STEP_TEMPLATE_LISTS = frozenset(("run", "files", "images"))


def step_prefixes(path: YamlPath) -> list[int]:
    """Lengths of the prefixes of ``path`` that are steps of a workflow, outermost first.

    ``("steps", 0, "group", 1, "prompt")`` -> ``[2, 4]``.
    """
    out: list[int] = []
    if len(path) < 2 or path[0] != "steps" or not isinstance(path[1], int):
        return out
    out.append(2)
    i = 2
    while i < len(path):
        seg = path[i]
        if seg in STEP_LIST_KEYS and i + 1 < len(path) and isinstance(path[i + 1], int):
            i += 2
            out.append(i)
        elif (
            seg == "parallel"
            and i + 2 < len(path)
            and isinstance(path[i + 1], str)
            and isinstance(path[i + 2], int)
        ):
            i += 3
            out.append(i)
        elif (
            seg == "switch"
            and i + 3 < len(path)
            and isinstance(path[i + 1], int)
            and path[i + 2] == "steps"
            and isinstance(path[i + 3], int)
        ):
            i += 4
            out.append(i)
        else:
            break
    return out


def field_language(kind: FileKind, path: YamlPath) -> str | None:
    """``"template"``, ``"jq"`` or None: what the string at ``path`` is in a file of ``kind``."""
    if kind is FileKind.CONFIG:
        if len(path) == 3 and path[0] == "prompts" and path[2] == "template":
            return "template"
        if len(path) == 4 and path[0] == "tools" and path[2] == "command" and isinstance(path[3], int):
            return "template"
        return None
    if kind is not FileKind.WORKFLOW:
        return None
    if path == ("output",):
        return "jq"
    if path == ("default", "system"):
        return "template"
    if len(path) == 3 and path[0] == "agents" and path[2] == "system":
        return "template"
    prefixes = step_prefixes(path)
    if not prefixes:
        return None
    rest = path[prefixes[-1] :]
    if len(rest) == 1:
        if rest[0] in _STEP_JQ:
            return "jq"
        if rest[0] in _STEP_TEMPLATE:
            return "template"
    elif len(rest) == 2 and rest[0] in _STEP_TEMPLATE_LISTS and isinstance(rest[1], int):
        return "template"
    elif len(rest) == 3 and rest[0] == "switch" and isinstance(rest[1], int) and rest[2] == "when":
        return "jq"
    return None


# --------------------------------------------------------------------------------------------
# Small lexical helpers

_KEY = re.compile(
    r"""(?:"(?P<dq>(?:[^"\\\n]|\\.)*)"|'(?P<sq>(?:[^'\n]|'')*)'"""
    r"""|(?P<plain>[^\s#'"\[\]{},|>&*!%@`:?-][^:#\n]*?|[-?:][^\s:#][^:#\n]*?))[ \t]*:(?=[ \t]|$)"""
)
_HEADER = re.compile(r"[|>][1-9+-]{0,2}[ \t]*(?:#.*)?$")
_PROPERTY = re.compile(r"(?:[&!][^\s]*(?:[ \t]+|$))+")
_KEY_CHARS = re.compile(r"[\w-]*")
_KEY_CHARS_BEFORE = re.compile(r"[\w-]*$")
_VALUE_STOP = frozenset(" \t\r\n,[]{}\"'#")


def _key_name(m: re.Match[str]) -> str:
    if m.group("dq") is not None:
        return m.group("dq")
    if m.group("sq") is not None:
        return m.group("sq").replace("''", "'")
    return m.group("plain").rstrip()


def _is_dash(line: str, i: int) -> bool:
    return i < len(line) and line[i] == "-" and (i + 1 == len(line) or line[i + 1] in " \t")


def _skip_spaces(line: str, i: int) -> int:
    while i < len(line) and line[i] in " \t":
        i += 1
    return i


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _skip_properties(line: str, i: int) -> int:
    """Skip ``&anchor`` / ``!tag`` before a value."""
    m = _PROPERTY.match(line, i)
    return m.end() if m else i


def _quote_end(text: str, i: int, end: int) -> int:
    """The offset after the closing quote of the quoted scalar starting at ``i``, or -1 (unclosed)."""
    return _close_quote(text, i + 1, end, text[i])


def _close_quote(text: str, j: int, end: int, q: str) -> int:
    """The offset after the ``q`` quote that closes a quoted scalar continuing at ``j``, or -1."""
    while j < end:
        c = text[j]
        if q == '"' and c == "\\":
            j += 2
            continue
        if c == q:
            if q == "'" and j + 1 < end and text[j + 1] == "'":
                j += 2
                continue
            return j + 1
        j += 1
    return -1


def _flow_depth(text: str, start: int, end: int, depth: int = 0, quote: str = "") -> tuple[int, str]:
    """Bracket depth and the open quote (if any) after scanning ``text[start:end]``."""
    i = start
    while i < end:
        if quote:  # skip to the closing quote
            i = _close_quote(text, i, end, quote)
            if i == -1:
                return depth, quote
            quote = ""
            continue
        c = text[i]
        if c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
            if depth <= 0:
                return 0, ""
        elif c == "#" and (i == start or text[i - 1] in " \t"):
            nl = text.find("\n", i, end)
            if nl == -1:
                break
            i = nl
        i += 1
    return depth, quote


def _comment_start(text: str, start: int, end: int) -> int:
    """Offset of a ``#`` comment in ``text[start:end]`` outside quotes, or -1."""
    i = start
    while i < end:
        c = text[i]
        if c in "\"'" and (i == start or text[i - 1] in " \t[{,:"):
            i = _close_quote(text, i + 1, end, c)  # a quoted scalar: no comment inside
            if i == -1:
                return -1
            continue
        if c == "#" and (i == start or text[i - 1] in " \t"):
            return i
        i += 1
    return -1


# --------------------------------------------------------------------------------------------
# The result before the word and the template/jq cursor are worked out


@dataclass(slots=True)
class Located:
    """What a locator found at the cursor, before the word and template/jq cursors are worked out."""

    role: Role
    path: YamlPath
    word_start: int
    value_start: int | None = None
    flow: bool = False
    keys: frozenset[str] = frozenset()
    column: int = -1
    needs_dash: bool = False
    frame_keys: dict[YamlPath, frozenset[str]] = field(default_factory=dict)
    siblings: frozenset[str] = frozenset()


# --------------------------------------------------------------------------------------------
# Flow collections: ``[a, {b: c}, ...`` up to the cursor


@dataclass(slots=True)
class _FlowFrame:
    seq: bool
    path: YamlPath
    index: int = 0
    key: str | None = None
    keys: set[str] = field(default_factory=set)
    items: set[str] = field(default_factory=set)


def _flow(text: str, start: int, cursor: int, base: YamlPath) -> Located:
    """The cursor in the flow collection opening at ``text[start]`` (``[`` or ``{``)."""
    stack: list[_FlowFrame] = []
    token = start
    i = start
    while i < cursor:
        c = text[i]
        if c in "[{":
            if stack:
                top = stack[-1]
                path = top.path + ((top.index,) if top.seq else ((top.key,) if top.key is not None else ()))
            else:
                path = base
            stack.append(_FlowFrame(c == "[", path))
            i += 1
            token = i
            continue
        if not stack:
            return Located(Role.NONE, base, cursor)
        top = stack[-1]
        if c in "\"'":
            close = _quote_end(text, i, cursor)
            if close == -1:  # the cursor is inside a quoted item
                return _flow_hit(top, i + 1, i + 1)
            i = close
            continue
        if c in "]}":
            stack.pop()
            i += 1
            if not stack:
                return Located(Role.NONE, base, cursor)
            token = i
            continue
        if c == ",":
            if top.seq:
                item = text[token:i].strip().strip("\"'")
                if item:
                    top.items.add(item)
                top.index += 1
            else:
                top.key = None
            i += 1
            token = i
            continue
        if c == ":" and not top.seq and top.key is None and (i + 1 >= cursor or text[i + 1] in " \t\n,]}"):
            name = text[token:i].strip().strip("\"'")
            top.key = name
            top.keys.add(name)
            i += 1
            token = i
            continue
        if c == "#" and i > start and text[i - 1] in " \t\n":
            nl = text.find("\n", i, cursor)
            if nl == -1:
                return Located(Role.NONE, base, cursor)
            i = nl
            continue
        i += 1
    if not stack:
        return Located(Role.NONE, base, cursor)
    top = stack[-1]
    while token < cursor and text[token] in " \t\r\n":
        token += 1
    return _flow_hit(top, token, token)


def _flow_hit(top: _FlowFrame, word_start: int, value_start: int) -> Located:
    if top.seq:
        return Located(
            Role.ITEM,
            (*top.path, top.index),
            word_start,
            value_start,
            flow=True,
            siblings=frozenset(top.items),
        )
    if top.key is None:
        return Located(Role.KEY, top.path, word_start, None, flow=True, keys=frozenset(top.keys))
    return Located(Role.VALUE, (*top.path, top.key), word_start, value_start, flow=True)


# --------------------------------------------------------------------------------------------
# The indentation scan


class _Value(Enum):
    EMPTY = 0
    PLAIN = 1  # a one-line scalar (plain, quoted or a closed flow collection)
    NESTED = 2  # a block collection on the following lines
    BLOCK = 3  # a block scalar


class _Map:
    __slots__ = ("col", "keys", "last", "path", "value", "value_start")

    def __init__(self, col: int, path: YamlPath) -> None:
        self.col = col
        self.path = path
        self.keys: list[str] = []
        self.last: str | None = None
        self.value = _Value.EMPTY
        self.value_start = 0


class _Seq:
    __slots__ = ("col", "index", "path", "value", "value_start")

    def __init__(self, col: int, path: YamlPath) -> None:
        self.col = col
        self.path = path
        self.index = 0
        self.value = _Value.EMPTY
        self.value_start = 0


_Frame = _Map | _Seq


@dataclass(slots=True)
class _Pending:
    """A value that continues on the following lines."""

    kind: str  # "block" | "flow" | "quote"
    owner: YamlPath
    start: int  # offset of the indicator / opening bracket / opening quote
    parent_col: int = 0
    depth: int = 0
    quote: str = ""


class _Scanner:
    def __init__(self, text: str, starts: list[int], last_line: int) -> None:
        self.text = text
        self.starts = starts
        self.last = last_line
        self.stack: list[_Frame] = []
        self.pending: _Pending | None = None

    def line(self, n: int) -> str:
        start = self.starts[n]
        end = self.starts[n + 1] - 1 if n + 1 < len(self.starts) else len(self.text)
        return self.text[start:end].rstrip("\r")

    # -- frames --------------------------------------------------------------------------------
    def pop_to(self, ind: int, dash: bool) -> None:
        stack = self.stack
        while stack:
            top = stack[-1]
            if isinstance(top, _Map):
                if ind < top.col:
                    stack.pop()
                    continue
            elif ind < top.col or (ind == top.col and not dash):
                stack.pop()
                continue
            break

    def owner_of_new(self) -> YamlPath:
        """The path of a collection that starts as the value of the innermost frame."""
        top = self.stack[-1] if self.stack else None
        if top is None:
            return ()
        top.value = _Value.NESTED
        if isinstance(top, _Map):
            return top.path + ((top.last,) if top.last is not None else ())
        return (*top.path, top.index)

    def dashes(self, line: str, i: int, limit: int) -> int:
        """Process ``- `` indicators from column ``i``; returns the column after them."""
        while i < limit and _is_dash(line, i):
            top = self.stack[-1] if self.stack else None
            if isinstance(top, _Seq) and top.col == i:
                top.index += 1
                top.value = _Value.EMPTY
            else:
                self.stack.append(_Seq(i, self.owner_of_new()))
            i = _skip_spaces(line, i + 1)
        return i

    def map_for_key(self, col: int, after_dash: bool) -> _Map | None:
        top = self.stack[-1] if self.stack else None
        if isinstance(top, _Map) and top.col == col and not after_dash:
            return top
        if top is None or isinstance(top, _Seq) or (isinstance(top, _Map) and col > top.col):
            new = _Map(col, self.owner_of_new())
            self.stack.append(new)
            return new
        return None

    def set_value(
        self, frame: _Frame, line: str, i: int, line_start: int, owner: YamlPath, parent_col: int
    ) -> None:
        """Classify the value starting at column ``i`` of ``line``; start multi-line values."""
        i = _skip_properties(line, i)
        frame.value_start = line_start + i
        if i >= len(line) or line[i] == "#":
            frame.value = _Value.EMPTY
            return
        c = line[i]
        if c in "|>" and _HEADER.match(line, i):
            frame.value = _Value.BLOCK
            self.pending = _Pending("block", owner, line_start + i, parent_col=parent_col)
            return
        frame.value = _Value.PLAIN
        if c in "[{":
            depth, quote = _flow_depth(line, i, len(line))
            if depth > 0:
                self.pending = _Pending("flow", owner, line_start + i, depth=depth, quote=quote)
        elif c in "\"'" and _quote_end(line, i, len(line)) == -1:
            self.pending = _Pending("quote", owner, line_start + i, quote=c)

    # -- whole lines above the cursor ----------------------------------------------------------
    def feed(self, n: int) -> None:
        line = self.line(n)
        line_start = self.starts[n]
        pending = self.pending
        if pending is not None:
            if pending.kind == "block":
                if not line.strip() or _indent(line) > pending.parent_col:
                    return
                self.pending = None
            elif pending.kind == "flow":
                depth, quote = _flow_depth(line, 0, len(line), pending.depth, pending.quote)
                if depth > 0:
                    pending.depth, pending.quote = depth, quote
                else:
                    self.pending = None
                return
            else:
                if _close_quote(line, 0, len(line), pending.quote) != -1:
                    self.pending = None
                return
        stripped = line.lstrip(" ")
        if not stripped or stripped[0] == "#":
            return
        if line.startswith(("---", "...")) and (len(line) == 3 or line[3] in " \t"):
            return
        ind = len(line) - len(stripped)
        self.pop_to(ind, _is_dash(line, ind))
        top = self.stack[-1] if self.stack else None
        if top is not None and ind > top.col and top.value is _Value.PLAIN:
            return  # a continuation line of a multi-line plain scalar
        i = self.dashes(line, ind, len(line))
        after_dash = i != ind
        m = _KEY.match(line, i)
        if m is not None:
            frame = self.map_for_key(i, after_dash)
            if frame is None:
                return
            key = _key_name(m)
            frame.last = key
            frame.keys.append(key)
            self.set_value(
                frame, line, _skip_spaces(line, m.end()), line_start, (*frame.path, key), frame.col
            )
            return
        top = self.stack[-1] if self.stack else None
        if isinstance(top, _Seq) and after_dash:
            self.set_value(top, line, i, line_start, (*top.path, top.index), top.col)

    # -- the cursor line -----------------------------------------------------------------------
    def cursor(self, n: int, col: int) -> Located:
        text = self.text
        line = self.line(n)
        line_start = self.starts[n]
        offset = line_start + col
        prefix = line[:col]
        pending = self.pending
        if pending is not None:
            if pending.kind == "block":
                blank_so_far = not prefix.strip()
                if (blank_so_far and not line.strip() and col > pending.parent_col) or (
                    line.strip() and _indent(line) > pending.parent_col
                ):
                    return Located(Role.VALUE, pending.owner, pending.start, pending.start)
                self.pending = None
            elif pending.kind == "flow":
                return _flow(text, pending.start, offset, pending.owner)
            else:
                close = _quote_end(text, pending.start, offset)
                if close == -1:
                    return Located(Role.VALUE, pending.owner, pending.start + 1, pending.start + 1)
                return Located(Role.NONE, pending.owner, offset)
        stripped = prefix.lstrip(" ")
        if stripped.startswith("#") or (
            line.startswith(("---", "...")) and (len(line) == 3 or line[3] in " \t") and col >= 3
        ):
            return Located(Role.NONE, (), offset)
        ind = len(prefix) - len(stripped)
        blank = not stripped
        dash = _is_dash(line, ind) and ind < col
        self.pop_to(ind, dash or blank)
        top = self.stack[-1] if self.stack else None
        if blank and isinstance(top, _Seq) and top.col == ind:
            parent = self.stack[-2] if len(self.stack) > 1 else None
            if isinstance(parent, _Map) and parent.col == ind:
                self.stack.pop()  # a list at its key's column: a new key is likelier than an item
                top = parent
            else:
                return Located(
                    Role.ITEM, (*top.path, top.index + 1), offset, offset, column=col, needs_dash=True
                )
        if top is not None and ind > top.col and top.value is _Value.PLAIN:
            if isinstance(top, _Seq):
                owner = (*top.path, top.index)
            else:
                owner = top.path + ((top.last,) if top.last is not None else ())
            return Located(Role.VALUE, owner, min(top.value_start, offset), top.value_start)
        if blank:
            return self.key_hit(ind, offset, n)
        i = self.dashes(line, ind, col)
        after_dash = i != ind
        if i >= col:  # the cursor right after the dashes: a new item, or before the item's first key
            if i == col and _KEY.match(line, i) is not None and self.map_for_key(i, True) is not None:
                return self.key_hit(i, offset, n)
            seq = self.stack[-1]
            assert isinstance(seq, _Seq)
            return Located(Role.ITEM, (*seq.path, seq.index), offset, offset, column=i)
        m = _KEY.match(line, i)
        if m is not None and m.end() <= col:
            frame = self.map_for_key(i, after_dash)
            if frame is None:
                return Located(Role.NONE, (), offset)
            key = _key_name(m)
            frame.last = key
            frame.keys.append(key)
            path = (*frame.path, key)
            v = _skip_properties(line, _skip_spaces(line, m.end()))
            hit = self.value_hit(line, line_start, v, col, path)
            hit.frame_keys = self.frame_keys(n, frame)
            return hit
        if after_dash and m is not None:  # the cursor is in the key of the item's first pair
            frame = self.map_for_key(i, True)
            if frame is None:
                return Located(Role.NONE, (), offset)
            return self.key_hit(i, offset, n, word_start=line_start + i)
        if after_dash:
            seq = self.stack[-1]
            assert isinstance(seq, _Seq)
            hit = self.value_hit(line, line_start, i, col, (*seq.path, seq.index), item=True)
            hit.frame_keys = self.frame_keys(n, None)
            return hit
        return self.key_hit(i, offset, n, word_start=line_start + i)

    def value_hit(
        self, line: str, line_start: int, v: int, col: int, path: YamlPath, item: bool = False
    ) -> Located:
        offset = line_start + col
        role = Role.ITEM if item else Role.VALUE
        if v >= col:
            return Located(role, path, offset, offset, column=col)
        if _comment_start(line, v, col) != -1:
            return Located(Role.NONE, path, offset)
        c = line[v]
        if c in "[{":
            return _flow(self.text, line_start + v, offset, path)
        if c in "|>" and _HEADER.match(line, v):
            return Located(Role.NONE, path, offset)
        if c in "\"'":
            if _quote_end(line, v, col) != -1:
                return Located(Role.NONE, path, offset)
            return Located(role, path, line_start + v + 1, line_start + v + 1, column=v)
        return Located(role, path, line_start + v, line_start + v, column=v)

    def key_hit(self, col: int, offset: int, n: int, word_start: int | None = None) -> Located:
        top = self.stack[-1] if self.stack else None
        start = offset if word_start is None else word_start
        if top is None:
            path: YamlPath = ()
            keys: set[str] = set()
        elif isinstance(top, _Map) and top.col == col:
            path = top.path
            keys = set(top.keys)
        elif isinstance(top, _Map) and col > top.col and top.value in (_Value.EMPTY, _Value.NESTED):
            if top.last is None:
                return Located(Role.NONE, top.path, offset)
            path = (*top.path, top.last)
            keys = set()
        elif isinstance(top, _Seq) and col > top.col:
            path = (*top.path, top.index)
            keys = set()
        else:
            return Located(Role.NONE, top.path, offset)
        keys |= self.keys_below(n, col)
        frame_keys = self.frame_keys(n, None)
        frame_keys[path] = frozenset(keys)
        return Located(Role.KEY, path, start, None, keys=frozenset(keys), column=col, frame_keys=frame_keys)

    def keys_below(self, n: int, col: int) -> set[str]:
        """Keys at column ``col`` on the lines after the cursor, up to the end of that mapping."""
        found: set[str] = set()
        block_parent = -1
        for k in range(n + 1, self.last + 1):
            line = self.line(k)
            stripped = line.lstrip(" ")
            if not stripped or stripped[0] == "#":
                continue
            ind = len(line) - len(stripped)
            if block_parent >= 0:
                if ind > block_parent:
                    continue
                block_parent = -1
            if ind < col:
                break
            if ind > col:
                continue
            if _is_dash(line, ind):
                break
            m = _KEY.match(line, ind)
            if m is None:
                continue
            found.add(_key_name(m))
            v = _skip_properties(line, _skip_spaces(line, m.end()))
            if v < len(line) and line[v] in "|>" and _HEADER.match(line, v):
                block_parent = col
        return found

    def frame_keys(self, n: int, innermost: _Map | None) -> dict[YamlPath, frozenset[str]]:
        out: dict[YamlPath, frozenset[str]] = {}
        maps = [f for f in self.stack if isinstance(f, _Map)]
        for f in maps:
            out[f.path] = frozenset(f.keys)
        if maps:
            inner = innermost or maps[-1]
            out[inner.path] = out.get(inner.path, frozenset()) | self.keys_below(n, inner.col)
        return out


def scan(text: str, offset: int, first_line: int = 0, last_line: int | None = None) -> Located:
    """The indentation-scan locator (works on any text)."""
    starts = _line_starts(text)
    n = bisect.bisect_right(starts, offset) - 1
    last = len(starts) - 1 if last_line is None else min(last_line, len(starts) - 1)
    scanner = _Scanner(text, starts, last)
    for k in range(first_line, n):
        scanner.feed(k)
    return scanner.cursor(n, offset - starts[n])


def _line_starts(text: str) -> list[int]:
    starts = [0]
    find = text.find
    i = find("\n")
    while i != -1:
        starts.append(i + 1)
        i = find("\n", i + 1)
    return starts


# --------------------------------------------------------------------------------------------
# The located-tree locator


def _contains(node: Node, offset: int) -> bool:
    return node.start <= offset <= node.end


def tree_locate(root: Node | None, offset: int) -> Located | None:
    """The cursor inside a key, a scalar or a flow collection of a parsed tree (None: in whitespace)."""
    path: list[Segment] = []
    node = root
    if node is None:
        return None
    while True:
        if isinstance(node, MappingNode):
            pairs = node.pairs
            k_index = bisect.bisect_right(pairs, offset, key=lambda p: p[0].start) - 1
            if k_index >= 0:
                k, v = pairs[k_index]
                key = mapping_key(k)
                name = key if isinstance(key, str) else str(key)
                if _contains(k, offset) and k.end > k.start:
                    others = frozenset(str(mapping_key(kk)) for kk, _v in pairs if kk is not k)
                    return Located(
                        Role.KEY,
                        tuple(path),
                        k.start,
                        None,
                        flow=node.flow,
                        keys=others,
                        column=k.range.start.character,
                    )
                if _contains(v, offset) and not _outside_block_scalar(v, k, offset):
                    path.append(name)
                    node = v
                    continue
            if node.flow and node.start < offset < node.end:
                if k_index >= 0 and _after_colon(pairs[k_index][0], offset):
                    k = pairs[k_index][0]
                    return Located(Role.VALUE, (*path, str(mapping_key(k))), offset, offset, flow=True)
                return Located(Role.KEY, tuple(path), offset, None, flow=True, keys=frozenset(node.keys()))
            return None
        if isinstance(node, SequenceNode):
            items = node.items
            i = bisect.bisect_right(items, offset, key=lambda it: it.start) - 1
            if i >= 0 and _contains(items[i], offset):
                path.append(i)
                node = items[i]
                continue
            if node.flow and node.start < offset < node.end:
                return Located(Role.ITEM, (*path, i + 1), offset, offset, flow=True)
            return None
        if isinstance(node, ScalarNode):
            if not path:
                return None
            quoted = node.style in ("'", '"')
            value_start = node.start + (1 if quoted else 0)
            if quoted and (offset == node.start or (offset == node.end and node.end - node.start > 1)):
                return None
            if node.style in ("|", ">") and node.document is not None:
                newline = node.document.text.find("\n", node.start, node.end)
                if newline == -1 or offset <= newline:
                    return Located(Role.NONE, tuple(path), offset)
            role = Role.ITEM if isinstance(path[-1], int) else Role.VALUE
            return Located(role, tuple(path), value_start, value_start, column=node.range.start.character)
        return None


def _after_colon(key: Node, offset: int) -> bool:
    """The cursor is past the ``:`` that follows ``key`` (in a flow mapping)."""
    if key.document is None:
        return False
    between = key.document.text[key.end : offset]
    return ":" in between and "," not in between


def _outside_block_scalar(value: Node, key: Node, offset: int) -> bool:
    """A cursor on a blank line after a block scalar, at or left of its key, starts something new."""
    if not (isinstance(value, ScalarNode) and value.style in ("|", ">") and value.document is not None):
        return False
    text = value.document.text
    line_start = text.rfind("\n", 0, offset) + 1
    if line_start <= value.start:
        return False
    before = text[line_start:offset]
    return not before.strip() and offset - line_start <= key.range.start.character


# --------------------------------------------------------------------------------------------
# Putting it together


def _template_cursor(text: str, value_start: int, offset: int) -> TemplateCursor | None:
    if value_start > offset:
        return None
    brace = text.rfind("{{", value_start, offset)
    if brace == -1 or text.find("}}", brace + 2, offset) != -1:
        return None
    if brace > value_start and text[brace - 1] == "\\":
        return None
    start = brace + 2
    while start < offset and text[start] in "{~":
        start += 1
    if start < offset and text[start] == "!":
        return None
    expression = text[brace + 2 : offset]
    body = text[start:offset]
    cut = max(body.rfind(c) for c in " \t\n()=")
    token = body[cut + 1 :]
    first = not body[: cut + 1].strip()
    blocks: list[str] = []
    for m in _BLOCK_TAG.finditer(text, value_start, brace):
        if m.group(1) == "#":
            blocks.append(m.group(2))
        elif blocks and m.group(2) in blocks:
            while blocks and blocks.pop() != m.group(2):
                pass
    return TemplateCursor(expression, token, start + cut + 1, first, tuple(blocks))


_BLOCK_TAG = re.compile(r"\{\{~?\s*([#/])\s*(\w+)")
_JQ_TOKEN = re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]*)*)?$")


def _jq_cursor(text: str, value_start: int, offset: int) -> JqCursor | None:
    m = _JQ_TOKEN.search(text, max(value_start, offset - 256), offset)
    if m is None:
        return None
    return JqCursor(m.group(0), m.start())


def _word_bounds(text: str, hit: Located, offset: int, line_end: int) -> tuple[int, int]:
    if hit.role is Role.KEY:
        m = _KEY_CHARS_BEFORE.search(text, max(hit.word_start, text.rfind("\n", 0, offset) + 1), offset)
        start = m.start() if m else offset
        e = _KEY_CHARS.match(text, offset, line_end)
        return start, e.end() if e else offset
    start = offset
    floor = max(hit.word_start, text.rfind("\n", 0, offset) + 1)
    while start > floor and text[start - 1] not in _VALUE_STOP:
        start -= 1
    end = offset
    while end < line_end and text[end] not in _VALUE_STOP:
        end += 1
    return start, end


def analyze(
    text: str,
    offset: int,
    kind: FileKind,
    tree: Node | None = None,
    *,
    body_start: int | None = None,
    first_line: int = 0,
    last_line: int | None = None,
) -> CursorContext:
    """The cursor context at ``offset`` (code points) in a file of ``kind``.

    ``tree`` is the located tree of the text (or of an agent's frontmatter) when it parses; for an
    agent file, ``body_start`` is where the Markdown body begins and ``first_line``/``last_line``
    bound the frontmatter lines.
    """
    offset = max(0, min(offset, len(text)))
    if body_start is not None and offset >= body_start:
        template = _template_cursor(text, body_start, offset)
        return CursorContext(
            offset,
            Role.VALUE,
            (),
            word_start=offset,
            word_end=offset,
            language="template",
            template=template,
            in_body=True,
            value_start=body_start,
        )
    hit = tree_locate(tree, offset) if tree is not None else None
    if hit is None:
        hit = scan(text, offset, first_line, last_line)
    line_start = text.rfind("\n", 0, offset) + 1
    line_end = text.find("\n", offset)
    if line_end == -1:
        line_end = len(text)
    if hit.role is Role.NONE:
        return CursorContext(offset, Role.NONE, hit.path, word_start=offset, word_end=offset)
    word_start, word_end = _word_bounds(text, hit, offset, line_end)
    word = text[word_start:offset]
    column = hit.column if hit.needs_dash else word_start - line_start
    before = text[line_start:word_start]
    needs_space = bool(before) and before[-1] in ":-" and not hit.flow
    colon_after = hit.role is Role.KEY and bool(re.match(r"[ \t]*:", text[word_end:line_end]))
    language = field_language(kind, hit.path) if hit.role in (Role.VALUE, Role.ITEM) else None
    template = jq = None
    if language == "template" and hit.value_start is not None:
        template = _template_cursor(text, hit.value_start, offset)
    elif language == "jq" and hit.value_start is not None:
        jq = _jq_cursor(text, hit.value_start, offset)
    return CursorContext(
        offset=offset,
        role=hit.role,
        path=hit.path,
        word=word,
        word_start=word_start,
        word_end=word_end,
        column=column,
        flow=hit.flow,
        keys=hit.keys - {word} if hit.role is Role.KEY else hit.keys,
        colon_after=colon_after,
        needs_space=needs_space,
        needs_dash=hit.needs_dash,
        value_start=hit.value_start,
        language=language,
        template=template,
        jq=jq,
        frame_keys=hit.frame_keys,
        siblings=hit.siblings,
    )
