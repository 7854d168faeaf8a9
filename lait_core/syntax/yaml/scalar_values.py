"""The value of a YAML scalar: its string from the source text (YAML 1.2, chapters 7 and 8), then
its type under the core schema (chapter 10.3) -- the one place both readers of
:mod:`lait_core.syntax.yaml.parse` resolve scalars with.

tree-sitter-yaml gives the extent of every scalar; the rules that turn that text into a string are
here: line folding of plain and quoted scalars, the escapes of double-quoted ones, and the
indentation, chomping and folding of block scalars (``|`` and ``>``). :func:`resolve_plain` gives a
plain scalar its core-schema value (``yes``/``on`` stay strings), :func:`resolve_tagged` a scalar
with an explicit ``!!int``/``!!float``/``!!bool``/``!!null``/``!!str`` tag.
"""

from __future__ import annotations

import math
import re
from typing import Any

_BREAK = re.compile(r"\r\n|\r|\n")
_WS = " \t"
_ESCAPES = {
    "0": "\0",
    "a": "\a",
    "b": "\b",
    "t": "\t",
    "\t": "\t",
    "n": "\n",
    "v": "\v",
    "f": "\f",
    "r": "\r",
    "e": "\x1b",
    " ": " ",
    '"': '"',
    "/": "/",
    "\\": "\\",
    "N": "\x85",
    "_": "\xa0",
    "L": "\u2028",
    "P": "\u2029",
}
_HEX_LENGTH = {"x": 2, "u": 4, "U": 8}
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)
_HEX = re.compile(r"[0-9A-Fa-f]+")


class ScalarError(ValueError):
    """The scalar's text breaks a YAML rule; ``offset`` is relative to the scalar's first character."""

    def __init__(self, message: str, offset: int, *, tab: bool = False) -> None:
        super().__init__(message)
        self.offset = offset
        self.tab = tab


def _fold(lines: list[str]) -> str:
    """Join the (already trimmed) lines of a flow scalar: one break is a space, n+1 breaks are n newlines."""
    out = [lines[0]]
    empty = 0
    for line in lines[1:-1]:
        if line:
            out.append("\n" * empty if empty else " ")
            out.append(line)
            empty = 0
        else:
            empty += 1
    last = lines[-1]
    out.append("\n" * empty if empty else " ")
    out.append(last)
    return "".join(out)


def plain_value(raw: str) -> str:
    """A plain scalar's value: its lines trimmed and folded."""
    if "\n" not in raw and "\r" not in raw:
        return raw
    lines = [line.strip(_WS) for line in _BREAK.split(raw)]
    return _fold(lines)


def single_quoted_value(raw: str) -> str:
    """``raw`` is the text between the quotes."""
    if "\n" in raw or "\r" in raw:
        lines = _BREAK.split(raw)
        trimmed = [lines[0].rstrip(_WS), *(line.strip(_WS) for line in lines[1:-1]), lines[-1].lstrip(_WS)]
        raw = _fold(trimmed)
    return raw.replace("''", "'")


def _unescape(segment: str, base: int) -> str:
    if "\\" not in segment:
        return segment
    out: list[str] = []
    pos = 0
    while True:
        slash = segment.find("\\", pos)
        if slash == -1:
            out.append(segment[pos:])
            return "".join(out)
        out.append(segment[pos:slash])
        if slash + 1 >= len(segment):
            raise ScalarError(
                "a '\\' at the end of a double-quoted line must escape the line break", base + slash
            )
        code = segment[slash + 1]
        simple = _ESCAPES.get(code)
        if simple is not None:
            out.append(simple)
            pos = slash + 2
            continue
        length = _HEX_LENGTH.get(code)
        digits = segment[slash + 2 : slash + 2 + length] if length else ""
        if not length or len(digits) != length or not _HEX.fullmatch(digits):
            raise ScalarError(f"unknown escape sequence '\\{code}' in a double-quoted string", base + slash)
        point = int(digits, 16)
        if point > 0x10FFFF or 0xD800 <= point <= 0xDFFF:
            raise ScalarError(f"escape '\\{code}{digits}' is not a Unicode character", base + slash)
        out.append(chr(point))
        pos = slash + 2 + length


