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

_COMMENT = re.compile(r"\{\{\{?~?!(?:--(?P<long>.*?)--~?\}\}|.*?\}\})", re.DOTALL)
_RAW_BLOCK = re.compile(r"\{\{\{\{\s*raw\s*\}\}\}\}.*?\{\{\{\{\s*/\s*raw\s*\}\}\}\}", re.DOTALL)
_TOKEN = re.compile(r""""(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|(?:\[[^\]\n]*\]|[^\s()"'])+""")
_REFERENCE = re.compile(r"(inputs|steps|input|vars|loop)\.(?:([A-Za-z0-9_-]+)|\[([^\]]+)\])")
# The same, for bodies without string literals: a reference must start a token (after
# whitespace, a parenthesis, a ``~``/block sigil or ``key=``); ``../inputs.x`` does not count.
_REFERENCE_IN_BODY = re.compile(
    r"(?<![^\s(){~#^&>*=])(inputs|steps|input|vars|loop)\.(?:([A-Za-z0-9_-]+)|\[([^\]\n]+)\])"
)
_PREFIX = re.compile(r"[~{#/^&>*]*(?:[\w-]+=)?")


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
    while (brace := source.find("{{", pos)) != -1:
        if brace > 0 and source[brace - 1] == "\\" and (brace < 2 or source[brace - 2] != "\\"):
            pos = brace + 2  # \{{ is literal
            continue
        if source.startswith("{{{{", brace):
            raw = _RAW_BLOCK.match(source, brace)
            if raw is not None:
                pos = raw.end()
                continue
        body_start = brace + 2
        if "!" in source[body_start : body_start + 3]:
            comment = _COMMENT.match(source, brace)
            if comment is not None:
                pos = comment.end()
                continue
        close = source.find("}}", body_start)
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
