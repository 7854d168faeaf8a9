"""End to end: a small multi-step workflow against the real small model (SmolLM2-135M-Instruct via
llama-cpp-python, see ``tests/llm/conftest.py``): a ``prompt`` step whose model calls a real shell
tool, a ``jq`` step over typed values, and a concurrent ``for_each`` of ``run`` steps.

The model's wording is not asserted. As in ``test_real_model.py``, the request after a tool round
goes without tools (:class:`AnswerAfterToolResult`, installed with the session's ``wrap_sender``):
with tools offered on every round this server never stops calling them.
"""

from __future__ import annotations

import asyncio
import sys
import textwrap
import time
from pathlib import Path

from lait_core.documents.document_models import Config
from lait_core.engine.llm.client import ChatClient, RetryPolicy
from lait_core.engine.run.interaction import (
    HeadlessInteraction,
    StepStarted,
    ToolCallFinished,
    ToolCallStarted,
)
from lait_core.engine.run.run_session import RunSession
from lait_core.engine.workflow import run_workflow
from tests.llm.conftest import add_result
from tests.llm.test_real_model import ADD, SYSTEM, TEST_BUDGET, AnswerAfterToolResult
from tests.peers.llm_server import LlamaServer

WORKFLOW = """
name: add-and-fan-out
input_schema: {type: object, required: [a, b]}
default:
  temperature: 0
  system: 'SYSTEM'
steps:
  - id: answer
    prompt: 'Use the add tool to add {{ input.a }} and {{ input.b }}.'
    tools: [add]
    max_tool_rounds: 4
  - id: numbers
    jq: '[$inputs | length, ($steps.answer | type), 10, 20]'
  - id: scaled
    input: '.[2:]'
    for_each: '.'
    max_concurrency: 2
    steps:
      - run: [PYTHON, -c, 'print(int(input()) * 3)']
        output: 'tonumber'
output: '{answer: $steps.answer, numbers: $steps.numbers, scaled: .}'
"""


async def test_workflow_with_a_tool_calling_prompt_step(real_llm: LlamaServer, tmp_path: Path) -> None:
    path = tmp_path / "workflow.yml"
    text = textwrap.dedent(WORKFLOW).replace("SYSTEM", SYSTEM).replace("PYTHON", sys.executable)
    path.write_text(text, encoding="utf-8")
    config = Config.model_validate(
        {
            "base_url": real_llm.url,
            "default": {"model": real_llm.model},
            "tools": {"add": ADD.model_dump(exclude_none=True)},
        }
    )
    interaction = HeadlessInteraction()
    started = time.monotonic()
    async with (
        ChatClient(timeout=TEST_BUDGET, retry=RetryPolicy(retries=0)) as client,
        RunSession.open(
            config, tmp_path, interaction, client=client, wrap_sender=AnswerAfterToolResult
        ) as session,
    ):
        async with asyncio.timeout(TEST_BUDGET * 2):
            result = await run_workflow(session, path, prompt='{"a": 2, "b": 3}')
    elapsed = time.monotonic() - started

    # The prompt step: the model called the real shell tool with schema-valid arguments, and the
    # tool's stdout went back; then it answered in text.
    calls = interaction.of_type(ToolCallStarted)
    finished = interaction.of_type(ToolCallFinished)
    assert [c.name for c in calls] == ["tool__add"]
    total = add_result(calls[0].arguments)  # schema-valid; the numbers are the model's
    assert [(f.name, f.result, f.is_error) for f in finished] == [("tool__add", total, False)]
    value = result.value
    assert isinstance(value["answer"], str) and value["answer"].strip()

    # The jq step saw typed values; the for_each kept item order.
    assert value["numbers"] == [0, "string", 10, 20]
    assert value["scaled"] == [30, 60]
    assert result.usage.prompt_tokens > 0 and result.usage.completion_tokens > 0

    labels = [e.label for e in interaction.of_type(StepStarted)]
    assert labels[:3] == ["answer", "numbers", "scaled"]
    assert sorted(labels[3:]) == ["step-4 (run)", "step-4 (run)"]
    assert elapsed < TEST_BUDGET * 2
