"""Parsing the inside of one ``{{ ... }}`` tag: paths, literals, helper calls and block tags.

The template scanner (:mod:`.parser`) finds the tags; this module turns a tag body into a
:class:`Tag`.  Every error carries the code-point range of the offending token or tag.
"""

from __future__ import annotations

import json
import re
from enum import Enum
from typing import NamedTuple

from lait_core.syntax.template.ast import Call, Expr, HashArg, LiteralExpr, PathExpr, PathKind, Scalar
from lait_core.syntax.template.template_errors import TemplateSyntaxError

BLOCK_HELPERS = ("if", "unless", "each", "with")
"""The block helpers: ``{{#if}}``, ``{{#unless}}``, ``{{#each}}``, ``{{#with}}``."""

HELPERS = ("json", "text")
"""The inline helpers: ``{{ json x }}``, ``{{ text x }}``."""

_BLOCK_PARAM_LIMIT = {"each": 2, "with": 1}

# One token of a tag body, leading whitespace skipped.  Brackets (``a.[my key]``) and string
# literals are single tokens; ``key=`` starts a hash argument.
_TOKEN = re.compile(
    r"""\s*(?:
      (?P<str>"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*')
    | (?P<key>[\w-]+=)
    | (?P<word>(?:\[[^\]]*\]|[^\s()"'|=\[\]{}])+)
    | (?P<open>\()
    | (?P<close>\))
    | (?P<pipe>\|)
    | (?P<bad>\S)
    )""",
    re.VERBOSE,
)
_SPACE = re.compile(r"\s*")
_NUMBER = re.compile(r"-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")
_IDENTIFIER = re.compile(r"[\w-]+")
_SEGMENT = re.compile(r"[\w-]+|\[([^\]]*)\]")
_KEYWORDS: dict[str, Scalar] = {"true": True, "false": False, "null": None}


class TagKind(Enum):
    OUTPUT = "output"  # {{ expr }}
    OPEN = "open"  # {{#helper arg}}
    CLOSE = "close"  # {{/helper}}
    ELSE = "else"  # {{else}}, {{^}} or a chained {{else helper arg}}


class Tag(NamedTuple):
    """One parsed tag (internal to the parser)."""

    kind: TagKind
    expr: Expr | None = None  # OUTPUT
    name: str = ""  # OPEN, CLOSE, chained ELSE
    name_start: int = 0
    name_end: int = 0
    params: tuple[Expr, ...] = ()
    hash: tuple[HashArg, ...] = ()
    block_params: tuple[str, ...] = ()


# A token: (kind, start, end) with absolute offsets.
_Token = tuple[str, int, int]

_UNSUPPORTED_SIGILS = {
    ">": "partials ('{{> name}}') are not supported",
    "*": "decorators ('{{* name}}') are not supported",
    "&": "'{{& x}}' is not supported; output is never escaped, so write '{{ x }}'",
}


