"""Running an eval file against the live model (docs/testing.md).

Every (case x repeat) run is flattened and at most :data:`CONCURRENCY` run at once. Each run has
its own run context -- its own records (a trace, no cache, no history) and so its own usage and
trace -- while the runs share the services: one HTTP client, one set of MCP servers and the parsed
agents and skills. A run error (a load or model failure) becomes that run's single failure entry.

The target is a workflow (the case's ``input`` is its PROMPT, as ``lait run`` takes it) or one
model call: ``prompt`` rendered with ``{{ input }}`` (the input parsed as JSON when it is JSON),
sent with no system prompt and no tools. The cache is off on purpose: a repeated case must ask the
model again, or ``--repeat`` would measure the cache.

``llm_judge`` asks a model for ``{score, reasoning}`` with Structured Outputs (strict, schema name
``llm_judge_score``); the score is read on a 0-1 scale and passes at ``score >= threshold``. Its
model is the assertion's ``model``, else the target's ``model``, else ``default.model``. Its call
is part of the run (trace label ``llm_judge``).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.documents.document_models import Config, LlmKeys
from lait_core.testing.assertions import Outcome, check_all
from lait_core.testing.definition import EvalDefinition, LlmJudge
from lait_core.testing.suite_runner import StepOutputs, error_text, input_texts

if TYPE_CHECKING:
    from lait_core.engine.run.interaction import Interaction
    from lait_core.engine.run.run_session import RunSession

CONCURRENCY = 8
JUDGE_SCHEMA_NAME = "llm_judge_score"
JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"score": {"type": "number"}, "reasoning": {"type": "string"}},
    "required": ["score", "reasoning"],
    "additionalProperties": False,
}
JUDGE_PROMPT = """\
Grade the output of an AI system against the criteria below.

Criteria:
{criteria}

Input given to the system:
{input}

Output of the system:
{output}

Answer with a score between 0.0 (the output does not meet the criteria at all) and 1.0 (it \
meets them fully) and a short reasoning."""


@dataclass(slots=True)
class RunResult:
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return not self.failures

    def as_json(self) -> dict[str, Any]:
        return {"passed": self.passed, "failures": self.failures}


@dataclass(slots=True)
class CaseResult:
    case: int
    """1-based, as the report numbers cases."""
    input: str
    runs: list[RunResult]

    @property
    def passed(self) -> int:
        return sum(r.passed for r in self.runs)

    @property
    def total(self) -> int:
        return len(self.runs)

    @property
    def success_rate(self) -> float:
        return self.passed / self.total if self.total else 0.0

    @property
    def seconds(self) -> float:
        return sum(r.seconds for r in self.runs)

    @property
    def fully_passed(self) -> bool:
        return self.passed == self.total

    def as_json(self) -> dict[str, Any]:
        return {
            "case": self.case,
            "input": self.input,
            "passed": self.passed,
            "total": self.total,
            "success_rate": self.success_rate,
            "runs": [r.as_json() for r in self.runs],
        }


RunDone = Callable[[CaseResult, int], None]
"""Progress: called after each run with its case and how many of the case's runs are done."""


def _bare(settings: Any) -> Any:
    """One call, nothing offered: no tools, MCP servers, skills or subagents."""
    return dataclasses.replace(settings, mcp=(), tools=(), skills=(), subagents=())


