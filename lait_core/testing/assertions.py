"""Evaluating a test's assertions against what a run left (docs/testing.md).

Each assertion gives ``None`` (it holds) or the message saying why not. In ``lait test`` they are
evaluated in order (no model is called, so ``llm_judge`` fails as not supported); in ``lait eval``
they are evaluated independently, at most 4 at once, ``llm_judge`` through the judge the caller
gives. Either way the report keeps their original order. jq assertions run in the killable jq
worker of ``lait run``, with a time and a memory limit (:class:`AssertionJq`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from lait_core.engine.llm.chat_types import Usage
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


ASSERTION_JQ_SECONDS = 10.0
"""How long one jq assertion (``jq:``, ``args_jq:``) may evaluate before it fails."""
ASSERTION_JQ_MEMORY = 2 << 30
"""Bytes of address space the jq worker of assertions may use (beyond it the evaluation fails)."""


class AssertionJq:
    """jq for assertions: the same killable worker processes as ``lait run``
    (:class:`~lait_core.engine.workflow.jq_eval.JqEvaluator`), each evaluation bounded to
    :data:`ASSERTION_JQ_SECONDS` and the worker to :data:`ASSERTION_JQ_MEMORY`. An expression that
    never ends or grows without bound fails its assertion; Ctrl-C and SIGTERM stop it at once."""

    def __init__(
        self,
        *,
        on_spawn: Callable[[int], None] | None = None,
        seconds: float = ASSERTION_JQ_SECONDS,
        memory: int = ASSERTION_JQ_MEMORY,
    ) -> None:
        from lait_core.engine.workflow.jq_eval import JqEvaluator

        self.seconds = seconds
        self._evaluator = JqEvaluator(on_spawn=on_spawn, memory_limit=memory)

    async def truthy(self, expr: str, value: Any) -> tuple[bool, str | None]:
        from lait_core.syntax.jq import JqError, is_truthy

        try:
            result = await asyncio.wait_for(self._evaluator.evaluate(expr, value), self.seconds)
        except TimeoutError:
            return False, f"gave up after {self.seconds:g} s (an assertion's jq must finish in time)"
        except JqError as exc:
            return False, str(exc)
        return is_truthy(result), None

    async def aclose(self) -> None:
        await self._evaluator.aclose()


async def check(
    assertion: Assertion, text: str, outcome: Outcome, jq: AssertionJq, judge: Judge | None = None
) -> str | None:
    """Why ``assertion`` fails on the output ``text`` (the trajectory is always the whole run);
    ``llm_judge`` is graded by ``judge`` (None: not supported, as in ``lait test``)."""
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
        ok, error = await jq.truthy(assertion.expr, _as_json(text))
        if error is not None:
            return f"jq: {assertion.expr}: {error}"
        return None if ok else f"jq: {assertion.expr} is not truthy on {_short(text)}"
    if isinstance(assertion, LlmJudge):
        if judge is None:
            return "llm_judge: not supported in lait test (use lait eval)"
        return await judge(assertion, text)
    if isinstance(assertion, ToolCalled):
        return await _tool_called(assertion, outcome.events, jq)
    if isinstance(assertion, UsageBounds):
        return _usage(assertion, outcome)
    assert isinstance(assertion, StepOutput)
    if assertion.id not in outcome.steps:
        return f"step_output: no output of step '{assertion.id}'"
    step_text = _text_of(outcome.steps[assertion.id])
    for n, nested in enumerate(assertion.assert_, 1):
        problem = await check(nested, step_text, outcome, jq, judge)
        if problem is not None:
            return f"step_output '{assertion.id}': assertion {n}: {problem}"
    return None


async def _tool_called(
    assertion: ToolCalled, events: Sequence[Mapping[str, Any]], jq: AssertionJq
) -> str | None:
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
            ok, error = await jq.truthy(
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


Judge = Callable[[LlmJudge, str], Awaitable["str | None"]]
"""Grades an output with a model: None (the score reached the threshold) or the failure message."""
ASSERTION_CONCURRENCY = 4


async def check_all(
    assertions: Sequence[Assertion],
    outcome: Outcome,
    *,
    judge: Judge | None = None,
    on_spawn: Callable[[int], None] | None = None,
) -> list[str]:
    """``assertion N: <message>`` for each failing assertion, in the original order (N counts
    from 1). Without a judge (``lait test``) they are evaluated in order; with one (``lait eval``)
    at most :data:`ASSERTION_CONCURRENCY` at once. Their jq runs in killable workers, closed
    (and reaped) before this returns."""
    jq = AssertionJq(on_spawn=on_spawn)
    try:
        if judge is None:
            problems = [await check(a, outcome.text, outcome, jq) for a in assertions]
        else:
            gate = asyncio.Semaphore(ASSERTION_CONCURRENCY)

            async def one(assertion: Assertion) -> str | None:
                async with gate:
                    return await check(assertion, outcome.text, outcome, jq, judge)

            problems = list(await asyncio.gather(*(one(a) for a in assertions)))
    finally:
        await jq.aclose()
    return [f"assertion {n}: {p}" for n, p in enumerate(problems, 1) if p is not None]
