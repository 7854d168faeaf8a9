"""Suppression comments.

* ``# lait: ignore[LAIT404]`` (or ``ignore[LAIT404, LAIT315]``) at the end of the line where a
  diagnostic starts silences those codes there; ``# lait: ignore`` alone silences every code on
  that line.
* ``# lait: ignore-file[LAIT506]`` on a line of its own silences those codes in the whole file
  (``# lait: ignore-file`` alone silences everything).

Only real YAML comments count: not text inside quoted strings or block scalars (a prompt that
talks about lait comments is not a suppression). In Markdown files the YAML comment form works in
the frontmatter and an HTML comment works anywhere: ``<!-- lait: ignore-file[LAIT401] -->``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lait_core.syntax.diagnostics import Diagnostic

_COMMENT = re.compile(r"lait:\s*ignore(-file)?(?:\[([A-Za-z0-9_,\s]*)\])?")
_BLOCK_HEADER = re.compile(r"(?:^|[:\-]\s)\s*[|>][0-9+\-]*\s*(?:#.*)?$")
ALL = "*"
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


@dataclass(slots=True)
class Suppressions:
    lines: dict[int, set[str]] = field(default_factory=dict)
    file: set[str] = field(default_factory=set)

    def suppressed(self, diag: Diagnostic) -> bool:
        if diag.code in self.file or ALL in self.file:
            return True
        codes = self.lines.get(diag.range.start.line)
        return codes is not None and (diag.code in codes or ALL in codes)


def _comment_start(line: str) -> int:
    """Offset of the YAML comment on ``line`` (-1 when none): a `#` outside quotes, after a blank."""
    quote = ""
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = ""
        elif ch in "'\"" and (i == 0 or line[i - 1] in " \t[{,:-"):
            quote = ch
        elif ch == "#" and (i == 0 or line[i - 1] in " \t"):
            return i
    return -1


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _key_indent(line: str) -> int:
    """The column of the key on ``line`` (after any `- ` list markers): a block scalar's content is
    indented deeper than its key."""
    i = _indent(line)
    while line.startswith("-", i) and (i + 1 == len(line) or line[i + 1] in " \t"):
        i += 1
        while i < len(line) and line[i] in " \t":
            i += 1
    return i


def scan(text: str, *, markdown: bool = False) -> Suppressions:
    result = Suppressions()
    if "lait:" not in text:
        return result
    lines = _LINE_BREAK.split(text)  # lines as YAML 1.2, LSP and LineIndex count them
    in_yaml = not markdown
    if markdown and lines and lines[0].rstrip("\r") == "---":
        in_yaml = True
    block_indent: int | None = None  # inside a block scalar whose parent line had this indentation
    for lineno, line in enumerate(lines):
        if markdown and lineno > 0 and line.rstrip("\r") == "---":
            in_yaml = False
            continue
        stripped = line.strip()
        if block_indent is not None:
            if not stripped or _indent(line) > block_indent:
                continue  # block scalar content is text, never a comment
            block_indent = None
        comment = -1
        if in_yaml:
            comment = _comment_start(line)
            code_part = line[:comment] if comment >= 0 else line
            if _BLOCK_HEADER.search(code_part.rstrip()):
                block_indent = _key_indent(line)
        if "lait:" not in line:
            continue
        candidates: list[tuple[re.Match[str], bool]] = []
        if comment >= 0:
            candidates += [(m, True) for m in _COMMENT.finditer(line, comment)]
        if markdown:
            for m in _COMMENT.finditer(line):
                if line[: m.start()].rstrip().endswith("<!--"):
                    candidates.append((m, False))
        for match, _yaml in candidates:
            codes = {c.strip().upper() for c in (match.group(2) or "").split(",") if c.strip()} or {ALL}
            if match.group(1):
                result.file |= codes
            else:
                result.lines.setdefault(lineno, set()).update(codes)
    return result


def apply(diagnostics: list[Diagnostic], text: str, *, markdown: bool = False) -> list[Diagnostic]:
    supp = scan(text, markdown=markdown)
    if not supp.lines and not supp.file:
        return diagnostics
    return [d for d in diagnostics if not supp.suppressed(d)]
