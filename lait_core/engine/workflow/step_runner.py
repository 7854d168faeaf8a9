"""Running a step list and one step in the order of docs/workflows.md:

1. count the step, label it (`id` or `step-<n> (<kind>)`);
2. `when` on the incoming value (falsy: `(skipped)`, value unchanged, nothing recorded);
3. the unit `input` -> kind action -> `output` under retry and the per-attempt timeout;
4. after the last failed attempt, `on_error` with `{error, input}` (the incoming value);
5. record the value under `id`.

`stop`/`break` travel as :class:`~.flow.Flow` signals: never retried, never caught by `on_error`;
the `output` of a control step ended by an inner one is not applied, but every named step the signal
passes through (a `switch`, `group`, loop ended by `stop`, or a step whose `on_error` ends in one)
records the value it ended with before the signal goes on (step 5 holds on every exit that is not a
failure).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lait_core.documents import document_models as m
from lait_core.documents.workflow_file import Step
from lait_core.engine.records.labels import labelled
from lait_core.engine.run.interaction import StepFinished, StepProgress, StepRetrying, StepStarted
from lait_core.engine.workflow.current import entered
from lait_core.engine.workflow.evaluate import jq_truthy, jq_value
from lait_core.engine.workflow.flow import BreakFlow, Flow, StopFlow
from lait_core.engine.workflow.scope import Frame, now
from lait_core.engine.workflow.workflow_errors import StepFailed, StepTimedOut, error_text

MAX_WAIT = 3600.0
MODEL_KINDS = ("prompt", "agent", "decide")


@dataclass(frozen=True, slots=True)
class StepCall:
    """One step being run: what a kind action gets besides its input value."""

    step: Step
    label: str
    number: int
    frame: Frame
    attempt: int = 1

    @property
    def model(self) -> Any:
        return self.step.model

    def children(self, name: str) -> list[Step]:
        for key, steps in self.step.children:
            if key == name:
                return steps
        return []

    def progress(self, message: str) -> None:
        self.frame.run.event(StepProgress(self.label, message, self.frame.prefix, self.frame.run.run_id))


Action = Callable[[StepCall, Any], Awaitable[Any]]
_ACTIONS: dict[str, Action] = {}


def action(kind: str) -> Callable[[Action], Action]:
    """Register the action of a step kind."""

    def register(fn: Action) -> Action:
        _ACTIONS[kind] = fn
        return fn

    return register


async def run_steps(steps: Sequence[Step], value: Any, frame: Frame) -> Any:
    for step in steps:
        value = await run_step(step, value, frame)
    return value


def effective_retry(step: Step, frame: Frame) -> m.RetryDefinition | None:
    own = getattr(step.model, "retry", None)
    if own is not None or step.kind not in MODEL_KINDS:
        return own
    return frame.scope.defaults.retry


def effective_timeout(step: Step, frame: Frame) -> int | None:
    own = getattr(step.model, "timeout", None)
    if own is not None or step.kind not in MODEL_KINDS:
        return own
    return frame.scope.defaults.timeout


async def run_step(step: Step, incoming: Any, frame: Frame) -> Any:
    where = step.node.range
    lines = (where.start.line, where.start.character, where.end.line, where.end.character)
    with entered(frame.scope.path, lines):
        return await _run_step(step, incoming, frame)


async def _run_step(step: Step, incoming: Any, frame: Frame) -> Any:
    run = frame.run
    number = frame.counter.next()
    label = step.name
    call = StepCall(step, label, number, frame)
    model = step.model
    assert model is not None
    started = now()

    def finished(status: str, error: BaseException | None = None) -> None:
        text = error_text(error) if error is not None else None
        run.event(
            StepFinished(label, step.kind, number, now() - started, status, frame.prefix, run.run_id, text)
        )

    if model.when is not None:
        try:
            go = await jq_truthy(frame, model.when, incoming, "when")
        except Exception as exc:
            raise StepFailed(label, exc) from exc
        if not go:
            finished("skipped")
            return incoming
    run.event(StepStarted(label, step.kind, number, frame.prefix, run.run_id))
    try:
        with labelled(label):
            value = await _attempts(call, incoming)
    except Flow as flow:
        # A named step records its value before an inner `stop`/`break` bubbles up through it (a
        # `switch`/`group` branch or the step itself): the value it ended with (no `output:`).
        if step.id is not None:
            frame.steps[step.id] = flow.value
        finished("ok")
        raise
    except Exception as exc:
        handlers = call.children("on_error")
        if not handlers:
            finished("failed", exc)
            if isinstance(exc, StepTimedOut) and exc.label == label:
                raise
            raise StepFailed(label, exc) from exc
        message = error_text(exc)
        call.progress(f"step failed, running 'on_error': {message}")
        try:
            value = await run_steps(handlers, {"error": message, "input": incoming}, frame)
        except Flow as flow:
            # `on_error` ended by `break`/`stop`: its value is the step's value, recorded first.
            if step.id is not None:
                frame.steps[step.id] = flow.value
            finished("ok")
            raise
        except Exception as inner:
            finished("failed", inner)
            raise StepFailed(label, inner) from inner
    if step.id is not None:
        frame.steps[step.id] = value
    finished("ok")
    return value


async def _attempts(call: StepCall, incoming: Any) -> Any:
    frame = call.frame
    retry = effective_retry(call.step, frame)
    timeout = effective_timeout(call.step, frame)
    attempts = retry.max_attempts if retry is not None else 1
    delay = float(retry.delay_seconds) if retry is not None else 0.0
    backoff = retry.backoff if retry is not None else 1.0
    for attempt in range(1, attempts + 1):
        this = StepCall(call.step, call.label, call.number, frame, attempt)
        deadline: asyncio.Timeout | None = None
        try:
            if timeout is None:
                return await _unit(this, incoming)
            deadline = asyncio.timeout(timeout)
            async with deadline:
                return await _unit(this, incoming)
        except TimeoutError as exc:
            error: Exception = exc
            if timeout is not None and deadline is not None and deadline.expired():
                error = StepTimedOut(call.label, timeout, attempt, attempts)
        except Flow:
            raise
        except Exception as exc:
            error = exc
        if attempt == attempts:
            raise error
        wait = min(delay, MAX_WAIT)
        frame.run.event(
            StepRetrying(
                call.label, attempt, attempts, error_text(error), wait, frame.prefix, frame.run.run_id
            )
        )
        await asyncio.sleep(wait)
        delay *= backoff
    raise AssertionError("unreachable")


async def _unit(call: StepCall, incoming: Any) -> Any:
    model = call.model
    frame = call.frame
    value = incoming if model.input is None else await jq_value(frame, model.input, incoming, "input")
    result = await _ACTIONS[call.step.kind](call, value)
    if model.output is not None:
        result = await jq_value(frame, model.output, result, "output")
    if call.step.kind == "stop":
        raise StopFlow(result, call.label, call.step)
    if call.step.kind == "break":
        raise BreakFlow(result, call.label, call.step)
    return result