def double_quoted_value(raw: str) -> str:
    """``raw`` is the text between the quotes. Escapes are decoded; an escaped line break joins lines."""
    if "\n" not in raw and "\r" not in raw:
        return _unescape(raw, 1)
    pieces: list[str] = []
    starts: list[int] = []
    pos = 0
    for match in _BREAK.finditer(raw):
        pieces.append(raw[pos : match.start()])
        starts.append(pos)
        pos = match.end()
    pieces.append(raw[pos:])
    starts.append(pos)
    out: list[str] = []
    empty = 0
    escaped = False  # the last line with text ended in an escaped line break
    last = len(pieces) - 1
    for i, (piece, start) in enumerate(zip(pieces, starts, strict=True)):
        base = start + 1
        if i > 0:
            stripped = piece.lstrip(_WS)
            base += len(piece) - len(stripped)
            piece = stripped
            if not piece and i < last:
                empty += 1
                continue
        escaped_break = False
        if i < last:
            body = piece.rstrip(_WS)
            slashes = len(body) - len(body.rstrip("\\"))
            if slashes % 2 == 1 and len(body) == len(piece):
                escaped_break = True  # '\' right before the line break: the break is not content
                piece = body[:-1]
            elif slashes % 2 == 1:  # the last kept character is an escaped space or tab
                piece = piece[: len(body) + 1]
            else:
                piece = body
        if i > 0:
            out.append("\n" * empty if empty or escaped else " ")
            empty = 0
        out.append(_unescape(piece, base))
        escaped = escaped_break
    return "".join(out)


_HEADER = re.compile(r"([|>])(?:([1-9])([+-]?)|([+-])([1-9]?))?")


def block_value(text: str, start: int, parent_indent: int) -> tuple[str, int]:
    """The value of the block scalar whose indicator is at ``text[start]``, and the offset where it ends.

    ``parent_indent`` is the indentation of the node that holds it (-1 at the top level). The end is
    the start of the first line that is not part of the scalar (trailing empty lines included)."""
    header = _HEADER.match(text, start)
    assert header is not None
    folded = header.group(1) == ">"
    explicit = header.group(2) or header.group(5)
    chomp = header.group(3) or header.group(4) or ""
    eol = _line_end(text, header.end())
    pos = _next_line(text, eol)
    n = len(text)
    lines: list[str] = []
    line_starts: list[int] = []
    indent = parent_indent + int(explicit) if explicit else -1
    if indent < 0 and explicit:
        indent = 0
    fast = None if explicit else _plain_block_lines(text, pos, parent_indent)
    if fast is not None:
        lines, end, indent = fast
        return _block_result(lines, indent, end, folded, chomp)
    # the lines of the scalar: up to the first non-empty line indented less than the content
    end = pos
    leading_max = 0
    while pos < n:
        eol = _line_end(text, pos)
        line = text[pos:eol]
        spaces = len(line) - len(line.lstrip(" "))
        blank = not line.strip(" ") or (not line.strip(" \t") and indent >= 0 and spaces < indent)
        if indent < 0:
            if not line.strip(" "):
                leading_max = max(leading_max, spaces)
            elif not line[spaces:].strip(" \t") and spaces <= parent_indent:
                raise ScalarError("a tab cannot indent a block scalar's text", pos - start + spaces, tab=True)
            else:
                indent = max(spaces, parent_indent + 1)
                if spaces <= parent_indent:
                    break
                if leading_max > indent:
                    raise ScalarError(
                        "a leading empty line of a block scalar is indented more than its text", 0
                    )
                blank = False
        if not blank and spaces < indent:
            break
        if (line.startswith("---") or line.startswith("...")) and (len(line) == 3 or line[3] in " \t"):
            break
        lines.append(line)
        line_starts.append(pos)
        pos = _next_line(text, eol)
        end = pos
        if eol == n:
            break
    if indent < 0:
        indent = max(parent_indent + 1, leading_max)
    return _block_result(lines, indent, end, folded, chomp)


_FIRST_TEXT = re.compile(r"^( *)[^ \n]", re.MULTILINE)
_BLOCK_ENDS: dict[int, re.Pattern[str]] = {}


def _plain_block_lines(text: str, pos: int, parent_indent: int) -> tuple[list[str], int, int] | None:
    """The lines of a block scalar without an indentation indicator whose text starts at ``pos``,
    where it ends and its indentation, found with two regular expressions: the common case, where
    no tab, carriage return or document marker can matter (the first text line is indented past
    the parent, and no leading empty line more than it). None otherwise: the caller reads the
    scalar line by line."""
    first = _FIRST_TEXT.search(text, pos)
    if first is None:
        return None
    indent = len(first.group(1))
    if indent <= parent_indent or indent == 0 or indent > 64:
        return None
    pattern = _BLOCK_ENDS.get(indent)
    if pattern is None:  # a line that is neither indented by ``indent`` spaces nor empty
        pattern = _BLOCK_ENDS[indent] = re.compile(rf"^(?! {{{indent}}}| *(?:\n|\Z))", re.MULTILINE)
    stop = pattern.search(text, first.start())
    end = len(text) if stop is None else stop.start()
    region = text[pos:end]
    if "\t" in region or "\r" in region:
        return None
    if stop is not None:  # the line it stops at: a tab or a carriage return there may make it empty
        eol = text.find("\n", end)
        after = text[end:] if eol == -1 else text[end:eol]
        if "\t" in after or "\r" in after:
            return None
    lines = region.split("\n")
    if region.endswith("\n"):
        lines.pop()
    for line in lines:  # the leading empty lines (all spaces, as no tab is in the region)
        if line.strip(" "):
            break
        if len(line) > indent:
            return None
    return lines, end, indent


