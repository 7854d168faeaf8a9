"""Baseline files: findings a project accepted once, so that only new ones fail (`--baseline FILE`).

A finding is matched by its file (relative to the baseline's folder), its code, its message and the
text of the line it starts on (stripped of surrounding whitespace), never by its line number: lines
inserted or removed above a finding do not make it new, while editing the line itself, or the message
changing, does. Identical findings are counted: a file with one more of them than recorded has one
new finding (the last in file order).

The file is JSON (``lait lint PATH... --write-baseline FILE`` writes it)::

    {"version": 1, "findings": [{"path": "agents/a.md", "code": "LAIT202",
      "message": "...", "line": "modle: qwen", "count": 1}]}
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from lait_core.syntax.bounded_read import read_bounded
from lait_core.syntax.diagnostics import Diagnostic

VERSION = 1
Key = tuple[str, str, str, str]


class BaselineError(Exception):
    """The baseline file cannot be read or is not a baseline."""


def line_text(text: str | None, line: int) -> str:
    if not text:
        return ""
    lines = text.splitlines()
    return lines[line].strip() if 0 <= line < len(lines) else ""


@dataclass(slots=True)
class Baseline:
    folder: str
    counts: dict[str, Counter[Key]] = field(default_factory=dict)

    def relative(self, path: str) -> str:
        try:
            rel = os.path.relpath(os.path.abspath(path), self.folder)
        except ValueError:
            rel = os.path.abspath(path)
        return rel.replace(os.sep, "/")

    def key(self, d: Diagnostic, text: str | None, path: str | None = None) -> Key:
        return (self.relative(path or d.path), d.code, d.message, line_text(text, d.range.start.line))

    def filter(
        self, diags: Iterable[Diagnostic], text: str | None, path: str | None = None
    ) -> tuple[list[Diagnostic], int]:
        """(the new findings, how many were in the baseline)."""
        diags = list(diags)
        if not diags:
            return diags, 0
        rel = self.relative(path or diags[0].path)
        left = Counter(self.counts.get(rel, Counter()))
        kept: list[Diagnostic] = []
        matched = 0
        for d in diags:
            k = self.key(d, text, path)
            if left[k] > 0:
                left[k] -= 1
                matched += 1
            else:
                kept.append(d)
        return kept, matched


def load(path: Path) -> Baseline:
    try:
        data = json.loads(read_bounded(path).decode("utf-8"))
    except FileNotFoundError:
        raise BaselineError(
            f"baseline file '{path}' does not exist (write one with --write-baseline)"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise BaselineError(f"cannot read baseline file '{path}': {exc}") from None
    except json.JSONDecodeError as exc:
        raise BaselineError(
            f"{path}:{exc.lineno}:{exc.colno}: baseline file is not JSON: {exc.msg}"
        ) from None
    if (
        not isinstance(data, dict)
        or data.get("version") != VERSION
        or not isinstance(data.get("findings"), list)
    ):
        raise BaselineError(f"'{path}' is not a lait baseline file (version {VERSION})")
    baseline = Baseline(os.path.dirname(os.path.abspath(path)))
    for i, item in enumerate(data["findings"]):
        fields = ("path", "code", "message", "line")
        if not isinstance(item, dict) or not all(isinstance(item.get(f), str) for f in fields):
            raise BaselineError(
                f"'{path}': finding {i + 1} needs string 'path', 'code', 'message' and 'line'"
            )
        count = item.get("count", 1)
        if not isinstance(count, int) or isinstance(count, bool) or count < 1:
            raise BaselineError(f"'{path}': finding {i + 1} has a 'count' that is not a positive integer")
        key: Key = (item["path"], item["code"], item["message"], item["line"])
        baseline.counts.setdefault(item["path"], Counter())[key] += count
    return baseline


def render(path: Path, findings: Iterable[tuple[Diagnostic, str | None]]) -> str:
    """The baseline file's text for ``findings`` (each with its file's text), sorted and counted."""
    baseline = Baseline(os.path.dirname(os.path.abspath(path)))
    counts: Counter[Key] = Counter(baseline.key(d, text) for d, text in findings)
    rows = [
        {"path": k[0], "code": k[1], "message": k[2], "line": k[3], "count": n}
        for k, n in sorted(counts.items())
    ]
    return json.dumps({"version": VERSION, "findings": rows}, indent=2, ensure_ascii=False) + "\n"
