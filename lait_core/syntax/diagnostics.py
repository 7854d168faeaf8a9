"""The diagnostic model shared by the parser, the documents, the lint rules and both faces."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

from lait_core.syntax.positions import Range


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True, slots=True)
class Related:
    """Another place that explains a diagnostic (the first definition of a duplicate id, say)."""

    path: str
    range: Range
    message: str


def same_word(a: str, b: str) -> bool:
    """``a`` and ``b`` differ only in case, ``-`` or ``_``: replacing one by the other is a safe fix."""

    def norm(word: str) -> str:
        return word.lower().replace("-", "").replace("_", "")

    return a != b and norm(a) == norm(b)


@dataclass(frozen=True, slots=True)
class Fix:
    """A text edit that resolves the diagnostic: replace ``range`` in the same file by ``text``."""

    title: str
    range: Range
    text: str
    safe: bool = False
    """Applied by `lait lint --fix`; an unsafe fix (a guess, or a change of behaviour) needs
    `--unsafe-fixes` (ruff's labels)."""


@dataclass(frozen=True, slots=True)
class Diagnostic:
    code: str
    message: str
    range: Range
    severity: Severity = Severity.ERROR
    path: str = ""
    related: tuple[Related, ...] = field(default=())
    fixes: tuple[Fix, ...] = field(default=())

    def at(self, path: str) -> Diagnostic:
        """This diagnostic attributed to ``path`` (used when a document is linted under a name)."""
        return Diagnostic(self.code, self.message, self.range, self.severity, path, self.related, self.fixes)

    def sort_key(self) -> tuple[str, int, int, str]:
        return (self.path, self.range.start.line, self.range.start.character, self.code)
