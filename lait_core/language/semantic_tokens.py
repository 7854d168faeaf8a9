"""Semantic tokens for the embedded languages of lait files: jq programs and ``{{ }}`` templates.

The YAML grammar of an editor colours ``jq: '$steps.x | length'`` as one string; these tokens
colour what is inside. Where the jq and template texts are is decided by the workflow loader (the
same :class:`~lait_core.documents.workflow_file.Expr` lists the linter checks), plus an agent file's
Markdown body and the ``template`` of the config's ``prompts:``.

The lexers are tolerant: they work on half-typed text (an unterminated string or tag colours up to
the end) and never raise. Positions come from the scalar's value-to-source map
(:func:`lait_core.syntax.yaml.scalars.value_offsets`), so they are exact in every YAML scalar style
(quoted with escapes, folded, block scalars with indentation); a token whose characters are not
contiguous in the file (across a folded line break or an indentation) is split into one token per
piece, so no token ever spans two lines (LSP clients need not support multi-line tokens).

:func:`encode` produces LSP's relative encoding with UTF-16 columns; :func:`delta` the edits
between two encodings.

Decision: the token types are LSP's standard ones (default themes colour them): jq variables and
template paths are ``variable``, fields and path segments ``property``, helpers and jq functions
``function`` (``defaultLibrary`` for the built-in ones), ``{{ }}`` delimiters ``macro``, block
keywords and jq keywords ``keyword``, hash keys and block params ``parameter``.
"""

from __future__ import annotations

import bisect
import contextlib
import re
from collections.abc import Iterable
from typing import NamedTuple

from lait_core.lint.discovery import FileKind
from lait_core.syntax.positions import LineIndex, Position
from lait_core.syntax.yaml.tree import MappingNode, ScalarNode

TOKEN_TYPES: tuple[str, ...] = (
    "variable",
    "property",
    "function",
    "keyword",
    "string",
    "number",
    "operator",
    "comment",
    "macro",
    "parameter",
)
"""The legend's token types (their index is what the encoding carries)."""
TOKEN_MODIFIERS: tuple[str, ...] = ("declaration", "defaultLibrary", "readonly")
"""The legend's modifiers (bit ``1 << index``)."""

_TYPE_INDEX = {name: i for i, name in enumerate(TOKEN_TYPES)}
_MOD_BIT = {name: 1 << i for i, name in enumerate(TOKEN_MODIFIERS)}

MAX_TEXT = 2_000_000
"""Documents longer than this (characters) get no tokens: colouring is not worth blocking on."""


class Piece(NamedTuple):
    """A token inside one embedded text: ``start``/``end`` index that text (code points)."""

    start: int
    end: int
    type: str
    modifiers: tuple[str, ...] = ()


class Token(NamedTuple):
    """A token of a file: on one line, ``start``/``end`` are code-point columns."""

    line: int
    start: int
    end: int
    type: str
    modifiers: tuple[str, ...] = ()


# --------------------------------------------------------------------------------------------
# jq

JQ_KEYWORDS = frozenset(
    {
        "def",
        "if",
        "then",
        "elif",
        "else",
        "end",
        "as",
        "reduce",
        "foreach",
        "try",
        "catch",
        "label",
        "import",
        "include",
        "module",
        "and",
        "or",
        "not",
        "__loc__",
    }
)
_JQ_CONSTANTS = frozenset({"true", "false", "null"})
JQ_BUILTINS = frozenset(
    re.findall(
        r"\S+",
        """
    add all any arrays booleans del empty error explode first floor getpath group_by has implode in
    index indices inside isinfinite isnan isnormal isvalid iterables join keys keys_unsorted last
    leaf_paths length limit ltrimstr rtrimstr map map_values match max max_by min min_by nan infinite
    normals nulls numbers objects path paths range recurse recurse_down reverse rindex scalars select
    setpath sort sort_by split splits sqrt startswith endswith strings sub gsub test capture scan
    to_entries from_entries with_entries tojson fromjson tostring tonumber type unique unique_by
    until values walk while env input inputs debug stderr input_filename input_line_number splits
    ascii_downcase ascii_upcase ascii implode ltrimstr todate fromdate now mktime gmtime localtime
    strftime strptime strflocaltime todateiso8601 fromdateiso8601 dateadd datesub date tostream
    fromstream truncate_stream getpath delpaths to_number abs toarray pick have_literal_numbers
    have_decnum significand logb gamma lgamma tgamma frexp ldexp modf pow log log10 log2 exp exp10
    exp2 round ceil fabs trunc sin cos tan asin acos atan sinh cosh tanh min_by splits combinations
    transpose flatten halt halt_error getpath error not any all isempty first last nth until repeat
    range tojson ascii utf8bytelength infinite env builtins input_line_number ltrimstr trim ltrim
    rtrim getpath splits test ascii limit IN INDEX GROUP_BY UNIQUE_BY ANY ALL add getpath paths
    @text @json @html @uri @csv @tsv @sh @base64 @base64d @base32 @base32d
    """,
    )
)

