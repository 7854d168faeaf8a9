"""What `lait lint` reports about one file, and the one way lait counts it.

Every surface that describes another file's problems counts them here, from the same findings
`lait lint FILE` prints for that file (suppressions applied): a workflow's dependants (LAIT320 at a
``workflow:`` step, LAIT703 in a test or eval file), the refusal of `lait run`/`lait graph` and of the
editor's run and graph view, and lint's own summary. A workflow with 3 errors and 1 warning is
"3 errors and 1 warning" on all of them (issue 25).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lait_core.lint import suppression
from lait_core.rules.capabilities.names_not_checked import CODE as NAMES_NOT_CHECKED
from lait_core.syntax.diagnostics import Diagnostic, Related, Severity

if TYPE_CHECKING:
    from lait_core.documents.workflow_file import WorkflowDocument
    from lait_core.lint.checks.workflows import WorkflowChecks
    from lait_core.lint.workspace import Workspace


@dataclass(frozen=True, slots=True)
class ProblemCount:
    errors: int = 0
    warnings: int = 0

    @classmethod
    def of(cls, diagnostics: Iterable[Diagnostic]) -> ProblemCount:
        errors = warnings = 0
        for d in diagnostics:
            if d.severity == Severity.ERROR:
                errors += 1
            elif d.severity == Severity.WARNING:
                warnings += 1
        return cls(errors, warnings)

    def __add__(self, other: ProblemCount) -> ProblemCount:
        return ProblemCount(self.errors + other.errors, self.warnings + other.warnings)

    def __bool__(self) -> bool:
        return bool(self.errors or self.warnings)

    def describe(self) -> str:
        """``3 errors and 1 warning``, ``1 error``, ``2 warnings``, ``no problems``."""
        parts = [plural(n, word) for n, word in ((self.errors, "error"), (self.warnings, "warning")) if n]
        return " and ".join(parts) or "no problems"


def plural(n: int, word: str) -> str:
    """``1 file``, ``2 files``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def config_absent(ws: Workspace) -> bool:
    """No config at all, so LAIT506 applies (a broken config is reported on its own instead)."""
    loaded = ws.loaded_config
    return loaded is None or (not loaded.present and all(d.ok for d in loaded.documents))


def finish(diags: list[Diagnostic], text: str, display: str, *, markdown: bool = False) -> list[Diagnostic]:
    """Suppressions applied, every diagnostic (and its related notes in the same file) attributed to
    ``display``, sorted by position."""
    kept = suppression.apply(diags, text, markdown=markdown)
    own = {d.path for d in kept if d.path} | {os.path.abspath(display)}
    out = []
    for d in kept:
        related = tuple(
            Related(display, r.range, r.message) if r.path in own or os.path.abspath(r.path) in own else r
            for r in d.related
        )
        out.append(Diagnostic(d.code, d.message, d.range, d.severity, display, related, d.fixes))
    out.sort(key=lambda d: (d.range.start, d.code))
    return out


def skipped_last(diags: list[Diagnostic]) -> list[Diagnostic]:
    """LAIT506 is a file's last diagnostic, whatever its position."""
    return [d for d in diags if d.code != NAMES_NOT_CHECKED] + [
        d for d in diags if d.code == NAMES_NOT_CHECKED
    ]


def workflow_findings(
    doc: WorkflowDocument, path: Path, checks: WorkflowChecks, stack: tuple[str, ...] = ()
) -> list[Diagnostic]:
    """What `lait lint` reports for the workflow ``doc`` (read from ``path``): its load problems, the
    lint-only checks (through ``checks``, which caches the children it visits) and LAIT506 when a
    name check had no config, suppressions applied, attributed to ``doc.path``."""
    from lait_core.rules.capabilities.names_not_checked import SkipTracker, skipped_diagnostic

    outer = checks.skip
    checks.skip = own = SkipTracker()
    try:
        diags = list(doc.diagnostics) + checks.run(doc, path, stack)
    finally:
        checks.skip = outer
    if own.skipped and config_absent(checks.ws):
        diags.append(skipped_diagnostic())
    return skipped_last(finish(diags, doc.source.text, doc.path))


def finding_line(d: Diagnostic, path: str | None = None) -> str:
    """``path:line:col: CODE severity: message``, as `lait lint` prints a finding (``path``: the
    name to show for the finding's file)."""
    start = d.range.start
    return (
        f"{path or d.path}:{start.line + 1}:{start.character + 1}: {d.code} {d.severity.value}: {d.message}"
    )


def finding_lines(findings: Iterable[Diagnostic], path: Path) -> list[str]:
    """The findings' lines, the file ``path`` named as given (lint names it relative to the working
    directory), other files as lint names them."""
    here = os.path.abspath(path)
    return [finding_line(d, str(path) if os.path.abspath(d.path) == here else None) for d in findings]


__all__ = [
    "ProblemCount",
    "config_absent",
    "finding_line",
    "finding_lines",
    "finish",
    "plural",
    "skipped_last",
    "workflow_findings",
]
