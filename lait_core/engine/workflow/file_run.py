"""Running one workflow file: its scope (inputs, merged defaults and models), its `timeout`, `stop`,
and the top-level `output`; and the `workflow:` step that runs a child file."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.documents import document_models as m
from lait_core.documents.config_file import resolve_gguf_paths
from lait_core.documents.workflow_file import WorkflowDocument
from lait_core.engine.processes.confine import check_inside, confined_root
from lait_core.engine.run.interaction import Note, WarningEvent, WorkflowStarted
from lait_core.engine.workflow.evaluate import jq_value
from lait_core.engine.workflow.flow import StopFlow
from lait_core.engine.workflow.inputs import bind_inputs
from lait_core.engine.workflow.loader import (
    canonical,
    check_nesting,
    check_placement,
    child_path,
    load_document,
)
from lait_core.engine.workflow.schema_refs import resolve_schema, validate
from lait_core.engine.workflow.scope import FileScope, Frame, Run
from lait_core.engine.workflow.step_runner import StepCall, action, run_steps
from lait_core.engine.workflow.workflow_errors import WorkflowError, WorkflowTimedOut
from lait_core.syntax.template.values import a_type_name

if TYPE_CHECKING:
    from lait_core.engine.records.checkpoint import Checkpointer


def workflow_model(doc: WorkflowDocument) -> m.Workflow:
    assert doc.model is not None
    return doc.model


def merge_defaults(caller: m.WorkflowDefaults | None, own: m.WorkflowDefaults | None) -> m.WorkflowDefaults:
    """``own`` field by field over ``caller`` (``retry`` as a whole block)."""
    base = caller if caller is not None else m.WorkflowDefaults()
    if own is None:
        return base
    return base.model_copy(update={name: getattr(own, name) for name in own.model_fields_set})


def own_models(wf: m.Workflow, path: Path) -> m.ModelMap:
    """The workflow's embedded ``models:``, a relative ``provider.gguf`` joined onto its folder."""
    return resolve_gguf_paths(wf.models or {}, path.parent)


def top_scope(run: Run, path: Path, doc: WorkflowDocument, inputs: dict[str, Any]) -> FileScope:
    wf = workflow_model(doc)
    key = canonical(path)
    return FileScope(
        run, key, doc, wf, inputs, merge_defaults(None, wf.default), own_models(wf, path), 0, (key,)
    )


def child_scope(caller: FileScope, path: Path, doc: WorkflowDocument, inputs: dict[str, Any]) -> FileScope:
    wf = workflow_model(doc)
    key = canonical(path)
    return FileScope(
        caller.run,
        key,
        doc,
        wf,
        inputs,
        merge_defaults(caller.defaults, wf.default),
        {**caller.models, **own_models(wf, path)},
        caller.depth + 1,
        (*caller.chain, key),
    )


def check_initial(scope: FileScope, value: Any) -> None:
    schema = resolve_schema(scope, scope.workflow.input_schema, "input_schema")
    if schema is not None:
        validate(value, schema, "input", "the input does not match the workflow's 'input_schema'")


async def run_file(
    scope: FileScope,
    value: Any,
    *,
    prefix: str = "",
    concurrent: bool = False,
    concurrent_for_each: bool = False,
) -> Any:
    """Run the file's steps on ``value``; the result after `stop` and the top-level `output`."""
    wf = scope.workflow
    run = scope.run
    if wf.name:
        run.event(WorkflowStarted(wf.name, wf.description, scope.depth, prefix, run.run_id))
    frame = Frame(scope, {}, None, prefix, concurrent=concurrent, concurrent_for_each=concurrent_for_each)

    checkpointer = run.checkpointer if scope.depth == 0 else None

    async def body() -> Any:
        try:
            if checkpointer is None:
                last = await run_steps(scope.doc.steps, value, frame)
            else:
                last = await _checkpointed(checkpointer, scope, value, frame)
        except StopFlow as stop:
            last = stop.value
        if wf.output is not None:
            last = await jq_value(frame, wf.output, last, "the workflow's output")
        if checkpointer is not None:
            checkpointer.finished(last)
        return last

    if wf.timeout is None:
        return await body()
    deadline = asyncio.timeout(wf.timeout)
    try:
        async with deadline:
            return await body()
    except TimeoutError:
        if not deadline.expired():
            raise
        if scope.depth == 0:
            run.event(
                Note(f"lait: the workflow's 'timeout' ({wf.timeout}s) was exceeded; cancelling the run")
            )
        raise WorkflowTimedOut(wf.timeout, scope.display) from None


async def _checkpointed(checkpointer: Checkpointer, scope: FileScope, value: Any, frame: Frame) -> Any:
    """The top-level steps with a checkpoint after each; a resumed run starts after the saved ones."""
    from lait_core.engine.workflow.step_runner import run_step

    steps = scope.doc.steps
    start = 0
    if checkpointer.resuming:
        saved = checkpointer.state
        start = saved.completed_index
        frame.steps.update(saved.steps_outputs)
        frame.counter.value = saved.counter
        value = saved.current_value
        for warning in checkpointer.warnings:
            scope.run.event(WarningEvent(warning))
        scope.run.event(Note(f"resuming run '{saved.run_id}' after {start} completed step(s)"))
    else:
        checkpointer.started()
    for index in range(start, len(steps)):
        try:
            value = await run_step(steps[index], value, frame)
        except StopFlow as stop:
            checkpointer.step_done(index + 1, frame.counter.value, stop.value, frame.steps)
            raise
        checkpointer.step_done(index + 1, frame.counter.value, value, frame.steps)
    return value


@action("workflow")
async def workflow_step(call: StepCall, value: Any) -> Any:
    model: m.WorkflowStepModel = call.model
    frame = call.frame
    ref = model.workflow
    path = child_path(frame, ref)
    session = frame.run.session
    check_inside(
        confined_root(session.config, session.config_dir), path, f"the workflow of 'workflow: {ref}'"
    )
    check_nesting(frame, ref, path)
    doc = load_document(frame.run, path)
    check_placement(doc, frame, ref)
    provided: Mapping[str, Any] = {}
    if model.with_ is not None:
        bound = await jq_value(frame, model.with_, value, "with")
        if not isinstance(bound, dict):
            raise WorkflowError(f"'with' must produce an object, got {a_type_name(bound)}")
        provided = bound
    wf = workflow_model(doc)
    try:
        inputs = bind_inputs(wf.inputs, provided, from_text=False)
    except WorkflowError as exc:
        raise WorkflowError(f"workflow '{ref}': {exc}") from None
    scope = child_scope(frame.scope, path, doc, inputs)
    check_initial(scope, value)
    return await run_file(
        scope,
        value,
        prefix=frame.prefix + "    ",
        concurrent=frame.concurrent,
        concurrent_for_each=frame.concurrent_for_each,
    )
