"""Positions and ranges.

Every position in the core is 0-based and counts Unicode code points, like ruamel/libyaml marks.
The CLI prints ``line + 1`` and ``character + 1``; the language server converts to UTF-16 code
units with :class:`LineIndex`.
"""

from __future__ import annotations

import bisect
import re
from typing import NamedTuple


class Position(NamedTuple):
    line: int
    character: int

    def __str__(self) -> str:
        return f"{self.line + 1}:{self.character + 1}"


class Range(NamedTuple):
    start: Position
    end: Position

    @staticmethod
    def at(line: int, character: int, end_line: int | None = None, end_character: int | None = None) -> Range:
        return Range(
            Position(line, character),
            Position(
                line if end_line is None else end_line, character if end_character is None else end_character
            ),
        )

    def contains(self, pos: Position) -> bool:
        return self.start <= pos <= self.end

    def __str__(self) -> str:
        return f"{self.start}-{self.end}"


ZERO = Range.at(0, 0)
_BREAK = re.compile(r"\r\n?|\n")


class LineIndex:
    """Maps between code-point offsets, (line, character) positions and UTF-16 columns of one text."""

    __slots__ = ("_starts", "text")

    def __init__(self, text: str) -> None:
        self.text = text
        starts = [0]
        if "\r" in text:  # a lone \r ends a line too (YAML and LSP agree)
            starts.extend(m.end() for m in _BREAK.finditer(text))
        else:
            find = text.find
            i = find("\n")
            while i != -1:
                starts.append(i + 1)
                i = find("\n", i + 1)
        self._starts = starts

    @property
    def starts(self) -> list[int]:
        """The offset where each line starts (do not modify)."""
        return self._starts

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_start(self, line: int) -> int:
        return self._starts[min(max(line, 0), len(self._starts) - 1)]

    def line_text(self, line: int) -> str:
        """The text of ``line`` without its line break."""
        line = min(max(line, 0), len(self._starts) - 1)
        start = self._starts[line]
        end = self._starts[line + 1] if line + 1 < len(self._starts) else len(self.text)
        return self.text[start:end].rstrip("\r\n")

    def position(self, offset: int) -> Position:
        offset = min(max(offset, 0), len(self.text))
        line = bisect.bisect_right(self._starts, offset) - 1
        return Position(line, offset - self._starts[line])

    def offset(self, pos: Position) -> int:
        return min(self.line_start(pos.line) + pos.character, len(self.text))

    def range(self, start: int, end: int) -> Range:
        return Range(self.position(start), self.position(end))

    def to_utf16(self, pos: Position) -> Position:
        """Code-point position -> LSP position (UTF-16 code units)."""
        start = self.line_start(pos.line)
        prefix = self.text[start : start + pos.character]
        extra = sum(1 for ch in prefix if ord(ch) > 0xFFFF)
        return Position(pos.line, pos.character + extra)

    def from_utf16(self, pos: Position) -> Position:
        """LSP position (UTF-16 code units) -> code-point position."""
        line = self.line_text(pos.line)
        units = 0
        for i, ch in enumerate(line):
            if units >= pos.character:
                return Position(pos.line, i)
            units += 2 if ord(ch) > 0xFFFF else 1
        return Position(pos.line, len(line))

    def range_to_utf16(self, rng: Range) -> Range:
        return Range(self.to_utf16(rng.start), self.to_utf16(rng.end))
