"""A workflow that does not load, as `lait run`, `lait graph` and the editor's run and graph view
refuse it: its `lait lint` findings and the line that counts them
(:class:`~lait_core.lint.findings.ProblemCount`)."""

from __future__ import annotations

from pathlib import Path

from lait_core.lint.engine import Linter, LintOptions
from lait_core.lint.findings import ProblemCount, finding_lines
from lait_core.syntax.diagnostics import Diagnostic, Severity


def lint_one(path: Path, options: LintOptions | None = None) -> list[Diagnostic]:
    """`lait lint PATH`'s findings for one file, as that command finds them."""
    return Linter(options).lint_file(path).diagnostics


def invalid_workflow(
    path: Path, load_errors: list[Diagnostic], options: LintOptions | None = None
) -> tuple[list[Diagnostic], str]:
    """A workflow that does not load, as a run or a graph refuses it: the file's lint findings (the
    errors that stop the load among them) and the line that sums them up, ``'<path>' is not a valid
    workflow (3 errors and 1 warning)``. Should lint find nothing (a file changed in between),
    the load errors stand for it."""
    findings = lint_one(path, options)
    if not any(d.severity == Severity.ERROR for d in findings):
        findings = sorted(load_errors, key=lambda d: d.sort_key())
    return findings, f"'{path}' is not a valid workflow ({ProblemCount.of(findings).describe()})"


def invalid_workflow_text(
    path: Path, load_errors: list[Diagnostic], options: LintOptions | None = None
) -> str:
    """:func:`invalid_workflow` as one text: the summary, then each finding on a line of its own."""
    findings, summary = invalid_workflow(path, load_errors, options)
    return summary + ":\n" + "\n".join(finding_lines(findings, path))
