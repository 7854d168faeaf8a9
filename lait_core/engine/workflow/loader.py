"""Loading workflow files for a run: read, validate completely (nothing runs before the whole file
validates), cache per run, and the run-time checks on child files (cycles, depth, placement)."""

from __future__ import annotations

import os
from pathlib import Path

from lait_core.diagnostics import Severity
from lait_core.documents.workflow import Step, WorkflowDocument, is_workflow_path, parse_workflow
from lait_core.engine.workflow.errors import WorkflowError, WorkflowLoadError
from lait_core.engine.workflow.scope import Frame, Run
from lait_core.source.files import read_source

MAX_DEPTH = 32


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
    key = canonical(path)
    if key in frame.scope.chain:
        raise WorkflowError(f"'workflow: {ref}' would create a cycle")
    if frame.scope.depth + 1 > MAX_DEPTH:
        raise WorkflowError(f"'workflow: {ref}' exceeds the maximum workflow nesting depth of {MAX_DEPTH}")


def check_placement(doc: WorkflowDocument, frame: Frame, ref: str) -> None:
    """A child run from a parallel branch or concurrent for_each may not ``ask``, nor ``write`` to a
    fixed path from a concurrent for_each (checked in the caller's file at load time, here for the
    child)."""
    if not frame.concurrent:
        return
    for step in doc.all_steps():
        _check_step(step, frame, ref)


def _check_step(step: Step, frame: Frame, ref: str) -> None:
    if step.kind == "ask":
        raise WorkflowError(
            f"in workflow '{ref}': {step.label}: 'ask' cannot run inside a 'parallel' branch or a concurrent"
            " 'for_each' (the child workflow is called from one)"
        )
    if step.kind == "write" and frame.concurrent_for_each:
        node = step.get("write")
        value = node.to_python() if node is not None else None
        if isinstance(value, str) and "{{" not in value:
            raise WorkflowError(
                f"in workflow '{ref}': 'write' ({step.label}) with a fixed path cannot run inside a concurrent"
                " 'for_each'; include a placeholder such as '{{ loop.index }}' in the path"
            )
