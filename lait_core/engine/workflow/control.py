"""The actions of the control step kinds: `group`, `switch`, `parallel`, `for_each`, `while`, `until`."""

from __future__ import annotations

from typing import Any

from lait_core.documents import document_models as m
from lait_core.engine.workflow.concurrency import run_all
from lait_core.engine.workflow.evaluate import jq_truthy, jq_value
from lait_core.engine.workflow.flow import BreakFlow
from lait_core.engine.workflow.step_runner import StepCall, action, run_steps
from lait_core.engine.workflow.workflow_errors import WorkflowError
from lait_core.syntax.template.values import a_type_name


@action("group")
async def group_step(call: StepCall, value: Any) -> Any:
    return await run_steps(call.children("group"), value, call.frame)


@action("switch")
async def switch_step(call: StepCall, value: Any) -> Any:
    model: m.SwitchStep = call.model
    for i, case in enumerate(model.switch):
        if await jq_truthy(call.frame, case.when, value, f"switch[{i}].when"):
            call.progress(f"case {i + 1} matched")
            return await run_steps(call.children(f"switch[{i}]"), value, call.frame)
    if model.else_ is None:
        raise WorkflowError("no case matched and no 'else' is defined")
    call.progress("no case matched, running 'else'")
    return await run_steps(call.children("else"), value, call.frame)


@action("parallel")
async def parallel_step(call: StepCall, value: Any) -> Any:
    model: m.ParallelStep = call.model
    names = list(model.parallel)

    def job(name: str) -> Any:
        frame = call.frame.branch(f"[{name}] ", call.frame.loop, for_each=False)
        return lambda: run_steps(call.children(f"parallel.{name}"), value, frame)

    results = await run_all([job(name) for name in names])
    return dict(zip(names, results, strict=True))


@action("for_each")
async def for_each_step(call: StepCall, value: Any) -> Any:
    model: m.ForEachStep = call.model
    items = await jq_value(call.frame, model.for_each, value, "for_each")
    if not isinstance(items, list):
        raise WorkflowError(f"'for_each' must produce a JSON array, got {a_type_name(items)}")
    body = call.children("steps")
    total = len(items)
    call.progress(f"iterating over {total} item(s)")
    if model.max_concurrency <= 1:
        results: list[Any] = []
        for index, item in enumerate(items):
            call.progress(f"item {index + 1}/{total}")
            frame = call.frame.with_loop({"index": index, "item": item})
            try:
                results.append(await run_steps(body, item, frame))
            except BreakFlow as stop:
                results.append(stop.value)
                break
        return results

    def job(index: int, item: Any) -> Any:
        frame = call.frame.branch(f"[item-{index + 1}] ", {"index": index, "item": item}, for_each=True)
        return lambda: run_steps(body, item, frame)

    return await run_all([job(i, item) for i, item in enumerate(items)], model.max_concurrency)


@action("while")
async def while_step(call: StepCall, value: Any) -> Any:
    model: m.WhileStep = call.model
    limit = model.max_iterations
    body = call.children("steps")
    index = 0
    while True:
        frame = call.frame.with_loop({"index": index})
        if not await jq_truthy(frame, model.while_, value, "while"):
            return value
        if index == limit:
            raise WorkflowError(f"reached max_iterations ({limit}) without satisfying 'while'")
        call.progress(f"iteration {index + 1}/{limit}")
        try:
            value = await run_steps(body, value, frame)
        except BreakFlow as stop:
            return stop.value
        index += 1


@action("until")
async def until_step(call: StepCall, value: Any) -> Any:
    model: m.UntilStep = call.model
    limit = model.max_iterations
    body = call.children("steps")
    for index in range(limit):
        frame = call.frame.with_loop({"index": index})
        call.progress(f"iteration {index + 1}/{limit}")
        try:
            value = await run_steps(body, value, frame)
        except BreakFlow as stop:
            return stop.value
        if await jq_truthy(frame, model.until, value, "until"):
            return value
    raise WorkflowError(f"reached max_iterations ({limit}) without satisfying 'until'")