_JQ_SPACE = re.compile(r"[ \t\r\n]+")
_JQ_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:::[A-Za-z_][A-Za-z0-9_]*)*")
_JQ_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_JQ_OPERATOR = re.compile(r"\?//|//=|\|=|\+=|-=|\*=|/=|%=|==|!=|<=|>=|//|\.\.|[|,+\-*/%=<>?]")
_JQ_FORMAT = re.compile(r"@[A-Za-z0-9_]+")
_JQ_KEY_AFTER = re.compile(r"[ \t\r\n]*:(?!:)")


class _Lexer:
    """A lexer's source text and the pieces it emits (empty ones are dropped)."""

    __slots__ = ("out", "src")

    def __init__(self, src: str) -> None:
        self.src = src
        self.out: list[Piece] = []

    def emit(self, start: int, end: int, kind: str, *mods: str) -> None:
        if end > start:
            self.out.append(Piece(start, end, kind, mods))


class _JqLexer(_Lexer):
    """jq's tokens: strings (with ``\\(...)`` interpolation lexed as code), numbers, ``$variables``,
    ``.fields``, object keys, keywords, functions, formats, operators and comments."""

    __slots__ = ()

    def code(self, i: int, nested: bool) -> int:
        """Lex code from ``i``; in an interpolation stop after the ``)`` that closes it."""
        src = self.src
        n = len(src)
        braces: list[str] = []  # open brackets, to tell object keys ({a: 1}) from functions
        after_as = False
        after_def = False
        while i < n:
            ch = src[i]
            m = _JQ_SPACE.match(src, i)
            if m:
                i = m.end()
                continue
            if ch == "#":
                eol = src.find("\n", i)
                eol = n if eol == -1 else eol
                self.emit(i, eol, "comment")
                i = eol
                continue
            if ch == '"':
                key = bool(braces) and braces[-1] == "{" and self._object_key(i)
                i = self.string(i, "property" if key else "string")
                continue
            if ch in "([{":
                braces.append(ch)
                i += 1
                continue
            if ch in ")]}":
                if braces:
                    braces.pop()
                elif nested and ch == ")":
                    self.emit(i, i + 1, "operator")
                    return i + 1
                i += 1
                continue
            if ch == "$":
                m = _JQ_IDENT.match(src, i + 1)
                if m:
                    name = m.group(0)
                    mods: tuple[str, ...] = ("declaration",) if after_as else ()
                    if name in ("ENV", "__loc__"):
                        mods = ("defaultLibrary",)
                    self.emit(i, m.end(), "variable", *mods)
                    i = m.end()
                    after_as = False
                    continue
                i += 1
                continue
            if ch == "." and i + 1 < n and (src[i + 1].isalpha() or src[i + 1] == "_"):
                m = _JQ_IDENT.match(src, i + 1)
                if m:
                    self.emit(i + 1, m.end(), "property")
                    i = m.end()
                    continue
            if ch == "." and i + 1 < n and src[i + 1] == '"':
                i = self.string(i + 1, "property")
                continue
            m = _JQ_NUMBER.match(src, i)
            if m and (ch != "." or (i == 0 or not src[i - 1].isalnum())):
                self.emit(i, m.end(), "number")
                i = m.end()
                continue
            if ch == "@":
                m = _JQ_FORMAT.match(src, i)
                if m:
                    self.emit(i, m.end(), "function", "defaultLibrary")
                    i = m.end()
                    continue
            m = _JQ_IDENT.match(src, i)
            if m:
                word = m.group(0)
                end = m.end()
                if (
                    braces
                    and braces[-1] == "{"
                    and (self._object_key(end, ident=True) or self._shorthand(i, end))
                ):
                    self.emit(i, end, "property")
                elif word in JQ_KEYWORDS:
                    self.emit(i, end, "keyword")
                    after_as = word == "as"
                    after_def = word == "def"
                    i = end
                    continue
                elif word in _JQ_CONSTANTS:
                    self.emit(i, end, "keyword")
                elif after_def:
                    self.emit(i, end, "function", "declaration")
                else:
                    self.emit(i, end, "function", *(("defaultLibrary",) if word in JQ_BUILTINS else ()))
                after_def = False
                i = end
                continue
            m = _JQ_OPERATOR.match(src, i)
            if m:
                self.emit(i, m.end(), "operator")
                i = m.end()
                continue
            i += 1  # ; : and anything else: no token
        return i

    def _object_key(self, at: int, ident: bool = False) -> bool:
        """Whether the identifier ending at ``at`` (or the string starting there) is followed by ':'."""
        if not ident:
            end = self._string_end(at)
            return bool(_JQ_KEY_AFTER.match(self.src, end))
        return bool(_JQ_KEY_AFTER.match(self.src, at))

    def _shorthand(self, start: int, end: int) -> bool:
        """``{a, b}``: an identifier alone between ``{``/``,`` and ``,``/``}``."""
        src = self.src
        b = start - 1
        while b >= 0 and src[b] in " \t\r\n":
            b -= 1
        a = end
        while a < len(src) and src[a] in " \t\r\n":
            a += 1
        return b >= 0 and src[b] in "{," and a < len(src) and src[a] in ",}"

    def _string_end(self, i: int) -> int:
        from lait_core.language.jq_objects import skip_string

        return skip_string(self.src, i)

    def string(self, i: int, kind: str) -> int:
        """A string literal from its opening quote; interpolations are lexed as code."""
        src = self.src
        n = len(src)
        seg = i
        j = i + 1
        while j < n:
            c = src[j]
            if c == "\\" and j + 1 < n and src[j + 1] == "(":
                self.emit(seg, j, kind)
                self.emit(j, j + 2, "operator")
                j = self.code(j + 2, nested=True)
                seg = j
                continue
            if c == "\\":
                j += 2
                continue
            if c == '"':
                self.emit(seg, j + 1, kind)
                return j + 1
            j += 1
        self.emit(seg, n, kind)
        return n


