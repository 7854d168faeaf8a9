"""`lait lint --fix`: apply the rules' own fixes to files, safe ones only unless unsafe ones are asked for.

The fixes are the ones the editor offers as quick fixes (:func:`lait_core.language.code_actions.rule_fixes`,
one source). A fix is *safe* when it cannot change what the file means beyond what the diagnostic
says is wrong (a key written with another case or separator than the documented one); every other fix
(a "did you mean" guess, an added `'--'`, a secret moved to `${VAR}`) is *unsafe* and applied only with
`--unsafe-fixes`, as ruff labels them. Fixes are applied in rounds (lint, apply every
non-overlapping fix, lint again) until a round changes nothing, at most :data:`MAX_ROUNDS` times.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lait_core.syntax.diagnostics import Diagnostic, Fix

if TYPE_CHECKING:
    from lait_core.lint.discovery import FileKind
    from lait_core.lint.engine import Linter

MAX_ROUNDS = 10


@dataclass(frozen=True, slots=True)
class FixOutcome:
    text: str
    applied: int
    """Fixes applied."""
    unsafe_left: int
    """Diagnostics left with only unsafe fixes (when unsafe fixes were not asked for)."""


def chosen_fix(diag: Diagnostic, text: str, *, unsafe: bool) -> Fix | None:
    from lait_core.language.code_actions import rule_fixes

    fixes = rule_fixes(diag, text)
    if len(fixes) != 1:  # several candidates: a person chooses (the editor offers each)
        return None
    fix = fixes[0]
    return fix if fix.safe or unsafe else None


def fix_text(
    linter: Linter, text: str, path: Path, kind: FileKind | None = None, *, unsafe: bool = False
) -> FixOutcome:
    from lait_core.language.code_actions import TextEdit, apply_edits

    applied = 0
    for _round in range(MAX_ROUNDS):
        diags = linter.lint_text(text, path, kind)
        edits: list[TextEdit] = []
        taken: list[tuple[object, object]] = []
        for d in diags:
            fix = chosen_fix(d, text, unsafe=unsafe)
            if fix is None:
                continue
            span = (fix.range.start, fix.range.end)
            if any(not (span[1] <= a or b <= span[0]) for a, b in taken):  # type: ignore[operator]
                continue
            taken.append(span)
            edits.append(TextEdit(fix.range, fix.text))
        if not edits:
            break
        new = apply_edits(text, edits)
        if new == text:
            break
        text = new
        applied += len(edits)
        linter.invalidate(path)
    left = 0
    if not unsafe:
        left = sum(
            1 for d in linter.lint_text(text, path, kind) if chosen_fix(d, text, unsafe=True) is not None
        )
    return FixOutcome(text, applied, left)