def _block_result(lines: list[str], indent: int, end: int, folded: bool, chomp: str) -> tuple[str, int]:
    # content lines (relative to the indentation) and empty lines
    body: list[str | None] = []
    for line in lines:
        if len(line) > indent and line[:indent].strip(" ") == "":
            body.append(line[indent:])
        elif line.strip(" ") == "" or (len(line) <= indent and not line.strip(" \t")):
            body.append(None)
        else:
            body.append(line[indent:] if line[:indent].strip(" ") == "" else line.lstrip(" "))
    last = len(body)
    while last > 0 and body[last - 1] is None:
        last -= 1
    content = body[:last]
    trailing = len(body) - last
    value = _fold_block(content) if folded else "\n".join("" if line is None else line for line in content)
    if chomp == "-":
        return value, end
    if chomp == "+":
        if content:
            return value + "\n" + "\n" * trailing, end
        return "\n" * trailing, end
    return (value + "\n" if content else ""), end


def _fold_block(lines: list[str | None]) -> str:
    out: list[str] = []
    previous: str | None = None  # the last non-empty line
    empty = 0
    for line in lines:
        if line is None:
            empty += 1
            continue
        if previous is not None:
            spaced = previous[:1] in (" ", "\t") or line[:1] in (" ", "\t")
            if spaced:
                out.append("\n" * (empty + 1))
            else:
                out.append("\n" * empty if empty else " ")
        elif empty:
            out.append("\n" * empty)
        out.append(line)
        previous = line
        empty = 0
    return "".join(out)


def _line_end(text: str, pos: int) -> int:
    nl = text.find("\n", pos)
    end = len(text) if nl == -1 else nl
    if end > pos and text[end - 1] == "\r":
        end -= 1
    cr = text.find("\r", pos, end)
    return end if cr == -1 else cr


def _next_line(text: str, eol: int) -> int:
    if eol >= len(text):
        return len(text)
    if text.startswith("\r\n", eol):
        return eol + 2
    return eol + 1


# -- typed values: the core schema ----------------------------------------------------------------

_NULLS = frozenset(("", "~", "null", "Null", "NULL"))
_BOOLS = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_INT = re.compile(r"[-+]?[0-9]+")
_OCT_INT = re.compile(r"0o[0-7]+")
_HEX_INT = re.compile(r"0x[0-9a-fA-F]+")
_FLOAT = re.compile(r"[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?")
_INF = re.compile(r"[-+]?\.(?:inf|Inf|INF)")
_NAN = re.compile(r"\.(?:nan|NaN|NAN)")
MAYBE_SPECIAL = frozenset("0123456789-+.~nNtTfF")
"""First characters of the plain scalars that the core schema may resolve to something other than
a string."""
_WORDS = frozenset("~nNtTfF")
CORE_TAG_PREFIX = "tag:yaml.org,2002:"
_TAG_TYPES: dict[str, type | tuple[type, ...]] = {
    "int": int,
    "float": (int, float),
    "bool": bool,
    "null": type(None),
}


def resolve_plain(text: str) -> Any:
    """The YAML 1.2 core-schema value of a plain scalar."""
    if not text:
        return None
    first = text[0]
    if first not in MAYBE_SPECIAL:
        return text
    if first in _WORDS:  # null, true, false in their three spellings; any other word is a string
        if text in _NULLS:
            return None
        return _BOOLS.get(text, text)
    if _INT.fullmatch(text):
        return int(text)
    if _OCT_INT.fullmatch(text):
        return int(text[2:], 8)
    if _HEX_INT.fullmatch(text):
        return int(text[2:], 16)
    if _FLOAT.fullmatch(text):
        return float(text)
    if _INF.fullmatch(text):
        return -math.inf if text[0] == "-" else math.inf
    if _NAN.fullmatch(text):
        return math.nan
    return text


class TagError(ValueError):
    """A scalar's text is not a valid value of its core tag; ``str()`` says so."""


def resolve_tagged(tag: str, raw: str) -> Any:
    """The value of scalar text ``raw`` with the explicit tag ``tag`` (resolved, e.g.
    ``tag:yaml.org,2002:int``): ``!!int``, ``!!float`` (an integer becomes a float), ``!!bool`` and
    ``!!null`` convert as the core schema reads plain text; ``!!str``, other core tags and local tags
    keep the text. Raises :class:`TagError` when ``raw`` does not read as its tag's type."""
    if not tag.startswith(CORE_TAG_PREFIX):
        return raw
    kind = tag[len(CORE_TAG_PREFIX) :]
    expected = _TAG_TYPES.get(kind)
    if expected is None:
        return raw
    value = resolve_plain(raw)
    if isinstance(value, bool) and kind != "bool":
        value = raw
    fits = isinstance(value, expected)  # (not narrowed: ``value`` stays Any for ``float()``)
    if not fits:
        raise TagError(f"'{raw}' is not a valid !!{kind}")
    return float(value) if kind == "float" else value