def _parse_input(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


class EvalRunner:
    """Runs one eval definition; ``base`` is the eval file's folder."""

    def __init__(
        self,
        definition: EvalDefinition,
        base: Path,
        config: Config,
        config_dir: Path,
        *,
        approve_tools: bool = False,
        on_run_done: RunDone | None = None,
        interaction: Interaction | None = None,
        on_spawn: Callable[[int], None] | None = None,
    ) -> None:
        """``interaction`` (default: headless) gets the runs' events and approvals (the language
        server's editor interaction); ``on_spawn`` is told every child's pid."""
        self.definition = definition
        self.base = base
        self.config = config
        self.config_dir = config_dir
        self.approve_tools = approve_tools
        self.on_run_done = on_run_done
        self.interaction = interaction
        self.on_spawn = on_spawn

    async def run(self, repeat: int) -> list[CaseResult]:
        from lait_core.engine.run.interaction import HeadlessInteraction
        from lait_core.engine.run.run_session import RunSession

        repeat = max(1, repeat)
        cases = [
            CaseResult(n, case.input, [RunResult() for _ in range(repeat)])
            for n, case in enumerate(self.definition.cases, 1)
        ]
        done = [0] * len(cases)
        gate = asyncio.Semaphore(CONCURRENCY)
        interaction = self.interaction or HeadlessInteraction(
            "allow" if self.approve_tools else "error", record=False
        )
        async with RunSession.open(
            self.config,
            self.config_dir,
            interaction,
            approve_tools=self.approve_tools,
            on_spawn=self.on_spawn,
        ) as services:

            async def one(index: int, k: int) -> None:
                async with gate:
                    started = time.monotonic()
                    cases[index].runs[k] = await self._run_case(services, index)
                    cases[index].runs[k].seconds = time.monotonic() - started
                done[index] += 1
                if self.on_run_done is not None:
                    self.on_run_done(cases[index], done[index])

            await asyncio.gather(*(one(i, k) for i in range(len(cases)) for k in range(repeat)))
        return cases

    async def _run_case(self, services: RunSession, index: int) -> RunResult:
        from lait_core.engine.records.sender import RunRecords
        from lait_core.engine.records.trace_events import TraceRecorder
        from lait_core.engine.run.run_session import RunSession

        case = self.definition.cases[index]
        records = RunRecords(trace=TraceRecorder())
        result = RunResult()
        try:
            async with RunSession.open(
                self.config,
                self.config_dir,
                services.interaction,
                approve_tools=self.approve_tools,
                client=services.client,
                mcp=services.mcp,
                cache=services.cache,
                records=records,
                on_spawn=self.on_spawn,
            ) as session:
                outcome = await self._run_target(session, case.input)
                outcome.events = records.trace.events if records.trace is not None else []

                async def judge(assertion: LlmJudge, output: str) -> str | None:
                    return await self._judge(session, assertion, case.input, output)

                result.failures.extend(
                    await check_all(case.assert_, outcome, judge=judge, on_spawn=self.on_spawn)
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # a run error is this run's single failure (docs/testing.md)
            result.failures[:] = [error_text(exc)]
        return result

    async def _run_target(self, session: RunSession, text: str) -> Outcome:
        target = self.definition.target
        if target.workflow is not None:
            from lait_core.engine.records.checkpoint import Checkpoint, CheckpointStore
            from lait_core.engine.workflow import run_workflow

            outputs = StepOutputs(CheckpointStore(self.base), Checkpoint("eval", "", None, {}, [], []))
            ran = await run_workflow(
                session,
                Path(os.path.normpath(self.base / target.workflow)),
                prompt=text,
                inputs=input_texts(target.inputs),
                checkpointer=outputs,
            )
            return Outcome(ran.text, usage=ran.usage, steps=outputs.state.steps_outputs)
        from lait_core.engine.llm.conversation import converse
        from lait_core.engine.llm.llm_settings import resolve_llm_settings
        from lait_core.engine.records.labels import labelled
        from lait_core.syntax.template import render

        assert target.model is not None and target.prompt is not None
        label = f"eval target '{target.model}'"
        settings = _bare(resolve_llm_settings(label, [LlmKeys(model=target.model)], self.config))
        user = render(target.prompt, {"input": _parse_input(text)})
        with labelled(label):
            reply = await converse(session, settings, system=None, user=user)
        return Outcome(reply.text, usage=reply.usage)

    async def _judge(self, session: RunSession, assertion: LlmJudge, given: str, output: str) -> str | None:
        from lait_core.engine.llm.conversation import converse
        from lait_core.engine.llm.llm_settings import resolve_llm_settings
        from lait_core.engine.records.labels import labelled

        name = assertion.model or self.definition.target.model
        try:
            settings = _bare(
                resolve_llm_settings(
                    "llm_judge",
                    [LlmKeys(model=name)],
                    self.config,
                    note="set 'model' on the llm_judge assertion or default.model in lait.config.yml",
                )
            )
            prompt = JUDGE_PROMPT.format(criteria=assertion.criteria, input=given, output=output)
            with labelled("llm_judge"):
                reply = await converse(
                    session,
                    settings,
                    system=None,
                    user=prompt,
                    output_schema=JUDGE_SCHEMA,
                    schema_name=JUDGE_SCHEMA_NAME,
                )
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            return f"llm_judge: {error_text(exc)}"
        score = reply.value["score"]
        if score >= assertion.threshold:
            return None
        reasoning = str(reply.value["reasoning"]).strip()
        reasoning = reasoning if len(reasoning) <= 200 else reasoning[:200] + "..."
        return f"llm_judge: score {score} is below the threshold {assertion.threshold}: {reasoning}"


def text_report(cases: list[CaseResult]) -> str:
    lines = []
    for c in cases:
        verdict = "PASS" if c.fully_passed else "FAIL"
        lines.append(f"case {c.case}: {c.passed}/{c.total} ({c.success_rate * 100:.0f}%) {verdict}")
        for k, run in enumerate(c.runs, 1):
            for failure in run.failures:
                first, *rest = failure.splitlines() or [""]
                lines.append(f"  run {k}: {first}")
                lines.extend("    " + line for line in rest)
    fully = sum(c.fully_passed for c in cases)
    lines.append(f"{fully} of {len(cases)} case(s) fully passed")
    return "\n".join(lines) + "\n"
