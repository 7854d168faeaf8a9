"""Loading workflow files for a run: read, validate completely (nothing runs before the whole file
validates), cache per run, and the run-time checks on child files (cycles, depth, placement)."""

from __future__ import annotations

import os
from pathlib import Path

from lait_core.documents.placement import (
    MAX_DEPTH,
    Placement,
    inherited_message,
    inherited_problems,
    nesting_problem,
)
from lait_core.documents.workflow_file import WorkflowDocument, is_workflow_path, parse_workflow
from lait_core.engine.workflow.scope import Frame, Run
from lait_core.engine.workflow.workflow_errors import WorkflowError, WorkflowLoadError
from lait_core.syntax.bounded_read import read_source
from lait_core.syntax.diagnostics import Severity

__all__ = ["MAX_DEPTH", "canonical", "check_nesting", "check_placement", "child_path", "load_document"]


def canonical(path: Path) -> Path:
    return Path(os.path.realpath(path))


def load_document(run: Run | None, path: Path) -> WorkflowDocument:
    """The validated document of ``path``; raises :class:`WorkflowLoadError` with every error."""
    key = canonical(path)
    if run is not None and key in run.documents:
        return run.documents[key]
    loaded = read_source(path)
    if loaded.text is None:
        assert loaded.problem is not None
        raise WorkflowLoadError(
            str(path), [loaded.problem], f"cannot read workflow: {loaded.problem.message}"
        )
    doc = parse_workflow(loaded.text, str(path))
    errors = [d for d in doc.diagnostics if d.severity == Severity.ERROR]
    if errors or doc.model is None:
        raise WorkflowLoadError(str(path), sorted(errors, key=lambda d: d.sort_key()))
    if run is not None:
        run.documents[key] = doc
    return doc


def child_path(frame: Frame, ref: str) -> Path:
    """A ``workflow:`` reference: a path (relative to the calling file's directory) or a registry name."""
    if not ref:
        raise WorkflowError("'workflow' needs a reference (it is empty)")
    scope = frame.scope
    if is_workflow_path(ref):
        return scope.base_dir / ref
    registry = frame.run.session.config.workflows
    if ref not in registry:
        raise WorkflowError(
            f"workflow '{ref}' is not registered under 'workflows:' in lait.config.yml; use a path such as"
            f" './{ref}.yml'"
        )
    target = Path(registry[ref])
    return target if target.is_absolute() else frame.run.session.config_dir / target


def check_nesting(frame: Frame, ref: str, path: Path) -> None:
    problem = nesting_problem(ref, canonical(path), frame.scope.chain, frame.scope.depth)
    if problem is not None:
        raise WorkflowError(problem)


def check_placement(doc: WorkflowDocument, frame: Frame, ref: str) -> None:
    """A child run from a parallel branch or concurrent for_each may not ``ask``, nor ``write`` to a
    fixed path from a concurrent for_each (the caller's own file is checked when it is validated;
    lint reports the same problems at the calling step through the same rules)."""
    problems = inherited_problems(doc, Placement(frame.concurrent, frame.concurrent_for_each))
    if problems:
        raise WorkflowError(inherited_message(ref, problems[0].message))