def jq_pieces(src: str) -> list[Piece]:
    """The tokens of a jq program (offsets into ``src``), in order."""
    lexer = _JqLexer(src)
    with contextlib.suppress(RecursionError):  # absurdly nested interpolations: colour what was found
        lexer.code(0, nested=False)
    return lexer.out


# --------------------------------------------------------------------------------------------
# templates

_TPL_BLOCK_HELPERS = frozenset({"if", "unless", "each", "with"})
_TPL_HELPERS = frozenset({"json", "text"})
_TPL_TOKEN = re.compile(
    r"""(?P<space>\s+)
    |(?P<str>"(?:[^"\\\n]|\\.)*"?|'(?:[^'\\\n]|\\.)*'?)
    |(?P<key>[\w-]+)=
    |(?P<as>as)\s*\|(?P<params>[^|]*)\|?
    |(?P<number>-?[0-9]+(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?)(?![\w.\[])
    |(?P<word>(?:\.\./|\./)*(?:@?[\w-]+|\.|\[[^\]]*\]?)(?:[./](?:[\w-]+|\[[^\]]*\]?))*)
    |(?P<open>\()|(?P<close>\))
    |(?P<other>.)""",
    re.VERBOSE | re.DOTALL,
)
_TPL_SEGMENT = re.compile(r"\[[^\]]*\]?|@?[\w-]+")


