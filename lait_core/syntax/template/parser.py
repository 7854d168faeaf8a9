"""Template scanner: text, tags, blocks, whitespace control; cached :func:`parse`.

Plain text is never walked character by character: ``str.find`` locates the next ``{{`` and a
compiled regex matches the whole tag (fast paths first for the common ``{{ a.b }}``,
``{{ json a.b }}``, ``{{#if a.b}}``, ``{{else}}`` and ``{{/if}}``), so the cost is per tag.

Whitespace follows handlebars-rust:

* ``{{~`` strips all whitespace at the end of the text just before the tag, ``~}}`` all
  whitespace at the start of the text just after it;
* a *standalone* block tag, ``{{else}}`` or comment (alone on its line apart from spaces and
  tabs, the end of the template counting as a line end) removes its whole line: the indentation
  before it and the spaces, tabs and newline after it.
* ``\\{{`` is a literal ``{{`` (``\\{{{{`` a literal ``{{{{``); with two or more backslashes one
  is dropped and the tag is live.
"""

from __future__ import annotations

import functools
import re

from lait_core.syntax.template.ast import (
    Block,
    Call,
    Comment,
    Node,
    Output,
    PathExpr,
    PathKind,
    Template,
    Text,
)
from lait_core.syntax.template.expressions import BLOCK_HELPERS, Tag, TagKind, parse_tag
from lait_core.syntax.template.template_errors import TemplateSyntaxError

# A tag body: string literals and ``[...]`` keys are opaque (they may hold ``}``), a ``~`` right
# before ``}}`` is the trim marker and ``{{`` can never appear inside (it starts the next tag).
_BODY = (
    r"""(?:"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\[[^\]{}\n]*\]"""  # strings, [keys]
    r"""|[^"'\[{}~]|~(?!\}\})|\{(?!\{)|\}(?!\}))*"""  # other characters
)
_TAG = re.compile(
    r"\{\{(?P<triple>\{)?+(?P<ltrim>~)?+"
    r"(?:(?P<comment>!--.*?--(?=~?\}\})|!.*?(?=~?\}\}))|(?P<body>" + _BODY + r"))"
    r"(?P<rtrim>~)?\}\}(?(triple)\})",
    re.DOTALL,
)
# Fast path for the most common tags, ``{{ a.b-c.d }}``, ``{{ this.x }}``, ``{{ @index }}`` (see
# _simple_path for what still needs the general parser).
_SIMPLE_OUTPUT = re.compile(
    r"\{\{(?P<ltrim>~)?\s*(?P<path>(?:@|this\.)?[A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*(?P<rtrim>~)?\}\}"
)
# Fast path for ``{{ helper a.b }}`` and ``{{#helper a.b}}``.
_SIMPLE_CALL = re.compile(
    r"\{\{(?P<ltrim>~)?\s*(?P<hash>#)?(?P<name>[A-Za-z_][\w-]*)\s+"
    r"(?P<path>(?:@|this\.)?[A-Za-z_][\w-]*(?:\.[\w-]+)*)\s*(?P<rtrim>~)?\}\}"
)
_NOT_SIMPLE = frozenset(("true", "false", "null", "this", "else"))
# Fast path for ``{{/name}}``, ``{{else}}`` and ``{{^}}``.
_SIMPLE = re.compile(r"\{\{(?P<ltrim>~)?\s*(?:/\s*(?P<close>[\w-]+)|else|\^)\s*(?P<rtrim>~)?\}\}")
_RAW_OPEN = re.compile(r"\{\{\{\{\s*raw\s*\}\}\}\}")
_RAW_CLOSE = re.compile(r"\{\{\{\{\s*/\s*raw\s*\}\}\}\}")
# Used only to explain why _TAG did not match.
_DIAGNOSE = re.compile(
    r"""(?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')|(?P<key>\[[^\]{}\n]*\])"""
    r"""|(?P<quote>["'])|(?P<bracket>\[)|(?P<open>\{\{)|(?P<close>\}\})|[^"'\[{}]+|.""",
    re.DOTALL,
)


_ELSE = Tag(TagKind.ELSE)


class _OpenBlock:
    __slots__ = ("body", "chained", "inverse", "open_end", "start", "tag")

    def __init__(self, tag: Tag, start: int, open_end: int, chained: bool) -> None:
        self.tag = tag
        self.start = start
        self.open_end = open_end
        self.chained = chained  # opened by ``{{else helper x}}``; closed by the parent's close tag
        self.body: list[Node] = []
        self.inverse: list[Node] | None = None