class _TagParser:
    __slots__ = ("source", "tag_end", "tag_start", "tokens")

    def __init__(self, source: str, tag_start: int, tag_end: int) -> None:
        self.source = source
        self.tag_start = tag_start
        self.tag_end = tag_end
        self.tokens: list[_Token] = []

    # -- helpers ---------------------------------------------------------------------------
    def error(self, message: str, start: int | None = None, end: int | None = None) -> TemplateSyntaxError:
        return TemplateSyntaxError(
            message, self.tag_start if start is None else start, self.tag_end if end is None else end
        )

    def tokenize(self, start: int, end: int) -> list[_Token]:
        tokens: list[_Token] = []
        for m in _TOKEN.finditer(self.source, start, end):
            kind = m.lastgroup
            if kind is None:  # trailing whitespace
                continue
            s, e = m.span(kind)
            if kind == "bad":
                raise self.error(f"unexpected {self.source[s:e]!r}", s, e)
            tokens.append((kind, s, e))
        self.tokens = tokens
        return tokens

    def text(self, token: _Token) -> str:
        return self.source[token[1] : token[2]]

    def unexpected(self, token: _Token, where: str = "") -> TemplateSyntaxError:
        return self.error(f"unexpected {self.text(token)!r}{where}", token[1], token[2])

    def identifier(self, token: _Token, what: str) -> str:
        text = self.text(token)
        if token[0] != "word" or _IDENTIFIER.fullmatch(text) is None:
            raise self.error(f"expected {what}, found {text!r}", token[1], token[2])
        return text

    # -- expressions -----------------------------------------------------------------------
    def param(self, i: int) -> tuple[Expr, int]:
        kind, s, e = self.tokens[i]
        if kind == "word":
            return self.word(s, e), i + 1
        if kind == "str":
            return LiteralExpr(_unquote(self.source[s:e]), s, e), i + 1
        if kind == "open":
            return self.subexpression(i)
        if kind == "key":
            raise self.error(f"unexpected hash argument {self.source[s:e]!r}", s, e)
        raise self.unexpected(self.tokens[i])

    def word(self, s: int, e: int) -> Expr:
        text = self.source[s:e]
        if text in _KEYWORDS:
            return LiteralExpr(_KEYWORDS[text], s, e)
        if _NUMBER.fullmatch(text) is not None:
            number: int | float = int(text) if text.lstrip("-").isdigit() else float(text)
            return LiteralExpr(number, s, e)
        return parse_path(self.source, s, e)

    def subexpression(self, i: int) -> tuple[Call, int]:
        tokens = self.tokens
        open_start, open_end = tokens[i][1], tokens[i][2]
        if i + 1 >= len(tokens):
            raise self.error("unclosed '(' in subexpression; add ')'", open_start, open_end)
        name_token = tokens[i + 1]
        name = self.identifier(name_token, "a helper name after '('")
        params, hashes, block_params, j = self.arguments(i + 2, in_subexpression=True)
        if j >= len(tokens):
            raise self.error("unclosed '(' in subexpression; add ')'", open_start, open_end)
        if block_params:
            raise self.error(
                "block parameters are not allowed in a subexpression", tokens[i][1], tokens[j][2]
            )
        close_end = tokens[j][2]
        call = Call(name, name_token[1], name_token[2], params, hashes, open_start, close_end)
        return call, j + 1

    def arguments(
        self, i: int, in_subexpression: bool = False
    ) -> tuple[tuple[Expr, ...], tuple[HashArg, ...], tuple[str, ...], int]:
        """Positional and ``key=value`` arguments and ``as |a b|`` block params from token ``i``.

        Stops at the end or, in a subexpression, at its ``)`` (returned index points at it).
        """
        tokens = self.tokens
        params: list[Expr] = []
        hashes: list[HashArg] = []
        block_params: tuple[str, ...] = ()
        n = len(tokens)
        while i < n:
            token = tokens[i]
            kind = token[0]
            if kind == "close":
                if in_subexpression:
                    break
                raise self.unexpected(token)
            if block_params:
                raise self.error("block parameters 'as |...|' must come last", token[1], token[2])
            if kind == "key":
                key = self.source[token[1] : token[2] - 1]
                if i + 1 >= n or tokens[i + 1][0] == "close":
                    raise self.error(f"missing value after '{key}='", token[1], token[2])
                value, i = self.param(i + 1)
                hashes.append(HashArg(key, value, token[1], value.end))
                continue
            if kind == "word" and self.text(token) == "as" and i + 1 < n and tokens[i + 1][0] == "pipe":
                block_params, i = self.block_params(i)
                continue
            value, i = self.param(i)
            params.append(value)
        return tuple(params), tuple(hashes), block_params, i

    def block_params(self, i: int) -> tuple[tuple[str, ...], int]:
        tokens = self.tokens
        as_start = tokens[i][1]
        names: list[str] = []
        j = i + 2
        while j < len(tokens) and tokens[j][0] != "pipe":
            names.append(self.identifier(tokens[j], "a block parameter name"))
            j += 1
        if j >= len(tokens):
            raise self.error("unclosed block parameters; add '|'", as_start, tokens[-1][2])
        if not names:
            raise self.error("empty block parameters 'as ||'", as_start, tokens[j][2])
        return tuple(names), j + 1

    # -- tags ------------------------------------------------------------------------------
    def block_tag(self, kind: TagKind, first: int, what: str) -> Tag:
        """``helper arg ... [as |x|]`` for ``{{#helper ...}}`` and ``{{else helper ...}}``."""
        tokens = self.tokens
        name_token = tokens[first]
        name = self.identifier(name_token, f"a block helper name after {what!r}")
        if name not in BLOCK_HELPERS:
            raise self.error(
                f"unknown block helper '#{name}'; expected #if, #unless, #each or #with",
                name_token[1],
                name_token[2],
            )
        params, hashes, block_params, _ = self.arguments(first + 1)
        if not params:
            raise self.error(f"'{{{{#{name}}}}}' needs one argument, e.g. '{{{{#{name} inputs.x}}}}'")
        if len(params) > 1:
            extra = params[1]
            raise self.error(f"'{{{{#{name}}}}}' takes one argument", extra.start, params[-1].end)
        if block_params:
            limit = _BLOCK_PARAM_LIMIT.get(name, 0)
            if len(block_params) > limit:
                detail = "are not supported" if limit == 0 else f"allow at most {limit} name(s)"
                raise self.error(f"block parameters on '{{{{#{name}}}}}' {detail}")
        return Tag(kind, None, name, name_token[1], name_token[2], params, hashes, block_params)

    def output(self) -> Tag:
        tokens = self.tokens
        head = tokens[0]
        if len(tokens) == 1:
            if head[0] == "key":
                raise self.error(f"unexpected hash argument {self.text(head)!r}", head[1], head[2])
            expr, _ = self.param(0)
            return Tag(TagKind.OUTPUT, expr)
        if head[0] == "open":
            expr, i = self.subexpression(0)
            if i < len(tokens):
                raise self.unexpected(tokens[i], " after the subexpression")
            return Tag(TagKind.OUTPUT, expr)
        text = self.text(head)
        if (
            head[0] != "word"
            or _IDENTIFIER.fullmatch(text) is None
            or text in _KEYWORDS
            or _NUMBER.fullmatch(text) is not None
        ):
            raise self.error(
                f"expected a helper name before the arguments, found {text!r}; "
                f"to output a value write '{{{{ value }}}}', to convert it '{{{{ json value }}}}'",
                head[1],
                head[2],
            )
        params, hashes, block_params, _ = self.arguments(1)
        if block_params:
            raise self.error("block parameters 'as |...|' are only allowed on '{{#each}}' and '{{#with}}'")
        call = Call(text, head[1], head[2], params, hashes, head[1], tokens[-1][2])
        return Tag(TagKind.OUTPUT, call)


