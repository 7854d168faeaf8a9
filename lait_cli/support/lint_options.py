"""Helpers of `lait lint`: rule selectors, `--fix` over files, writing a baseline."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from lait_cli.support.common import fail

if TYPE_CHECKING:
    from lait_core.lint.engine import Linter, LintResult
    from lait_core.lint.selection import Selection


def _split(values: list[str] | None) -> tuple[str, ...]:
    return tuple(part.strip() for value in values or () for part in value.split(",") if part.strip())


def lint_selection(
    select: list[str] | None, extend_select: list[str] | None, ignore: list[str] | None
) -> Selection | None:
    from lait_core.lint.selection import Selection, unknown_selectors

    chosen = Selection(_split(select) if select is not None else None, _split(extend_select), _split(ignore))
    if chosen.is_empty():
        return None
    bad = unknown_selectors((*(chosen.select or ()), *chosen.extend_select, *chosen.ignore))
    if bad:
        raise fail(
            f"unknown rule selector {', '.join(repr(b) for b in bad)}; expected a code such as LAIT501 or a prefix"
            " such as LAIT5 ('lait rule --all' lists the codes)",
            2,
        )
    return chosen


def fix_files(linter: Linter, paths: list[str], *, only_lait_files: bool, unsafe: bool) -> None:
    """Apply fixes to every file `lait lint` would check; report on stderr what was fixed."""
    from lait_core.lint.discovery import discover
    from lait_core.lint.fixing import fix_text
    from lait_core.syntax.bounded_read import read_source

    fixed = files = left = 0
    for name in discover(paths):
        path = Path(name)
        if only_lait_files and not linter.is_lait_file(path):
            continue
        loaded = read_source(path)
        if loaded.text is None:
            continue
        outcome = fix_text(linter, loaded.text, path, linter.kind_of(path), unsafe=unsafe)
        left += outcome.unsafe_left
        if outcome.text != loaded.text:
            tmp = f"{name}.lait-fix.tmp"
            try:
                with open(tmp, "w", encoding="utf-8", newline="", errors="surrogateescape") as fh:
                    fh.write(outcome.text)
                os.replace(tmp, name)
            except OSError as exc:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise fail(f"cannot write '{name}': {exc.strerror or exc}", 1) from None
            fixed += outcome.applied
            files += 1
            linter.invalidate(path)
    if fixed:
        sys.stderr.write(f"lait: fixed {fixed} problem(s) in {files} file(s)\n")
    if left:
        sys.stderr.write(f"lait: {left} more fixable with --unsafe-fixes\n")


def save_baseline(path: Path, result: LintResult) -> int:
    from lait_core.lint import baseline
    from lait_core.syntax.bounded_read import read_source

    texts: dict[str, str | None] = {}
    findings = []
    for report in result.reports:
        for d in report.diagnostics:
            key = d.path or report.path
            if key not in texts:
                texts[key] = read_source(Path(key)).text if os.path.exists(key) else None
            findings.append((d if d.path else d.at(key), texts[key]))
    try:
        path.write_text(baseline.render(path, findings), encoding="utf-8")
    except OSError as exc:
        raise fail(f"cannot write '{path}': {exc.strerror or exc}", 2) from None
    return len(findings)
