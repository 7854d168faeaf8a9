"""Map the characters of a scalar's value back to offsets in the file text.

YAML folds lines, strips indentation, processes escapes and chomps block scalars, so the
value ``Summarize {{ x }}`` of a ``prompt: |`` block is not a substring at a fixed offset.
:func:`value_offsets` aligns the value with the source region it came from, so a diagnostic
for a token inside any scalar style points at the exact characters in the file.
"""

from __future__ import annotations

import re

_BLOCK_HEADER = re.compile(r"[|>]([1-9]?)[+-]?([1-9]?)")
_ESCAPE_LENGTH = {"x": 4, "u": 6, "U": 10}


def block_candidates(text: str, start: int, end: int) -> list[int]:
    """Offsets of the content characters of a block scalar (indentation stripped, line breaks kept)."""
    nl = text.find("\n", start)
    if nl == -1 or nl >= end:
        return []
    header = _BLOCK_HEADER.match(text, start)
    explicit = 0
    if header:
        explicit = int(header.group(1) or header.group(2) or 0)
    line_begin = text.rfind("\n", 0, start) + 1
    pos = nl + 1
    if explicit:
        header_line = text[line_begin:start]
        indent = len(header_line) - len(header_line.lstrip(" ")) + explicit
    else:
        indent = 0
        probe = pos
        while probe < end:
            eol = text.find("\n", probe)
            eol = end if eol == -1 or eol > end else eol
            line = text[probe:eol]
            if line.strip(" \r"):
                indent = len(line) - len(line.lstrip(" "))
                break
            probe = eol + 1
    out: list[int] = []
    while pos < end:
        eol = text.find("\n", pos)
        eol = end if eol == -1 or eol > end else eol
        content = pos + indent
        if content < eol:
            out.extend(range(content, eol))
        out.append(eol)
        pos = eol + 1
    return out


def value_offsets(text: str, start: int, end: int, style: str, value: str) -> tuple[list[int], list[int]]:
    """For each character of ``value``, the offsets in ``text`` where its source starts and ends.

    A character written as an escape (``\\u65e5``, ``\\t``) or a doubled quote (``''``) spans its
    whole source sequence."""
    if style in ("", "'", '"'):
        base = start if not style else start + 1
        raw = text[base : base + len(value)]
        if raw == value:  # single line, no escapes: the value is the source, character for character
            offsets = list(range(base, base + len(value)))
            return offsets, [o + 1 for o in offsets]
    if style in ("|", ">"):
        candidates: list[int] | range = block_candidates(text, start, end)
    elif style in ("'", '"'):
        candidates = range(start + 1, max(start + 1, end - 1))
    else:
        candidates = range(start, end)
    limit = len(candidates)
    if limit == 0:
        return [start] * len(value), [start] * len(value)
    out: list[int] = []
    ends: list[int] = []
    append = out.append
    j = 0
    double = style == '"'
    single = style == "'"
    textlen = len(text)
    for ch in value:
        step = 1
        while j < limit:
            off = candidates[j]
            s = text[off] if off < textlen else "\n"
            if double and s == "\\" and off + 1 < textlen:
                nxt = text[off + 1]
                if nxt in "\r\n":  # an escaped line break produces no character
                    j += 2
                    continue
                step = _ESCAPE_LENGTH.get(nxt, 2)
                break
            if s == ch or (s in "\r\n" and ch in " \n"):
                if single and s == "'" and off + 1 < textlen and text[off + 1] == "'":
                    step = 2
                break
            j += 1
        off = candidates[min(j, limit - 1)]
        append(off)
        ends.append(off + step)
        j += step
    return out, ends
