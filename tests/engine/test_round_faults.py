"""Issue 19, "no hang, no orphan": a bad call beside a shell tool whose ``sh -c`` leaves a background
child holding the pipes (``timeout: 2``). The calls of one round are independent: the bad call's
error surfaces only after the other call's process group is killed and reaped, the timeout always
applies, and no process of the round survives. A NUL byte in an argument is a tool error the model
sees. Each scenario runs 20 times, concurrently (the old code hung or orphaned in about half of the
tries)."""

from __future__ import annotations

import asyncio
import os
import uuid
from typing import Any

import pytest

from lait_core.engine.llm.chat_types import ToolArgumentsError, user_message
from lait_core.engine.llm.client import ChatClient
from lait_core.engine.processes.spawn import live_groups
from lait_core.engine.run.interaction import HeadlessInteraction
from lait_core.engine.run.tool_loop import LoopResult, run_tool_loop
from lait_core.engine.tools import ToolSet
from tests.engine.conftest import caller_for, shell_source
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.processes import running_with_marker

REPEAT = 20
FORKING = {"command": ["sh", "-c", "sleep 30 & echo started"], "timeout": 2}
ECHO = {"command": ["echo", "{{ input.a }}"]}
HANG_LIMIT = 30.0
"""Far above the 2 s timeout: only a hang gets near it."""


async def one_round(
    client: ChatClient, calls: tuple[dict[str, Any], ...]
) -> tuple[LoopResult | BaseException, str]:
    """Run the round with its own scripted server and marker; the outcome and the marker."""
    marker = uuid.uuid4().hex
    with ScriptedOpenAIServer() as server:
        server.push(tool_calls(*calls), text("done"))
        source = shell_source(
            {"bg": FORKING, "echo": ECHO}, environ={**os.environ, "LAIT_TEST_MARKER": marker}
        )
        tools = await ToolSet.assemble([source])
        interaction = HeadlessInteraction()
        try:
            loop = run_tool_loop(
                caller_for(server, client, interaction), [user_message("go")], tools, interaction
            )
            return await asyncio.wait_for(loop, HANG_LIMIT), marker
        except Exception as exc:
            return exc, marker


async def twenty_rounds(client: ChatClient, make: Any) -> list[tuple[LoopResult | BaseException, str]]:
    outcomes = await asyncio.gather(*(one_round(client, make(i)) for i in range(REPEAT)))
    for _, marker in outcomes:
        assert running_with_marker(marker) == []
    assert live_groups() == frozenset()
    return outcomes


def pair(bad: dict[str, Any], i: int) -> tuple[dict[str, Any], ...]:
    """The bad call first in even tries, second in odd ones."""
    fork = call("tool__bg", {}, id="bg")
    return (bad, fork) if i % 2 == 0 else (fork, bad)


@pytest.fixture
async def client() -> Any:
    async with ChatClient(timeout=HANG_LIMIT) as c:
        yield c


async def test_invalid_json_beside_a_forking_tool(client: ChatClient) -> None:
    outcomes = await twenty_rounds(client, lambda i: pair(call("tool__echo", "{bad json", id="bad"), i))
    for outcome, _ in outcomes:
        # raised only after the forking call's group was killed and reaped (checked above)
        assert isinstance(outcome, ToolArgumentsError), repr(outcome)
        assert "not valid JSON" in str(outcome)


async def test_raw_nul_in_the_arguments_is_invalid_json(client: ChatClient) -> None:
    outcomes = await twenty_rounds(client, lambda i: pair(call("tool__echo", '{"a": "x\0y"}', id="bad"), i))
    for outcome, _ in outcomes:
        assert isinstance(outcome, ToolArgumentsError), repr(outcome)


async def test_nul_byte_in_an_argument_is_a_tool_error(client: ChatClient) -> None:
    outcomes = await twenty_rounds(
        client, lambda i: pair(call("tool__echo", '{"a": "x\\u0000y"}', id="nul"), i)
    )
    for outcome, _ in outcomes:
        assert isinstance(outcome, LoopResult), repr(outcome)
        assert outcome.response.content == "done"
        by_id = {m["tool_call_id"]: m["content"] for m in outcome.messages if m["role"] == "tool"}
        assert by_id["nul"] == (
            "tool command failed: argument 1 of 'echo' contains a NUL byte, which no program argument can hold"
        )
        # the timeout applied although the background child kept the pipes open
        assert by_id["bg"].startswith("tool command failed: command timed out after 2s")
