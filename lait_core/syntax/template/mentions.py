"""Which ``inputs.*`` / ``steps.*`` names a template mentions, with exact offsets.

This mirrors the original linter's extraction rule rather than the full grammar, so it also works
on templates with syntax errors: every ``{{ ... }}`` span is split into tokens at whitespace and
parentheses; a token that starts with ``inputs.`` or ``steps.`` (also ``input.``, ``vars.``,
``loop.``; callers filter roots) contributes the next segment, made of ``[A-Za-z0-9_-]`` or written
as a bracket key ``inputs.[my key]``.  ``../inputs.x`` and ``this.inputs.x`` are not references.

Refinements over a plain split, all to avoid false positives and negatives:

* comments (``{{! }}``, ``{{!-- --}}``), escaped ``\\{{`` and ``{{{{raw}}}}`` blocks are skipped;
* string literals are single tokens (``"see inputs.x"`` mentions nothing);
* a leading ``~`` or block sigil (``{{~inputs.x}}``, ``{{#each steps.list}}``) and a hash key
  (``key=inputs.x``) are not part of the token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ROOTS = ("inputs", "steps", "input", "vars", "loop")

_COMMENT_OPEN = re.compile(r"\{\{\{?~?!(--)?")
_RAW_OPEN = re.compile(r"\{\{\{\{\s*raw\s*\}\}\}\}")
_RAW_CLOSE = re.compile(r"\{\{\{\{\s*/\s*raw\s*\}\}\}\}")
_TOKEN = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|(?:\[[^\]\n]*\]|[^\s()"'])+""")
_REFERENCE = re.compile(r"(inputs|steps|input|vars|loop)\.(?:([A-Za-z0-9_-]+)|\[([^\]]+)\])")
# The same, for bodies without string literals: a reference must start a token (after
# whitespace, a parenthesis, a ``~``/block sigil or ``key=``); ``../inputs.x`` does not count.
_REFERENCE_IN_BODY = re.compile(
    r"(?<![^\s(){~#^&>*=])(inputs|steps|input|vars|loop)\.(?:([A-Za-z0-9_-]+)|\[([^\]\n]+)\])"
)
_PREFIX = re.compile(r"[~{#/^&>*]*(?:[\w-]+=)?")


class _Next:
    """The next match of a pattern at or after a position that only moves forward, each search
    remembered: an unclosed ``{{`` (or comment, or raw block) costs one scan of the rest, not one
    per later tag (which made 200k unclosed tags quadratic)."""

    def __init__(self, source: str, pattern: str | re.Pattern[str]) -> None:
        self._source = source
        self._pattern = pattern
        self._at = -1
        self._found: tuple[int, int] | None = None

    def find(self, pos: int) -> tuple[int, int] | None:
        """(start, end) of the first match at or after ``pos``, or None."""
        if self._at != -1 and self._at <= pos and (self._found is None or self._found[0] >= pos):
            return self._found
        self._at = pos
        if isinstance(self._pattern, str):
            start = self._source.find(self._pattern, pos)
            self._found = None if start == -1 else (start, start + len(self._pattern))
        else:
            m = self._pattern.search(self._source, pos)
            self._found = None if m is None else m.span()
        return self._found


def _first(*found: tuple[int, int] | None) -> tuple[int, int] | None:
    present = [f for f in found if f is not None]
    return min(present) if present else None


@dataclass(frozen=True, slots=True)
class Reference:
    """``{{ inputs.x.y }}`` -> ``Reference("inputs", "x", start, end)``; ``source[start:end] == name``."""

    root: str
    name: str
    start: int
    end: int


def references(source: str) -> list[Reference]:
    """Each (root, name) mentioned in ``source``, once, at its first occurrence, in source order."""
    if "{{" not in source:
        return []
    found: list[Reference] = []
    seen: set[tuple[str, str]] = set()
    n = len(source)
    pos = 0
    closes = _Next(source, "}}")
    long_closes = (_Next(source, "--}}"), _Next(source, "--~}}"))
    raw_closes = _Next(source, _RAW_CLOSE)
    while (brace := source.find("{{", pos)) != -1:
        if brace > 0 and source[brace - 1] == "\\" and (brace < 2 or source[brace - 2] != "\\"):
            pos = brace + 2  # \{{ is literal
            continue
        if source.startswith("{{{{", brace):
            raw = _RAW_OPEN.match(source, brace)
            raw_end = raw_closes.find(raw.end()) if raw is not None else None
            if raw_end is not None:
                pos = raw_end[1]
                continue
        body_start = brace + 2
        if "!" in source[body_start : body_start + 3]:
            comment_end = _comment_end(source, brace, closes, long_closes)
            if comment_end is not None:
                pos = comment_end
                continue
        closing = closes.find(body_start)
        close = -1 if closing is None else closing[0]
        body_end = n if close == -1 else close
        nxt = source.find("{{", body_start, body_end)
        if nxt != -1:
            body_end = nxt
        body = source[body_start:body_end]
        if '"' in body or "'" in body:
            matches = _references_in_tokens(source, body_start, body_end)
        else:
            matches = list(_REFERENCE_IN_BODY.finditer(source, body_start, body_end))
        for ref in matches:
            group = 2 if ref.group(2) is not None else 3
            key = (ref.group(1), ref.group(group))
            if key not in seen:
                seen.add(key)
                found.append(Reference(key[0], key[1], ref.start(group), ref.end(group)))
        pos = body_end if close == -1 or nxt != -1 else close + 2
    return found


def _comment_end(source: str, brace: int, closes: _Next, long_closes: tuple[_Next, _Next]) -> int | None:
    """Where the comment tag at ``brace`` ends: ``{{!-- ... --}}`` (``--~}}``) when it is closed
    so, else ``{{! ... }}`` up to the first ``}}``; None when ``brace`` opens no closed comment."""
    opened = _COMMENT_OPEN.match(source, brace)
    if opened is None:
        return None
    if opened.group(1):
        long_end = _first(*(c.find(opened.end()) for c in long_closes))
        if long_end is not None:
            return long_end[1]
    short_end = closes.find(opened.end() - (2 if opened.group(1) else 0))
    return None if short_end is None else short_end[1]


def _references_in_tokens(source: str, start: int, end: int) -> list[re.Match[str]]:
    """The slow path for bodies with string literals: split into tokens, skip the strings."""
    matches: list[re.Match[str]] = []
    for token in _TOKEN.finditer(source, start, end):
        token_start, token_end = token.span()
        if source[token_start] in "\"'":
            continue
        prefix = _PREFIX.match(source, token_start, token_end)
        if prefix is not None:
            token_start = prefix.end()
        ref = _REFERENCE.match(source, token_start, token_end)
        if ref is not None:
            matches.append(ref)
    return matches