def parse_tag(source: str, body_start: int, body_end: int, tag_start: int, tag_end: int, triple: bool) -> Tag:
    """Parse the body ``source[body_start:body_end]`` of the tag ``source[tag_start:tag_end]``."""
    p = _TagParser(source, tag_start, tag_end)
    k = _skip_space(source, body_start, body_end)
    if k == body_end:
        raise p.error(f"empty expression {source[tag_start:tag_end]!r}")
    sigil = source[k]
    if sigil in "#/^" and triple:
        raise p.error(f"unexpected {sigil!r} in '{{{{{{'", k, k + 1)
    if sigil == "#":
        if k + 1 < body_end and source[k + 1] in _UNSUPPORTED_SIGILS:
            raise p.error(_UNSUPPORTED_SIGILS[source[k + 1]], k, k + 2)
        if not p.tokenize(k + 1, body_end):
            raise p.error("missing block helper name after '#'")
        return p.block_tag(TagKind.OPEN, 0, "#")
    if sigil == "/":
        tokens = p.tokenize(k + 1, body_end)
        if not tokens:
            raise p.error("missing block name after '/'")
        name = p.identifier(tokens[0], "a block name after '/'")
        if len(tokens) > 1:
            raise p.unexpected(tokens[1], " in a closing tag")
        return Tag(TagKind.CLOSE, None, name, tokens[0][1], tokens[0][2])
    if sigil == "^":
        if _skip_space(source, k + 1, body_end) == body_end:
            return Tag(TagKind.ELSE)
        raise p.error("inverted sections '{{^x}}' are not supported; use '{{#unless x}}'")
    if sigil in _UNSUPPORTED_SIGILS:
        raise p.error(_UNSUPPORTED_SIGILS[sigil], k, k + 1)
    tokens = p.tokenize(k, body_end)
    if tokens[0][0] == "word" and p.text(tokens[0]) == "else":
        if triple:
            raise p.error("'else' cannot be used in '{{{'", tokens[0][1], tokens[0][2])
        if len(tokens) == 1:
            return Tag(TagKind.ELSE)
        return p.block_tag(TagKind.ELSE, 1, "else")
    return p.output()


