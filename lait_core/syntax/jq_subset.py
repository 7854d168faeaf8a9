"""A recogniser for a small, common subset of jq's grammar, so that most expressions of a workflow
are known to compile without asking libjq (each libjq compilation first compiles jq's own
builtins: 2-3 ms however short the expression).

:func:`parses` answers True only for text that libjq parses too; anything outside the subset is
False ("not sure"), and the caller then compiles it as before. The subset: ``|``, ``,``, ``//``,
``or``, ``and``, one comparison per operand, ``+ - * / %`` between operands, and terms built from
``.``, ``.name``, ``.[]``, ``.[e]``, ``."s"``, ``$name``, numbers, plain strings (escapes but no
interpolation), ``[e]``, ``[]``, ``{...}`` objects, ``(e)``, calls ``name`` and ``name(e; ...)``,
``if ... then ... [elif ...] else ... end``, each term followed by ``.name``, ``[]``, ``[e]`` and
``?``. Left out on purpose (libjq decides): comments, formats (``@base64``), string interpolation,
unary minus, ``..``, slices, assignment operators, ``as``/``def``/``reduce``/``foreach``/``try``/
``label``/modules, keywords as field names, ``name::space`` and an ``if`` without ``else``.

Whether the names it uses exist is a separate question (``lait_core.syntax.jq._binds_nothing_unknown``).
"""

from __future__ import annotations

import re
from typing import Final

_KEYWORDS: Final = frozenset(
    {
        "def",
        "import",
        "include",
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
        "and",
        "or",
        "__loc__",
    }
)
_TOKEN: Final = re.compile(
    r"""(?P<ws>[ \t\r\n]+)
    |(?P<field>\.[A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_]|::)
    |(?P<var>\$[A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_]|::)
    |(?P<ident>[A-Za-z_][A-Za-z0-9_]*)(?![A-Za-z0-9_]|::)
    |(?P<number>[0-9]+(?:\.[0-9]+)?)(?![A-Za-z0-9_.])
    |(?P<string>"(?:[^"\\\x00-\x1f\ud800-\udfff]|\\["\\/bfnrt]|\\u(?![dD][89abAB89][0-9a-fA-F]{2}|[dD][c-fC-F][0-9a-fA-F]{2})[0-9a-fA-F]{4})*")
    |(?P<op>\?//|//|==|!=|<=|>=|[|,<>+*/%?;:()\[\]{}.-])
    """,
    re.VERBOSE,
)
_COMPARISON: Final = frozenset({"==", "!=", "<", "<=", ">", ">="})
_ADDITIVE: Final = frozenset({"+", "-"})
_MULTIPLICATIVE: Final = frozenset({"*", "/", "%"})
_MAX_CHARS: Final = 1024
_MAX_DEPTH: Final = 24


class _Unsure(Exception):
    """Outside the subset (or not jq at all)."""


def _tokens(expr: str) -> list[tuple[str, str]]:
    tokens: list[tuple[str, str]] = []
    pos = 0
    while pos < len(expr):
        match = _TOKEN.match(expr, pos)
        if match is None:
            raise _Unsure
        kind = match.lastgroup
        assert kind is not None
        text = match.group()
        pos = match.end()
        if kind == "ws":
            continue
        if kind == "field" and text[1:] in _KEYWORDS:
            raise _Unsure
        if kind == "var" and text[1:] in _KEYWORDS:
            raise _Unsure
        if kind == "op":
            kind = text
        tokens.append((kind, text))
    return tokens


