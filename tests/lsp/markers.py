"""Cursor and range markers for LSP tests.

Write the text with ``‸`` where the cursor is and ``«...»`` around each range the server should
report; :func:`marked` returns the clean text and the LSP (UTF-16) positions and ranges::

    m = marked("steps:\\n  - id: «fe‸tch»\\n")
    m.text    -> "steps:\\n  - id: fetch\\n"
    m.cursor  -> Position(line=1, character=10)
    m.ranges  -> [Range((1, 8), (1, 13))]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types as lsp

CURSOR = "‸"
OPEN = "«"
CLOSE = "»"


@dataclass(slots=True)
class Marked:
    text: str
    cursor: lsp.Position | None = None
    ranges: list[lsp.Range] = field(default_factory=list)

    @property
    def at(self) -> lsp.Position:
        assert self.cursor is not None, "no ‸ cursor marker in the text"
        return self.cursor


def _utf16_units(ch: str) -> int:
    return 2 if ord(ch) > 0xFFFF else 1


def marked(source: str) -> Marked:
    """Strip ``‸`` and ``«»`` markers; positions are in UTF-16 code units, as LSP counts them."""
    out: list[str] = []
    line = 0
    character = 0
    result = Marked("")
    opened: list[lsp.Position] = []
    for ch in source:
        here = lsp.Position(line=line, character=character)
        if ch == CURSOR:
            assert result.cursor is None, "more than one ‸ marker"
            result.cursor = here
            continue
        if ch == OPEN:
            opened.append(here)
            continue
        if ch == CLOSE:
            assert opened, "» without «"
            result.ranges.append(lsp.Range(start=opened.pop(), end=here))
            continue
        out.append(ch)
        if ch == "\n":
            line += 1
            character = 0
        else:
            character += _utf16_units(ch)
    assert not opened, "« without »"
    result.text = "".join(out)
    result.ranges.sort(key=lambda r: (r.start.line, r.start.character))
    return result


def write_project(root: Path, files: dict[str, str]) -> dict[str, Marked]:
    """Write each file (markers stripped) under ``root``; the marked texts by relative path."""
    out: dict[str, Marked] = {}
    for rel, source in files.items():
        m = marked(source)
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(m.text, encoding="utf-8")
        out[rel] = m
    return out


def _offset(text: str, pos: lsp.Position) -> int:
    lines = text.split("\n")
    offset = sum(len(line) + 1 for line in lines[: pos.line])
    units = 0
    for ch in lines[pos.line]:
        if units >= pos.character:
            break
        units += _utf16_units(ch)
        offset += 1
    return offset


def apply_edits(text: str, edits: list[lsp.TextEdit]) -> str:
    """``text`` with LSP edits (UTF-16 ranges, non-overlapping) applied."""
    spans = sorted(
        ((_offset(text, e.range.start), _offset(text, e.range.end), e.new_text) for e in edits), reverse=True
    )
    for start, end, new in spans:
        text = text[:start] + new + text[end:]
    return text
