"""Suppression comments.

* ``# lait: ignore[LAIT404]`` (or ``ignore[LAIT404, LAIT315]``) on the line where a diagnostic
  starts silences those codes there; ``# lait: ignore`` alone silences every code on that line.
* ``# lait: ignore-file[LAIT506]`` anywhere in the file silences those codes in the whole file
  (``# lait: ignore-file`` alone silences everything).

In Markdown the same text works inside an HTML comment: ``<!-- lait: ignore-file[LAIT401] -->``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from lait_core.diagnostics import Diagnostic

_COMMENT = re.compile(r"lait:\s*ignore(-file)?(?:\[([A-Za-z0-9_,\s]*)\])?")
ALL = "*"


@dataclass(slots=True)
class Suppressions:
    lines: dict[int, set[str]] = field(default_factory=dict)
    file: set[str] = field(default_factory=set)

    def suppressed(self, diag: Diagnostic) -> bool:
        if diag.code in self.file or ALL in self.file:
            return True
        codes = self.lines.get(diag.range.start.line)
        return codes is not None and (diag.code in codes or ALL in codes)


def scan(text: str) -> Suppressions:
    result = Suppressions()
    if "lait:" not in text:
        return result
    for lineno, line in enumerate(text.splitlines()):
        if "lait:" not in line:
            continue
        for match in _COMMENT.finditer(line):
            before = line[: match.start()].rstrip()
            if not (before.endswith("#") or before.endswith("<!--")):
                continue
            codes = {c.strip().upper() for c in (match.group(2) or "").split(",") if c.strip()} or {ALL}
            if match.group(1):
                result.file |= codes
            else:
                result.lines.setdefault(lineno, set()).update(codes)
    return result


def apply(diagnostics: list[Diagnostic], text: str) -> list[Diagnostic]:
    supp = scan(text)
    if not supp.lines and not supp.file:
        return diagnostics
    return [d for d in diagnostics if not supp.suppressed(d)]