class _Parser:
    def __init__(self, tokens: list[tuple[str, str]]) -> None:
        self.tokens = tokens
        self.at = 0
        self.depth = 0

    def peek(self) -> str:
        return self.tokens[self.at][0] if self.at < len(self.tokens) else ""

    def text(self) -> str:
        return self.tokens[self.at][1] if self.at < len(self.tokens) else ""

    def take(self, kind: str) -> None:
        if self.peek() != kind:
            raise _Unsure
        self.at += 1

    def keyword(self, word: str) -> bool:
        if self.peek() == "ident" and self.text() == word:
            self.at += 1
            return True
        return False

    def nest(self) -> None:
        self.depth += 1
        if self.depth > _MAX_DEPTH:
            raise _Unsure

    # Exp: pipe of comma lists of alternatives (``//``, right-assoc) of or/and/comparison chains
    def pipe(self) -> None:
        self.nest()
        self.comma()
        while self.peek() == "|":
            self.at += 1
            self.comma()
        self.depth -= 1

    def comma(self) -> None:
        self.alternative()
        while self.peek() == ",":
            self.at += 1
            self.alternative()

    def alternative(self) -> None:
        self.disjunction()
        while self.peek() == "//":
            self.at += 1
            self.disjunction()

    def disjunction(self) -> None:
        self.conjunction()
        while self.keyword("or"):
            self.conjunction()

    def conjunction(self) -> None:
        self.comparison()
        while self.keyword("and"):
            self.comparison()

    def comparison(self) -> None:
        self.additive()
        if self.peek() in _COMPARISON:
            self.at += 1
            self.additive()
            if self.peek() in _COMPARISON:  # non-associative in jq
                raise _Unsure

    def additive(self) -> None:
        self.multiplicative()
        while self.peek() in _ADDITIVE:
            self.at += 1
            self.multiplicative()

    def multiplicative(self) -> None:
        self.postfix()
        while self.peek() in _MULTIPLICATIVE:
            self.at += 1
            self.postfix()

    def postfix(self) -> None:
        self.term()
        while True:
            kind = self.peek()
            if kind == "field":
                self.at += 1
            elif kind == "." and self.at + 1 < len(self.tokens) and self.tokens[self.at + 1][0] == "string":
                self.at += 2
            elif kind == "[":
                self.at += 1
                if self.peek() != "]":
                    self.pipe()
                self.take("]")
            else:
                return
            self.optional()

    def term(self) -> None:
        kind = self.peek()
        if kind == "field":
            self.at += 1
            self.optional()
        elif kind in ("var", "number", "string"):
            self.at += 1
        elif kind == ".":
            self.at += 1
            nxt = self.peek()
            if nxt == "string":
                self.at += 1
                self.optional()
            elif nxt == "[":  # ``.[]`` / ``.[e]``: the postfix loop reads the brackets
                pass
            elif nxt in ("field", "ident", "number", "var", "."):
                raise _Unsure  # ``. name`` and friends: two terms in a row
        elif kind == "(":
            self.at += 1
            self.pipe()
            self.take(")")
        elif kind == "[":
            self.at += 1
            if self.peek() != "]":
                self.pipe()
            self.take("]")
        elif kind == "{":
            self.object()
        elif kind == "ident":
            word = self.text()
            if word == "if":
                self.conditional()
            elif word in _KEYWORDS:
                raise _Unsure
            else:
                self.at += 1
                if self.peek() == "(":
                    self.at += 1
                    self.pipe()
                    while self.peek() == ";":
                        self.at += 1
                        self.pipe()
                    self.take(")")
        else:
            raise _Unsure

    def optional(self) -> None:
        if self.peek() == "?":
            self.at += 1

    def conditional(self) -> None:
        self.at += 1  # if
        self.pipe()
        if not self.keyword("then"):
            raise _Unsure
        self.pipe()
        while self.keyword("elif"):
            self.pipe()
            if not self.keyword("then"):
                raise _Unsure
            self.pipe()
        if not self.keyword("else"):
            raise _Unsure
        self.pipe()
        if not self.keyword("end"):
            raise _Unsure

    def object(self) -> None:
        self.take("{")
        if self.peek() == "}":
            self.at += 1
            return
        while True:
            kind = self.peek()
            if (kind == "ident" and self.text() not in _KEYWORDS) or kind in ("var", "string"):
                self.at += 1
                if self.peek() == ":":
                    self.at += 1
                    self.object_value()
            elif kind == "(":
                self.at += 1
                self.pipe()
                self.take(")")
                self.take(":")
                self.object_value()
            else:
                raise _Unsure
            if self.peek() == ",":
                self.at += 1
                continue
            self.take("}")
            return

    def object_value(self) -> None:
        """jq's ``ExpD``: terms joined by ``|`` (``{a: 1 + 2}`` does not parse)."""
        self.nest()
        self.postfix()
        while self.peek() == "|":
            self.at += 1
            self.postfix()
        self.depth -= 1


def parses(expr: str) -> bool:
    """True only if libjq parses ``expr`` (see the module docstring); False means "not sure"."""
    if len(expr) > _MAX_CHARS or not expr.strip():
        return False
    try:
        parser = _Parser(_tokens(expr))
        parser.pipe()
    except _Unsure:
        return False
    return parser.at == len(parser.tokens)
