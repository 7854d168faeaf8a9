"""The keys of a jq program's top-level object literal (``{repo: $inputs.repo, "n": 3}``), for the
``with:`` of a workflow step: each names an input of the child workflow."""

from __future__ import annotations

import re

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