def _tag_end(src: str, i: int) -> tuple[int, int]:
    """(body end, tag end) of a tag whose body starts at ``i``: the ``}}`` outside quotes and
    ``[...]``; an unterminated tag ends at the end of its line."""
    n = len(src)
    j = i
    while j < n:
        c = src[j]
        if c == "}" and src.startswith("}}", j):
            body_end = j - 1 if j > i and src[j - 1] == "~" else j
            end = j + 2
            if end < n and src[end] == "}":
                end += 1
            return body_end, end
        if c in "\"'":
            close = src.find(c, j + 1)
            eol = src.find("\n", j + 1)
            if close == -1 or (eol != -1 and eol < close):
                j += 1
                continue
            j = close + 1
            continue
        if c == "{" and src.startswith("{{", j):
            break
        j += 1
    eol = src.find("\n", i)  # unterminated: the tag ends with its line
    eol = n if eol == -1 else min(eol, j)
    return eol, eol


class _TemplateLexer(_Lexer):
    __slots__ = ()

    def run(self) -> None:
        src = self.src
        n = len(src)
        pos = 0
        raw_close = ""
        while True:
            brace = src.find("{{", pos)
            if brace == -1:
                return
            slashes = 0
            while brace - slashes > 0 and src[brace - slashes - 1] == "\\":
                slashes += 1
            if slashes == 1:  # \{{ is text
                pos = brace + (4 if src.startswith("{{{{", brace) else 2)
                continue
            if src.startswith("{{{{", brace):  # raw block: {{{{raw}}}} ... {{{{/raw}}}}
                close = src.find("}}}}", brace + 4)
                if close == -1:
                    self.emit(brace, brace + 4, "macro")
                    return
                self.emit(brace, brace + 4, "macro")
                body = src[brace + 4 : close]
                word = re.search(r"[\w-]+", body)
                if word:
                    self.emit(brace + 4 + word.start(), brace + 4 + word.end(), "keyword")
                self.emit(close, close + 4, "macro")
                pos = close + 4
                if not body.strip().startswith("/") and word:
                    raw_close = "{{{{/" + word.group(0)
                    skip = src.find(raw_close, pos)
                    pos = n if skip == -1 else skip
                continue
            if src.startswith("{{!", brace) or src.startswith("{{~!", brace):
                long = src.startswith("--", src.index("!", brace) + 1)
                close = src.find("--}}" if long else "}}", brace + 3)
                end = n if close == -1 else close + (4 if long else 2)
                self.emit(brace, end, "comment")
                pos = end
                continue
            open_end = brace + 2
            if open_end < n and src[open_end] == "{":
                open_end += 1
            if open_end < n and src[open_end] == "~":
                open_end += 1
            self.emit(brace, open_end, "macro")
            body_end, end = _tag_end(src, open_end)
            self.body(open_end, body_end)
            self.emit(body_end, end, "macro")
            pos = max(end, open_end)

    def body(self, i: int, end: int) -> None:
        src = self.src
        j = i
        while j < end and src[j].isspace():
            j += 1
        first = True
        block = False
        if j < end and src[j] in "#/":
            m = re.compile(r"[#/]\s*([\w-]*)").match(src, j, end)
            assert m is not None
            self.emit(j, m.end(), "keyword")
            block = True
            j = m.end()
            first = False
        elif j < end and src[j] == "^":
            self.emit(j, j + 1, "keyword")
            j += 1
            first = False
        elif src.startswith("else", j) and (j + 4 >= end or not (src[j + 4].isalnum() or src[j + 4] in "_-")):
            self.emit(j, j + 4, "keyword")
            j += 4
            m = re.compile(r"\s+([\w-]+)").match(src, j, end)
            if m and m.group(1) in _TPL_BLOCK_HELPERS:
                self.emit(m.start(1), m.end(1), "keyword")
                j = m.end()
            first = False
        self.expressions(j, end, first and not block)

    def expressions(self, i: int, end: int, head: bool) -> None:
        """Paths, literals, helper calls, hash arguments and block params up to ``end``.
        ``head``: the first word is a helper when arguments follow it."""
        src = self.src
        call_head = head
        j = i
        while j < end:
            m = _TPL_TOKEN.match(src, j, end)
            if m is None:
                break
            kind = m.lastgroup
            if kind == "space":
                j = m.end()
                continue
            if kind == "other" or kind == "close":
                pass
            elif kind == "open":
                call_head = True
                j = m.end()
                continue
            elif kind == "str":
                self.emit(m.start(), m.end(), "string")
            elif kind == "number":
                self.emit(m.start(), m.end(), "number")
            elif kind == "key":
                self.emit(m.start("key"), m.end("key"), "parameter")
            elif kind == "as" or (kind == "params"):
                self.emit(m.start("as"), m.end("as"), "keyword")
                base = m.start("params")
                for p in re.finditer(r"[\w-]+", m.group("params") or ""):
                    self.emit(base + p.start(), base + p.end(), "parameter", "declaration")
            elif kind == "word":
                word = m.group("word")
                rest = src[m.end() : end]
                if call_head and (word in _TPL_HELPERS or (rest.strip() and rest.strip()[0] not in ")~")):
                    mods = ("defaultLibrary",) if word in _TPL_HELPERS | _TPL_BLOCK_HELPERS else ()
                    self.emit(m.start(), m.end(), "function", *mods)
                elif word in ("true", "false", "null", "this", "else"):
                    self.emit(m.start(), m.end(), "keyword")
                else:
                    self.path(m.start(), m.end())
            call_head = False
            j = m.end()

    def path(self, start: int, end: int) -> None:
        """``inputs.x.y``: the root is a variable, the segments after it properties."""
        src = self.src
        root = True
        for seg in _TPL_SEGMENT.finditer(src, start, end):
            text = seg.group(0)
            if root:
                if text == "this":
                    self.emit(seg.start(), seg.end(), "keyword")
                elif text.startswith("@"):
                    self.emit(seg.start(), seg.end(), "variable", "defaultLibrary")
                else:
                    self.emit(seg.start(), seg.end(), "variable")
                root = False
            else:
                self.emit(seg.start(), seg.end(), "property")


