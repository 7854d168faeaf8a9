"""A strict reader of the plain YAML most ``lait.config.yml`` files are written in, for the send-ahead
path (:mod:`lait_core.engine.llm.ahead_config`), which must read a config before the request leaves
and cannot wait for the full reader's import (:mod:`lait_core.syntax.yaml.parse`, about 15 ms;
docs/performance.md, "Send-ahead").

:func:`read_subset` reads the top-level mapping of a text and returns the values of the keys it is
asked for (``wanted``), and for every other top-level key only the kind of its value (``"mapping"``
or ``"other"``: those sections are not read). It understands, in the wanted sections:

- block mappings with plain keys, block sequences (``- item``, also ``- key: value`` items);
- plain scalars resolved by the YAML 1.2 core schema (:func:`~lait_core.syntax.yaml.scalar_values.
  resolve_plain`, the full reader's), single-quoted scalars, double-quoted ones without escapes,
  literal block scalars (``|`` and ``|-``);
- one-line flow sequences and mappings of those scalars; comments.

Anything else raises :class:`NotInSubset`: anchors, aliases, tags, complex or quoted keys, escapes,
folded or indented block scalars, multi-line plain, quoted or flow values, tabs,
directives, a second document, duplicate keys, a line at column 0 that is not ``key:``. Refusing is
always safe: the caller then sends nothing ahead and the full reader decides. So what this module
accepts, it reads as the full reader does; what it cannot be sure of, it refuses.

Standard library only.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from typing import Any

from lait_core.syntax.yaml.scalar_values import resolve_plain

LINE_BREAK = re.compile(r"\r\n|\r|\n")
TOP_KEY = re.compile(r"([A-Za-z_][A-Za-z0-9_]*):(?=[ ]|$)")
INDICATORS = frozenset("&*!|>%@`\"'{}[],#?:-")
"""Characters a plain scalar may not start with (``-``, ``?`` and ``:`` when a space follows)."""
FLOW_STOP = frozenset(",[]{}")


class NotInSubset(Exception):
    """The text holds something this reader does not read fully."""


class _Line:
    __slots__ = ("indent", "number", "raw", "text")

    def __init__(self, number: int, raw: str) -> None:
        self.number = number
        self.raw = raw
        stripped = raw.lstrip(" ")
        self.indent = len(raw) - len(stripped)
        self.text = _strip_comment(stripped)
        if self.text and "\t" in raw[: self.indent + 1]:
            raise NotInSubset(f"line {number + 1}: a tab in the indentation")


def _strip_comment(text: str) -> str:
    """``text`` without its comment (``#`` at the start or after a space, outside quotes)."""
    if "#" not in text:
        return text.rstrip(" \t")
    quote = ""
    for index, char in enumerate(text):
        if quote:
            if char == quote:
                quote = ""
        elif char in "\"'" and (index == 0 or text[index - 1] in " [{,:"):
            quote = char
        elif char == "#" and (index == 0 or text[index - 1] in " \t"):
            return text[:index].rstrip(" \t")
    return text.rstrip(" \t")


def _scalar(text: str) -> Any:
    """A one-line scalar in block context (no comment): quoted or plain."""
    if not text:
        return None
    first = text[0]
    if first == '"':
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != '"' or '"' in inner or "\\" in inner:
            raise NotInSubset(text)
        return inner
    if first == "'":
        inner = text[1:-1]
        if len(text) < 2 or text[-1] != "'" or "'" in inner.replace("''", ""):
            raise NotInSubset(text)
        return inner.replace("''", "'")
    if first in INDICATORS and not (first in "-?:" and len(text) > 1 and text[1] != " "):
        raise NotInSubset(text)
    if ": " in text or text.endswith(":") or " #" in text or "\t#" in text:
        raise NotInSubset(text)
    return resolve_plain(text)


class _Flow:
    """One line of flow collection: ``[a, 'b', {c: d}]``."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.at = 0

    def _space(self) -> None:
        while self.at < len(self.text) and self.text[self.at] == " ":
            self.at += 1

    def _peek(self) -> str:
        self._space()
        return self.text[self.at] if self.at < len(self.text) else ""

    def value(self) -> Any:
        char = self._peek()
        if char == "[":
            return self._sequence()
        if char == "{":
            return self._mapping()
        if char in "\"'":
            end = self.text.find(char, self.at + 1)
            while char == "'" and end != -1 and self.text.startswith("''", end):
                end = self.text.find(char, end + 2)
            if end == -1:
                raise NotInSubset(self.text)
            token = self.text[self.at : end + 1]
            self.at = end + 1
            return _scalar(token)
        start = self.at
        while self.at < len(self.text):
            c = self.text[self.at]
            if c in FLOW_STOP or (
                c == ":" and self.text[self.at + 1 : self.at + 2] in ("", " ", ",", "]", "}")
            ):
                break
            self.at += 1
        token = self.text[start : self.at].strip(" ")
        if not token:
            raise NotInSubset(self.text)
        return _scalar(token)

    def _sequence(self) -> list[Any]:
        self.at += 1
        items: list[Any] = []
        while self._peek() != "]":
            if not self._peek():
                raise NotInSubset(self.text)
            items.append(self.value())
            if self._peek() == ",":
                self.at += 1
            elif self._peek() != "]":
                raise NotInSubset(self.text)
        self.at += 1
        return items

    def _mapping(self) -> dict[str, Any]:
        self.at += 1
        items: dict[str, Any] = {}
        while self._peek() != "}":
            if not self._peek() or self._peek() in "[{":
                raise NotInSubset(self.text)
            key = self.value()
            if not isinstance(key, str) or key in items or self._peek() != ":":
                raise NotInSubset(self.text)
            self.at += 1
            items[key] = None if self._peek() in (",", "}") else self.value()
            if self._peek() == ",":
                self.at += 1
            elif self._peek() != "}":
                raise NotInSubset(self.text)
        self.at += 1
        return items

    def whole(self) -> Any:
        value = self.value()
        if self._peek():
            raise NotInSubset(self.text)
        return value


def _inline(text: str) -> Any:
    """A value written on its key's line (no comment), other than a block scalar."""
    if text[:1] in "[{":
        return _Flow(text).whole()
    return _scalar(text)


class _Block:
    """The block structure of the lines of one top-level section."""

    def __init__(self, lines: list[_Line]) -> None:
        self.lines = lines
        self.at = 0

    def _next(self) -> _Line | None:
        while self.at < len(self.lines) and not self.lines[self.at].text:
            self.at += 1
        return self.lines[self.at] if self.at < len(self.lines) else None

    def node(self, parent: int, in_mapping: bool) -> Any:
        """The block under a key at indentation ``parent`` (a sequence may sit at ``parent`` itself
        when the key is a mapping's); None when there is none."""
        line = self._next()
        if line is None or line.indent < parent:
            return None
        if line.indent == parent:
            if in_mapping and _is_item(line.text):
                return self._sequence(line.indent)
            return None
        if _is_item(line.text):
            return self._sequence(line.indent)
        return self._mapping(line.indent)

    def _value(self, rest: str, indent: int, line: _Line) -> Any:
        """The value after ``key:`` (``rest``, maybe empty) of a key at ``indent``."""
        if rest in ("|", "|-"):
            return self._literal(indent, line, keep_last=rest == "|")
        if not rest:
            return self.node(indent, True)
        value = _inline(rest)
        after = self._next()
        if after is not None and after.indent > indent:
            raise NotInSubset(f"line {after.number + 1}: a value that goes on")
        return value

    def _mapping(self, indent: int, first: str | None = None) -> dict[str, Any]:
        """A block mapping at ``indent``; ``first``: its first entry is the text of the current
        line after ``- `` (a mapping as a sequence item)."""
        items: dict[str, Any] = {}
        pending = first
        while True:
            line = self._next()
            if line is None:
                break
            if pending is None:
                if line.indent != indent or _is_item(line.text):
                    break
                text = line.text
            else:
                text, pending = pending, None
            key, rest = _split_key(text, line)
            if key in items:
                raise NotInSubset(f"line {line.number + 1}: duplicate key")
            self.at += 1
            items[key] = self._value(rest, indent, line)
        line = self._next()
        if line is not None and line.indent > indent:
            raise NotInSubset(f"line {line.number + 1}: indentation")
        return items

    def _sequence(self, indent: int) -> list[Any]:
        items: list[Any] = []
        while True:
            line = self._next()
            if line is None or line.indent != indent or not _is_item(line.text):
                break
            rest = line.text[1:]
            content = rest.lstrip(" ")
            column = indent + 1 + len(rest) - len(content)
            if not content:
                self.at += 1
                items.append(self.node(indent, False))
            elif _is_item(content) or content[:1] == "|":
                raise NotInSubset(f"line {line.number + 1}")
            elif content[:1] not in "[{\"'" and _KEY.match(content):
                items.append(self._mapping(column, first=content))
            else:
                self.at += 1
                items.append(self._value(content, indent, line))
        return items

    def _literal(self, indent: int, header: _Line, *, keep_last: bool) -> str:
        """A ``|`` or ``|-`` block scalar under a key at ``indent`` (its lines start at the
        current one)."""
        start = self.at
        content_indent = None
        while self.at < len(self.lines):
            raw = self.lines[self.at].raw
            body = raw.lstrip(" ")
            if body:
                width = len(raw) - len(body)
                if content_indent is None:
                    if width <= indent or body.startswith("\t"):
                        break
                    content_indent = width
                elif width < content_indent:
                    break
            self.at += 1
        if content_indent is None:
            raise NotInSubset(f"line {header.number + 1}: an empty block scalar")
        raws = [line.raw for line in self.lines[start : self.at]]
        while raws and not raws[-1].strip(" "):
            self.at -= 1
            raws.pop()
        if any(len(raw) > content_indent and not raw.strip(" ") for raw in raws):
            raise NotInSubset(f"line {header.number + 1}: spaces on an empty line")
        text = "\n".join(raw[content_indent:] for raw in raws)
        return text + "\n" if keep_last else text


_KEY = re.compile(r"[^\s#'\"&*!|>%@`{}\[\],?:-][^#]*?:(?=[ ]|$)|-[^\s#][^#]*?:(?=[ ]|$)")


def _is_item(text: str) -> bool:
    return text == "-" or text.startswith("- ")


def _split_key(text: str, line: _Line) -> tuple[str, str]:
    match = _KEY.match(text)
    if match is None:
        raise NotInSubset(f"line {line.number + 1}: not a plain key")
    written = match.group(0)[:-1]
    key = resolve_plain(written)
    if not isinstance(key, str) or written != written.rstrip(" ") or ": " in written:
        raise NotInSubset(f"line {line.number + 1}: not a plain key")
    return key, text[match.end() :].lstrip(" ")


def _mapping_kind(lines: list[_Line], rest: str) -> str:
    """Whether an unread section's value is a mapping (a block of keys, or ``{...}`` on its line)."""
    if rest:
        return "mapping" if rest.startswith("{") and rest.endswith("}") else "other"
    first = next((line for line in lines if line.text), None)
    if first is None or first.indent == 0 or _is_item(first.text):
        return "other"
    return "mapping" if _KEY.match(first.text) or first.text.startswith(("'", '"')) else "other"


def read_subset(text: str, wanted: Collection[str]) -> dict[str, Any]:
    """The top-level mapping of ``text``: the values of the ``wanted`` keys, ``"mapping"`` or
    ``"other"`` for the others; :class:`NotInSubset` for anything this reader does not read."""
    if not text.replace("\n", "").replace("\r", "").replace("\t", "").isprintable():
        raise NotInSubset("a character that is not printable")
    lines = [_Line(number, raw) for number, raw in enumerate(LINE_BREAK.split(text))]
    sections: list[tuple[str, str, list[_Line]]] = []
    seen_content = False
    for line in lines:
        if not line.text:
            if sections:
                sections[-1][2].append(line)
            continue
        if line.indent:
            if not sections:
                raise NotInSubset(f"line {line.number + 1}: indentation")
            sections[-1][2].append(line)
            continue
        if line.text == "---" and not seen_content:
            seen_content = True
            continue
        seen_content = True
        match = TOP_KEY.match(line.text)
        if match is None:
            raise NotInSubset(f"line {line.number + 1}: not 'key:' at the top level")
        sections.append((match.group(1), line.text[match.end() :].lstrip(" "), []))
    result: dict[str, Any] = {}
    for key, rest, body in sections:
        if key in result:
            raise NotInSubset(f"duplicate top-level key {key!r}")
        if key not in wanted:
            result[key] = _mapping_kind(body, rest)
            continue
        if "\t" in rest or any("\t" in line.raw for line in body):
            raise NotInSubset(f"{key}: a tab")  # a separator in YAML, wherever it is
        block = _Block(body)
        if rest in ("|", "|-"):
            raise NotInSubset(key)
        if rest:
            if block._next() is not None:
                raise NotInSubset(f"{key}: a value that goes on")
            result[key] = _inline(rest)
        else:
            result[key] = block.node(0, True)
            if block._next() is not None:
                raise NotInSubset(f"{key}: indentation")
    return result