class _Parser:
    __slots__ = ("current", "last_text", "root", "source", "stack", "strip_next", "trim_line")

    def __init__(self, source: str) -> None:
        self.source = source
        self.root: list[Node] = []
        self.current = self.root  # the node list receiving new nodes
        self.stack: list[_OpenBlock] = []
        self.strip_next = False  # the previous tag ended with ``~}}``
        self.trim_line = False  # the previous tag was standalone
        self.last_text: Text | None = None  # the text node that ends right where the current tag starts

    def parse(self) -> Template:
        source = self.source
        find = source.find
        match = _SIMPLE_OUTPUT.match
        pieces: list[str] = []  # text with escapes, joined at the next live tag
        text_start = piece_from = pos = 0
        while (brace := find("{{", pos)) != -1:
            slashes = 0
            while brace - slashes > piece_from and source[brace - slashes - 1] == "\\":
                slashes += 1
            if slashes == 1:  # \{{ is literal text
                pieces.append(source[piece_from : brace - 1])
                literal_end = brace + (4 if source.startswith("{{{{", brace) else 2)
                pieces.append(source[brace:literal_end])
                piece_from = pos = literal_end
                continue
            value = source[piece_from : brace - 1 if slashes else brace]
            if pieces:
                pieces.append(value)
                value = "".join(pieces)
                pieces.clear()
            if self.strip_next or self.trim_line:
                self.text(text_start, brace, value)
            elif value:
                node = Text(value, text_start, brace)
                self.current.append(node)
                self.last_text = node
            else:
                self.last_text = None
            m = match(source, brace)
            if m is not None and (expr := _simple_path(m)) is not None:
                # fast path: {{ a.b-c.d }}
                if m.group("ltrim") is not None:
                    self.trim_previous(None)
                end = m.end()
                self.current.append(Output(expr, False, brace, end))
                self.strip_next = m.group("rtrim") is not None
            else:
                end = self.tag(brace)
            text_start = piece_from = pos = end
        value = source[piece_from:]
        if pieces:
            pieces.append(value)
            value = "".join(pieces)
        self.text(text_start, len(source), value)
        if self.stack:
            block = self.chain_root(len(self.stack) - 1)
            name = block.tag.name
            raise TemplateSyntaxError(
                f"unclosed '{{{{#{name}}}}}' block; add '{{{{/{name}}}}}'", block.start, block.open_end
            )
        return Template(source, tuple(self.root))

    # -- text and whitespace ---------------------------------------------------------------
    def text(self, start: int, end: int, value: str) -> None:
        self.last_text = None
        if value:
            if self.strip_next:
                stripped = value.lstrip()
            elif self.trim_line:
                stripped = value.lstrip(" \t")
                if stripped.startswith("\n"):
                    stripped = stripped[1:]
                elif stripped.startswith("\r\n"):
                    stripped = stripped[2:]
            else:
                stripped = value
            start += len(value) - len(stripped)
            if stripped:
                node = Text(stripped, start, end)
                self.current.append(node)
                self.last_text = node
        self.strip_next = self.trim_line = False

    def trim_previous(self, chars: str | None) -> None:
        """Strip ``chars`` (all whitespace if None) from the end of the text right before the tag."""
        node = self.last_text
        current = self.current
        if node is None or not current or current[-1] is not node:
            return
        value = node.value.rstrip(chars)
        if len(value) == len(node.value):
            return
        if value:
            node = Text(value, node.start, node.end - (len(node.value) - len(value)))
            current[-1] = node
            self.last_text = node
        else:
            current.pop()
            self.last_text = None

    def standalone(self, start: int, end: int) -> None:
        """If the tag ``[start, end)`` is alone on its line, remove the line around it."""
        source = self.source
        i = start
        while i > 0 and source[i - 1] in " \t":
            i -= 1
        if i > 0 and source[i - 1] not in "\r\n":
            return
        j, n = end, len(source)
        while j < n and source[j] in " \t":
            j += 1
        if j < n and source[j] not in "\r\n":
            return
        self.trim_previous(" \t")
        self.trim_line = True

    # -- tags ------------------------------------------------------------------------------
    def tag(self, start: int) -> int:
        """Handle the tag starting at ``start`` (its ``{{``); return where it ends."""
        source = self.source
        simple = _SIMPLE.match(source, start)
        if simple is not None:
            return self.simple_tag(simple)
        simple = _SIMPLE_CALL.match(source, start)
        if simple is not None:
            end = self.simple_call(simple)
            if end:
                return end
        if source.startswith("{{{{", start):
            return self.raw_block(start)
        m = _TAG.match(source, start)
        if m is None:
            raise self.diagnose(start)
        end = m.end()
        if m.group("ltrim") is not None:
            self.trim_previous(None)
        rtrim = m.group("rtrim") is not None
        comment = m.group("comment")
        if comment is not None:
            self.standalone(start, end)
            text = comment[3:-2] if comment.startswith("!--") else comment[1:]
            self.current.append(Comment(text, start, end))
            self.strip_next = rtrim
            return end
        triple = m.group("triple") is not None
        tag = parse_tag(source, m.start("body"), m.end("body"), start, end, triple)
        kind = tag.kind
        if kind is TagKind.OUTPUT:
            assert tag.expr is not None
            self.current.append(Output(tag.expr, triple, start, end))
        elif kind is TagKind.OPEN:
            self.open_tag(tag, start, end)
        elif kind is TagKind.ELSE:
            self.else_tag(tag, start, end)
        else:
            self.close_tag(tag, start, end)
        self.strip_next = rtrim
        return end

    def simple_tag(self, m: re.Match[str]) -> int:
        """Handle ``{{/name}}``, ``{{else}}`` or ``{{^}}`` matched by ``_SIMPLE``."""
        start, end = m.span()
        if m.group("ltrim") is not None:
            self.trim_previous(None)
        name = m.group("close")
        if name is None:
            self.else_tag(_ELSE, start, end)
        else:
            self.close_tag(Tag(TagKind.CLOSE, None, name, m.start("close"), m.end("close")), start, end)
        self.strip_next = m.group("rtrim") is not None
        return end

    def simple_call(self, m: re.Match[str]) -> int:
        """Handle ``{{ helper a.b }}`` or ``{{#helper a.b}}``; 0 to defer to the general path."""
        name = m.group("name")
        block = m.group("hash") is not None
        if name in _NOT_SIMPLE or (block and name not in BLOCK_HELPERS):
            return 0
        param = _simple_path(m)
        if param is None:
            return 0
        start, end = m.span()
        if m.group("ltrim") is not None:
            self.trim_previous(None)
        name_start, name_end = m.span("name")
        if block:
            self.open_tag(Tag(TagKind.OPEN, None, name, name_start, name_end, (param,)), start, end)
        else:
            call = Call(name, name_start, name_end, (param,), (), name_start, param.end)
            self.current.append(Output(call, False, start, end))
        self.strip_next = m.group("rtrim") is not None
        return end

    def open_tag(self, tag: Tag, start: int, end: int) -> None:
        self.standalone(start, end)
        block = _OpenBlock(tag, start, end, chained=False)
        self.stack.append(block)
        self.current = block.body

    def else_tag(self, tag: Tag, start: int, end: int) -> None:
        text = self.source[start:end]
        if not self.stack:
            raise TemplateSyntaxError(f"'{text}' outside of a block", start, end)
        top = self.stack[-1]
        if top.inverse is not None:
            raise TemplateSyntaxError(
                f"a block can have only one '{{{{else}}}}'; unexpected '{text}'", start, end
            )
        self.standalone(start, end)
        top.inverse = []
        if tag.name:  # {{else if x}}: a nested block in the inverse, closed with the outer block
            block = _OpenBlock(tag, start, end, chained=True)
            self.stack.append(block)
            self.current = block.body
        else:
            self.current = top.inverse

    def close_tag(self, tag: Tag, start: int, end: int) -> None:
        name = tag.name
        stack = self.stack
        if not stack:
            raise TemplateSyntaxError(f"'{{{{/{name}}}}}' has no matching '{{{{#{name}}}}}'", start, end)
        opener = self.chain_root(len(stack) - 1)
        expected = opener.tag.name
        if expected != name:
            raise TemplateSyntaxError(
                f"'{{{{/{name}}}}}' does not match the open '{{{{#{expected}}}}}' block; "
                f"expected '{{{{/{expected}}}}}'",
                start,
                end,
            )
        self.standalone(start, end)
        node: Block | None = None
        while True:
            block = stack.pop()
            if node is not None:
                assert block.inverse is not None
                block.inverse.append(node)
            t = block.tag
            node = Block(
                t.name,
                t.name_start,
                t.name_end,
                t.params,
                t.hash,
                t.block_params,
                tuple(block.body),
                None if block.inverse is None else tuple(block.inverse),
                block.start,
                block.open_end,
                start,
                end,
            )
            if block is opener:
                break
        self.current = self.container()
        self.current.append(node)

    def raw_block(self, start: int) -> int:
        """``{{{{raw}}}} ... {{{{/raw}}}}``: the content is literal text."""
        source = self.source
        m = _RAW_OPEN.match(source, start)
        if m is None:
            raise TemplateSyntaxError(
                "raw blocks are only supported as '{{{{raw}}}} ... {{{{/raw}}}}'", start, start + 4
            )
        close = _RAW_CLOSE.search(source, m.end())
        if close is None:
            raise TemplateSyntaxError("unclosed '{{{{raw}}}}' block; add '{{{{/raw}}}}'", start, m.end())
        self.standalone(start, m.end())
        self.text(m.end(), close.start(), source[m.end() : close.start()])
        self.standalone(close.start(), close.end())
        return close.end()

    def chain_root(self, index: int) -> _OpenBlock:
        """The block whose close tag ends the (possibly ``else if``-chained) block at ``index``."""
        stack = self.stack
        while stack[index].chained:
            index -= 1
        return stack[index]

    def container(self) -> list[Node]:
        if not self.stack:
            return self.root
        top = self.stack[-1]
        return top.body if top.inverse is None else top.inverse

    def diagnose(self, start: int) -> TemplateSyntaxError:
        """Explain why no tag could be matched at ``start``."""
        source = self.source
        triple = source.startswith("{{{", start)
        opener = "{{{" if triple else "{{"
        i = start + len(opener)
        if source.startswith("~", i):
            i += 1
        if source.startswith("!", i):
            if source.startswith("!--", i):
                return TemplateSyntaxError("unclosed comment '{{!--'; add '--}}'", start, i + 3)
            return TemplateSyntaxError("unclosed comment '{{!'; add '}}'", start, i + 1)
        for m in _DIAGNOSE.finditer(source, i):
            kind = m.lastgroup
            if kind == "quote":
                return TemplateSyntaxError("unterminated string literal", m.start(), m.end())
            if kind == "bracket":
                return TemplateSyntaxError("unclosed '[' in path; add ']'", m.start(), m.end())
            if kind == "open":
                break
            if kind == "close":
                if triple:
                    return TemplateSyntaxError("unclosed '{{{'; add '}}}'", start, start + 3)
                return TemplateSyntaxError("invalid tag", start, m.end())  # pragma: no cover - defensive
        closer = "}}}" if triple else "}}"
        return TemplateSyntaxError(f"unclosed '{opener}'; add '{closer}'", start, start + len(opener))