def template_pieces(src: str) -> list[Piece]:
    """The tokens of a template (offsets into ``src``), in order."""
    if "{{" not in src:
        return []
    lexer = _TemplateLexer(src)
    lexer.run()
    return lexer.out


# --------------------------------------------------------------------------------------------
# placing pieces in a file


class _Placer:
    """Turns pieces of embedded texts into file tokens on single lines."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.padded = text + "\n"
        self.index = LineIndex(text)
        self.starts = self.index.starts
        self.tokens: list[Token] = []
        self.seen: set[int] = set()

    def file_span(self, a: int, b: int, piece: Piece) -> None:
        """File offsets ``a:b`` (one contiguous run), split at line breaks."""
        text = self.text
        while a < b:
            nl = text.find("\n", a, b)
            stop = b if nl == -1 else nl
            run_end = stop
            if run_end > a and text[run_end - 1] == "\r":
                run_end -= 1
            if run_end > a:
                line = bisect.bisect_right(self.starts, a) - 1
                column = a - self.starts[line]
                self.tokens.append(Token(line, column, column + (run_end - a), piece.type, piece.modifiers))
            a = stop + 1 if nl != -1 else b

    def scalar(self, node: ScalarNode, pieces: list[Piece]) -> None:
        value = node.value
        if not pieces or not isinstance(value, str) or node.document is None or node.start in self.seen:
            return
        self.seen.add(node.start)
        starts, ends = self.offsets(node, value)
        n = len(starts)
        for piece in pieces:
            s, e = piece.start, min(piece.end, n)
            if s >= e:
                continue
            if ends[e - 1] - starts[s] == e - s and "\n" not in value[s:e]:
                self.file_span(starts[s], ends[e - 1], piece)
                continue
            run_start = -1
            run_end = -1
            for k in range(s, e):
                if value[k] in "\n\r":
                    if run_start >= 0:
                        self.file_span(run_start, run_end, piece)
                    run_start = -1
                    continue
                if run_start >= 0 and starts[k] == run_end:
                    run_end = ends[k]
                    continue
                if run_start >= 0:
                    self.file_span(run_start, run_end, piece)
                run_start, run_end = starts[k], ends[k]
            if run_start >= 0:
                self.file_span(run_start, run_end, piece)

    def offsets(self, node: ScalarNode, value: str) -> tuple[list[int], list[int]]:
        """Where each character of the value is in the file (start and end offsets)."""
        from lait_core.syntax.yaml.scalars import block_candidates, value_offsets

        if node.style == "|":  # literal: the value is the content characters, one for one
            candidates = block_candidates(self.text, node.start, node.end)
            content = "".join(map(self.padded.__getitem__, candidates[: len(value)]))
            if content == value:
                starts = candidates[: len(value)]
                return starts, [o + 1 for o in starts]
        return value_offsets(self.text, node.start, node.end, node.style, value)

    def offset_text(self, base: int, pieces: Iterable[Piece]) -> None:
        """Pieces of a text that lies unchanged at file offset ``base`` (an agent's body)."""
        for piece in pieces:
            self.file_span(base + piece.start, base + piece.end, piece)

    def result(self) -> list[Token]:
        self.tokens.sort()
        out: list[Token] = []
        for t in self.tokens:  # never overlap (an anchor seen twice, a piece past its scalar)
            if out and out[-1].line == t.line and t.start < out[-1].end:
                continue
            out.append(t)
        return out


def document_tokens(kind: FileKind, text: str, path: str = "") -> list[Token]:
    """The semantic tokens of a lait file's text, sorted, one line each. Never raises for bad input."""
    if len(text) > MAX_TEXT:
        return []
    placer = _Placer(text)
    if kind is FileKind.WORKFLOW:
        from lait_core.documents.workflow_file import recent_parse

        wf = recent_parse(text, path)
        for expr in wf.jq:
            placer.scalar(expr.node, jq_pieces(expr.text))
        for expr in wf.templates:
            placer.scalar(expr.node, template_pieces(expr.text))
    elif kind is FileKind.AGENT:
        from lait_core.documents.agent_file import parse_agent

        agent = parse_agent(text, path)
        if agent.system:
            placer.offset_text(agent.system_start, template_pieces(agent.system))
    elif kind is FileKind.CONFIG:
        from lait_core.documents.config_file import parse_config

        cfg = parse_config(text, path)
        prompts = cfg.root.get("prompts") if isinstance(cfg.root, MappingNode) else None
        if isinstance(prompts, MappingNode):
            for _k, prompt in prompts.pairs:
                template = prompt.get("template") if isinstance(prompt, MappingNode) else None
                if isinstance(template, ScalarNode) and isinstance(template.value, str):
                    placer.scalar(template, template_pieces(template.value))
    return placer.result()


# --------------------------------------------------------------------------------------------
# LSP encoding


_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def encode(tokens: Iterable[Token], index: LineIndex) -> list[int]:
    """LSP's relative encoding (5 integers per token) with UTF-16 columns and lengths."""
    text = index.text
    astral: set[int] = set()
    if not text.isascii():
        astral = {index.position(m.start()).line for m in _ASTRAL.finditer(text)}
    data: list[int] = []
    prev_line = 0
    prev_char = 0
    types = _TYPE_INDEX
    for t in tokens:
        line = t.line
        if line in astral:
            start = index.to_utf16(Position(line, t.start)).character
            end = index.to_utf16(Position(line, t.end)).character
        else:
            start, end = t.start, t.end
        mods = 0
        for m in t.modifiers:
            mods |= _MOD_BIT.get(m, 0)
        delta_line = line - prev_line
        data += (
            delta_line,
            start - prev_char if delta_line == 0 else start,
            end - start,
            types[t.type],
            mods,
        )
        prev_line, prev_char = line, start
    return data


def delta(old: list[int], new: list[int]) -> list[tuple[int, int, list[int]]]:
    """The edits (start, delete count, data) that turn ``old`` into ``new``: at most one, the
    differing middle between a common prefix and a common suffix (whole tokens of 5 integers)."""
    if old == new:
        return []
    n = min(len(old), len(new))
    prefix = 0
    while prefix < n and old[prefix] == new[prefix]:
        prefix += 1
    prefix -= prefix % 5
    suffix = 0
    limit = n - prefix
    while suffix < limit and old[-1 - suffix] == new[-1 - suffix]:
        suffix += 1
    suffix -= suffix % 5
    return [(prefix, len(old) - prefix - suffix, new[prefix : len(new) - suffix])]


__all__ = [
    "TOKEN_MODIFIERS",
    "TOKEN_TYPES",
    "Piece",
    "Token",
    "delta",
    "document_tokens",
    "encode",
    "jq_pieces",
    "template_pieces",
]
