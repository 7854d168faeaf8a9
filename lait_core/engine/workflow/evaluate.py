"""jq expressions and templates evaluated in a frame (``$steps``/``$inputs``/``$loop`` and
``input``/``steps``/``inputs``/``loop``), with errors that name the field.

jq runs in the run's worker processes (:mod:`lait_core.engine.workflow.jq_eval`), so a step or
workflow ``timeout``, Ctrl-C and an editor's cancel interrupt even an endless expression."""

from __future__ import annotations

from typing import Any

from lait_core.engine.workflow.scope import Frame
from lait_core.engine.workflow.workflow_errors import WorkflowError
from lait_core.syntax import jq
from lait_core.syntax.template import TemplateRenderError, render, text_form


async def jq_value(frame: Frame, expr: str, value: Any, what: str) -> Any:
    try:
        return await frame.run.jq.evaluate(
            expr, value, steps=frame.steps, inputs=frame.scope.inputs, loop=frame.loop
        )
    except jq.JqError as exc:
        raise WorkflowError(f"'{what}': {exc.message}") from None


async def jq_truthy(frame: Frame, expr: str, value: Any, what: str) -> bool:
    return jq.is_truthy(await jq_value(frame, expr, value, what))


def render_template(frame: Frame, template: str, value: Any, what: str) -> str:
    try:
        return render(template, frame.template_context(value))
    except TemplateRenderError as exc:
        raise WorkflowError(f"'{what}': {exc.message}") from None


__all__ = ["jq_truthy", "jq_value", "render_template", "text_form"]
