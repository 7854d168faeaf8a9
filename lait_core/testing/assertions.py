"""Evaluating a test's assertions against what a run left (docs/testing.md).

Each assertion gives ``None`` (it holds) or the message saying why not. In ``lait test`` they are
evaluated in order (they are cheap and local: no model is called, so ``llm_judge`` fails as not
supported); in ``lait eval`` (:func:`check_all_async`) they are evaluated independently, at most 4
at once, ``llm_judge`` through the judge the caller gives. Either way the report keeps their
original order.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lait_core.engine.models import Usage
from lait_core.testing.definition import (
    Assertion,
    Contains,
    Equals,
    Jq,
    LlmJudge,
    StepOutput,
    ToolCalled,
    UsageBounds,
)


@dataclass(slots=True)
class Outcome:
    """What one run left: its output text, its trace events, its usage and its step outputs."""

    text: str
    events: list[dict[str, Any]] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    steps: Mapping[str, Any] = field(default_factory=dict)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return json.dumps(text[:200] + ("..." if len(text) > 200 else ""), ensure_ascii=False)


def _as_json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _text_of(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _jq_truthy(expr: str, value: Any) -> tuple[bool, str | None]:
    from lait_core.jq import JqError, evaluate, is_truthy

    try:
        return is_truthy(evaluate(expr, value)), None
    except JqError as exc:
        return False, str(exc)


def check(assertion: Assertion, text: str, outcome: Outcome) -> str | None:
    """Why ``assertion`` fails on the output ``text`` (the trajectory is always the whole run)."""
    if isinstance(assertion, Equals):
        expected = _text_of(assertion.value)
        return None if text == expected else f"equals: expected {_short(expected)}, got {_short(text)}"
    if isinstance(assertion, Contains):
        return (
            None
            if assertion.value in text
            else f"contains: {_short(assertion.value)} not found in {_short(text)}"
        )
    if isinstance(assertion, Jq):
        ok, error = _jq_truthy(assertion.expr, _as_json(text))
        if error is not None:
            return f"jq: {assertion.expr}: {error}"
        return None if ok else f"jq: {assertion.expr} is not truthy on {_short(text)}"
    if isinstance(assertion, LlmJudge):
        return "llm_judge: not supported in lait test (use lait eval)"
    if isinstance(assertion, ToolCalled):
        return _tool_called(assertion, outcome.events)
    if isinstance(assertion, UsageBounds):
        return _usage(assertion, outcome)
    assert isinstance(assertion, StepOutput)
    if assertion.id not in outcome.steps:
        return f"step_output: no output of step '{assertion.id}'"
    step_text = _text_of(outcome.steps[assertion.id])
    for n, nested in enumerate(assertion.assert_, 1):
        problem = check(nested, step_text, outcome)
        if problem is not None:
            return f"step_output '{assertion.id}': assertion {n}: {problem}"
    return None


def _tool_called(assertion: ToolCalled, events: Sequence[Mapping[str, Any]]) -> str | None:
    calls = [
        e["attributes"]
        for e in events
        if e.get("operation") == "execute_tool" and e["attributes"].get("gen_ai.tool.name") == assertion.name
    ]
    count = len(calls)
    bound = f"at least {assertion.min}" if assertion.max is None else f"{assertion.min} to {assertion.max}"
    if count < assertion.min or (assertion.max is not None and count > assertion.max):
        return f"tool_called: '{assertion.name}' was called {count} time(s), expected {bound}"
    if assertion.args_jq is not None and count:
        for attributes in calls:
            ok, error = _jq_truthy(
                assertion.args_jq, _as_json(str(attributes.get("gen_ai.tool.arguments", "")))
            )
            if error is not None:
                return f"tool_called: args_jq {assertion.args_jq}: {error}"
            if ok:
                return None
        return f"tool_called: no call of '{assertion.name}' has arguments satisfying {assertion.args_jq}"
    return None


def _usage(assertion: UsageBounds, outcome: Outcome) -> str | None:
    usage = outcome.usage
    over = []
    for name, value, bound in (
        ("prompt tokens", usage.prompt_tokens, assertion.max_prompt_tokens),
        ("completion tokens", usage.completion_tokens, assertion.max_completion_tokens),
        ("total tokens", usage.total_tokens, assertion.max_total_tokens),
    ):
        if bound is not None and value > bound:
            over.append(f"{name} {value} > {bound}")
    costs = [e["attributes"]["lait.cost_usd"] for e in outcome.events if "lait.cost_usd" in e["attributes"]]
    if assertion.max_cost_usd is not None and costs:  # checked only when some model had pricing
        cost = sum(float(c) for c in costs)
        if cost > assertion.max_cost_usd:
            over.append(f"cost ${cost:.6f} > ${assertion.max_cost_usd}")
    return f"usage: {', '.join(over)}" if over else None


def check_all(assertions: Sequence[Assertion], outcome: Outcome) -> list[str]:
    """``assertion N: <message>`` for each failing assertion, in order (N counts from 1)."""
    out = []
    for n, assertion in enumerate(assertions, 1):
        problem = check(assertion, outcome.text, outcome)
        if problem is not None:
            out.append(f"assertion {n}: {problem}")
    return out


Judge = Callable[[LlmJudge, str], Awaitable["str | None"]]
"""Grades an output with a model: None (the score reached the threshold) or the failure message."""
ASSERTION_CONCURRENCY = 4


async def check_async(assertion: Assertion, text: str, outcome: Outcome, judge: Judge) -> str | None:
    """As :func:`check`, with ``llm_judge`` (also nested in ``step_output``) graded by ``judge``."""
    if isinstance(assertion, LlmJudge):
        return await judge(assertion, text)
    if isinstance(assertion, StepOutput) and assertion.id in outcome.steps:
        step_text = _text_of(outcome.steps[assertion.id])
        for n, nested in enumerate(assertion.assert_, 1):
            problem = await check_async(nested, step_text, outcome, judge)
            if problem is not None:
                return f"step_output '{assertion.id}': assertion {n}: {problem}"
        return None
    return check(assertion, text, outcome)


async def check_all_async(assertions: Sequence[Assertion], outcome: Outcome, judge: Judge) -> list[str]:
    """As :func:`check_all`, evaluated at most :data:`ASSERTION_CONCURRENCY` at once."""
    gate = asyncio.Semaphore(ASSERTION_CONCURRENCY)

    async def one(assertion: Assertion) -> str | None:
        async with gate:
            return await check_async(assertion, outcome.text, outcome, judge)

    problems = await asyncio.gather(*(one(a) for a in assertions))
    return [f"assertion {n}: {p}" for n, p in enumerate(problems, 1) if p is not None]