def _skip_space(source: str, start: int, end: int) -> int:
    m = _SPACE.match(source, start, end)
    return start if m is None else m.end()


def parse_path(source: str, start: int, end: int) -> PathExpr:
    """Parse the path ``source[start:end]`` (``a.b``, ``a.[0]``, ``../x``, ``this.x``, ``@index``)."""
    text = source[start:end]
    if text == "this" or text == ".":
        return PathExpr(text, PathKind.THIS, 0, (), start, end)
    kind = PathKind.CONTEXT
    depth = 0
    i = 0
    if text[0] == "@":
        if text == "@root":
            return PathExpr(text, PathKind.ROOT, 0, (), start, end)
        if text.startswith(("@root.", "@root/")):
            kind, i = PathKind.ROOT, 6
        else:
            kind, i = PathKind.DATA, 1
    elif text.startswith(("this.", "this/")):
        kind, i = PathKind.THIS, 5
    elif text.startswith("./"):
        kind, i = PathKind.THIS, 2
    else:
        while text.startswith("../", i):
            depth += 1
            i += 3
        rest = text[i:]
        if depth and rest == "this":
            return PathExpr(text, kind, depth, (), start, end)
        if rest == "..":
            return PathExpr(text, kind, depth + 1, (), start, end)
    n = len(text)
    if i >= n:
        raise TemplateSyntaxError(f"incomplete path {text!r}", start, end)
    parts: list[str] = []
    while True:
        m = _SEGMENT.match(text, i)
        if m is None:
            char = text[i]
            if char in "./":
                raise TemplateSyntaxError(f"empty segment in path {text!r}", start + i, start + i + 1)
            raise TemplateSyntaxError(
                f"invalid character {char!r} in path {text!r}", start + i, start + i + 1
            )
        key = m.group(1)
        parts.append(m.group(0) if key is None else key)
        i = m.end()
        if i == n:
            break
        char = text[i]
        if char not in "./":
            raise TemplateSyntaxError(
                f"invalid character {char!r} in path {text!r}", start + i, start + i + 1
            )
        i += 1
        if i == n:
            raise TemplateSyntaxError(f"path {text!r} ends with {char!r}", start + i - 1, start + i)
    return PathExpr(text, kind, depth, tuple(parts), start, end)


def _unquote(literal: str) -> str:
    body = literal[1:-1]
    if "\\" not in body:
        return body
    if literal[0] == '"':
        try:
            value = json.loads(literal)
        except ValueError:
            return body.replace('\\"', '"')
        return value if isinstance(value, str) else body
    return body.replace("\\'", "'").replace("\\\\", "\\")
