"""The workflow executor (docs/workflows.md): `run_workflow` runs a version 2
workflow file exactly as written -- every step kind, typed values between steps, retries,
timeouts, `on_error`, parallel branches, concurrent loops and child workflows -- reporting
progress through the session's Interaction.

Modules: ``runner`` (one step in the order of docs/workflows.md, step lists), ``steps`` (leaf kinds),
``control`` (group/switch/parallel/loops), ``files`` (a file run, child workflows), ``llm_steps``
(prompt/agent), ``inputs`` (``inputs:`` and the initial value), ``loader`` (validation, cycles),
``errors`` (what the CLI maps to exit codes).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.engine.llm.chat_types import Usage
from lait_core.engine.workflow import control, llm_steps, steps  # noqa: F401 -- register the step actions
from lait_core.engine.workflow.file_run import check_initial, run_file, top_scope, workflow_model
from lait_core.engine.workflow.inputs import InputError, bind_inputs, initial_value, parse_input_options
from lait_core.engine.workflow.loader import load_document
from lait_core.engine.workflow.schema_refs import resolve_schema
from lait_core.engine.workflow.scope import Run
from lait_core.engine.workflow.workflow_errors import (
    DecideNotSupported,
    StepFailed,
    StepTimedOut,
    WorkflowError,
    WorkflowLoadError,
    WorkflowTimedOut,
)
from lait_core.syntax.template import text_form

if TYPE_CHECKING:
    from lait_core.engine.records.checkpoint import Checkpointer
    from lait_core.engine.run.run_session import RunSession

PROMPT_REQUIRED = (
    "a PROMPT is required; provide one or pipe input via stdin (or declare 'inputs:' in the workflow to"
    " run it without one)"
)


@dataclass(frozen=True, slots=True)
class WorkflowResult:
    value: Any
    """The result (after the top-level `output:`), JSON-typed."""
    text: str
    """Its text form: a string as is, anything else compact JSON."""
    usage: Usage
    """Token usage of every model call of the run."""


async def run_workflow(
    session: RunSession,
    path: Path,
    *,
    prompt: str | None = None,
    inputs: Mapping[str, str] | None = None,
    run_id: str | None = None,
    checkpointer: Checkpointer | None = None,
) -> WorkflowResult:
    """Validate ``path`` completely, bind ``inputs`` (``--input`` text) and run it on ``prompt``.

    Raises :class:`WorkflowLoadError` (nothing ran), :class:`InputError`, :class:`StepFailed`,
    :class:`StepTimedOut`/:class:`WorkflowTimedOut` (``Interrupted``), or another
    :class:`~lait_core.engine.llm.chat_types.EngineError`.

    With a ``checkpointer`` the top-level steps are checkpointed; when it is ``resuming`` (checked
    by :func:`~lait_core.engine.records.checkpoint.check_resume` beforehand) the saved inputs and
    initial value are used and ``prompt``/``inputs`` are ignored.
    """
    run = Run(session, run_id, checkpointer=checkpointer)
    try:
        doc = load_document(run, path)
        wf = workflow_model(doc)
        if checkpointer is not None and checkpointer.resuming:
            saved = checkpointer.state
            scope = top_scope(run, path, doc, dict(saved.inputs))
            value = saved.initial_input
        else:
            if prompt is None and wf.inputs is None:
                raise InputError(PROMPT_REQUIRED)
            bound = bind_inputs(wf.inputs, dict(inputs or {}), from_text=True)
            scope = top_scope(run, path, doc, bound)
            schema = resolve_schema(scope, wf.input_schema, "input_schema")
            value = initial_value(prompt, schema)
            if prompt is not None:  # without a PROMPT (allowed with `inputs:`) the initial value is null
                check_initial(scope, value)
            if checkpointer is not None:
                checkpointer.begin(str(scope.path), value, bound, doc.steps)
        result = await run_file(scope, value)
    finally:
        await run.aclose()
    return WorkflowResult(result, text_form(result), run.usage)


__all__ = [
    "DecideNotSupported",
    "InputError",
    "StepFailed",
    "StepTimedOut",
    "WorkflowError",
    "WorkflowLoadError",
    "WorkflowResult",
    "WorkflowTimedOut",
    "parse_input_options",
    "run_workflow",
]