def _simple_path(m: re.Match[str]) -> PathExpr | None:
    """The path of a fast-path match, or None when it needs the general parser."""
    path = m.group("path")
    start, end = m.span("path")
    if path[0] == "@":
        if path.startswith("@root"):
            return None
        return PathExpr(path, PathKind.DATA, 0, tuple(path[1:].split(".")), start, end)
    if path.startswith("this."):
        return PathExpr(path, PathKind.THIS, 0, tuple(path[5:].split(".")), start, end)
    parts = tuple(path.split("."))
    if parts[0] in _NOT_SIMPLE:
        return None
    return PathExpr(path, PathKind.CONTEXT, 0, parts, start, end)


@functools.lru_cache(maxsize=4096)
def _compile(source: str) -> Template | TemplateSyntaxError:
    try:
        return _Parser(source).parse()
    except TemplateSyntaxError as error:
        return TemplateSyntaxError(error.message, error.start, error.end)


def parse(source: str) -> Template:
    """Parse a template (cached by source); raise :class:`TemplateSyntaxError` on bad syntax."""
    result = _compile(source)
    if isinstance(result, TemplateSyntaxError):
        raise TemplateSyntaxError(result.message, result.start, result.end)
    return result


_CHECK_CACHED_UP_TO = 512
"""Longer sources (an agent file's system prompt) are checked without the cache: each is checked
once per lint run, parses in about 10 us per 1,000 characters, and 4,096 cached ones would hold
megabytes of text and nodes (docs/performance.md#memory)."""


def check_syntax(source: str) -> TemplateSyntaxError | None:
    """The syntax error of a template, or None when it parses."""
    result = _compile(source) if len(source) <= _CHECK_CACHED_UP_TO else _compile.__wrapped__(source)
    if isinstance(result, Template):
        return None
    return TemplateSyntaxError(result.message, result.start, result.end)
