"""The keys of a jq program's top-level object literal (``{repo: $inputs.repo, "n": 3}``), for the
``with:`` of a workflow step: each names an input of the child workflow."""

from __future__ import annotations

import re
from dataclasses import dataclass

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SIMPLE_STRING = re.compile(r'"((?:[^"\\]|\\[^(])*)"')
_COLON = re.compile(r"[ \t\r\n]*:(?!:)")


def _skip_space(src: str, i: int) -> int:
    while i < len(src) and src[i] in " \t\r\n":
        i += 1
    return i


def skip_string(src: str, i: int) -> int:
    """The index after the string literal starting at ``i`` (interpolations nest)."""
    n = len(src)
    j = i + 1
    depth = 0
    while j < n:
        c = src[j]
        if depth == 0:
            if c == "\\":
                if j + 1 < n and src[j + 1] == "(":
                    depth = 1
                j += 2
                continue
            if c == '"':
                return j + 1
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        j += 1
    return n


def top_object_keys(src: str) -> list[tuple[int, int, str]]:
    """(start, end, name) of each key of the object literal the program is (spaces around allowed);
    [] when the program is something else. ``start:end`` covers the name (inside quotes)."""
    i = _skip_space(src, 0)
    if i >= len(src) or src[i] != "{":
        return []
    out: list[tuple[int, int, str]] = []
    depth = 0
    expect_key = True
    n = len(src)
    while i < n:
        c = src[i]
        if c == '"':
            if depth == 1 and expect_key:
                m = _SIMPLE_STRING.match(src, i)
                if m and _COLON.match(src, m.end()):
                    out.append((i + 1, m.end() - 1, m.group(1)))
                expect_key = False
            i = skip_string(src, i)
            continue
        if c in "{[(":
            depth += 1
            if depth == 1:
                expect_key = True
            i += 1
            continue
        if c in "}])":
            depth -= 1
            if depth == 0:
                rest = src[i + 1 :].strip()
                return out if not rest else []
            i += 1
            continue
        if depth == 1 and c == ",":
            expect_key = True
            i += 1
            continue
        if depth == 1 and expect_key:
            m = _IDENT.match(src, i)
            if m:
                end = m.end()
                after = _skip_space(src, end)
                if _COLON.match(src, end) or (after < n and src[after] in ",}"):  # {a: 1} or {a}
                    out.append((i, end, m.group(0)))
                expect_key = False
                i = end
                continue
            if not c.isspace():
                expect_key = False
        i += 1
    return []


@dataclass(frozen=True, slots=True)
class KeyPlace:
    """Where a key of the top-level object literal is (or is being) written."""

    start: int
    """Where the key's name starts (after the opening quote of a quoted key)."""
    end: int
    name: str
    quoted: bool
    free: int
    """Where the key's slot begins (after the ``{`` or ``,``); spaces lie between ``free`` and ``start``."""

    def holds(self, cursor: int) -> bool:
        """The cursor is on this key's name (or in the empty slot before it)."""
        return self.start <= cursor <= self.end or (not self.name and self.free <= cursor <= self.start)


def key_places(src: str) -> list[KeyPlace]:
    """Every key place of the object literal that starts the program, tolerant of unfinished text
    (what someone is typing): an unclosed object, an unterminated key string, an empty slot after
    ``,``. [] when the program does not start with ``{``."""
    n = len(src)
    i = _skip_space(src, 0)
    if i >= n or src[i] != "{":
        return []
    out: list[KeyPlace] = []

    def slot(free: int) -> int:
        j = _skip_space(src, free)
        if j < n and src[j] == '"':
            end = skip_string(src, j)
            close = end - 1 if end <= n and src[end - 1 : end] == '"' and end - 1 > j else n
            out.append(KeyPlace(j + 1, close, src[j + 1 : close], True, free))
            return end
        m = _IDENT.match(src, j)
        if m:
            out.append(KeyPlace(j, m.end(), m.group(0), False, free))
            return m.end()
        out.append(KeyPlace(j, j, "", False, free))
        return j

    depth = 0
    while i < n:
        c = src[i]
        if c == '"':
            i = skip_string(src, i)
        elif c in "{[(":
            depth += 1
            i = slot(i + 1) if depth == 1 else i + 1
        elif c in "}])":
            depth -= 1
            if depth == 0:
                break
            i += 1
        elif depth == 1 and c == ",":
            i = slot(i + 1)
        else:
            i += 1
    return out
