"""RunSession: one HTTP client and one MCP pool per run, closed on exit and on cancellation; the
sender wraps ModelCaller (with the session's interaction and key resolver)."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from lait_core.engine.llm.chat_types import ChatRequest, ChatResponse, DeltaSink, user_message
from lait_core.engine.llm.client import ModelCaller
from lait_core.engine.llm.model_resolution import resolve_model
from lait_core.engine.run.interaction import HeadlessInteraction
from lait_core.engine.run.run_session import RunSession
from lait_core.engine.run.tool_loop import Sender
from tests.engine.agent_support import make_config
from tests.peers.openai_server import ScriptedOpenAIServer, text


async def test_open_owns_and_closes_the_client(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    config = make_config(llm_server, tmp_path)
    llm_server.push(text("pong"))
    async with RunSession.open(config, tmp_path, HeadlessInteraction()) as session:
        sender = session.sender(resolve_model("m", config))
        assert isinstance(sender, ModelCaller)
        response = await sender.complete(ChatRequest([user_message("ping")]))
        http = session.client._http(llm_server.url)  # the client the request went through
        assert list(session.client._clients.values()) == [http]
        assert session._mcp is None  # nothing MCP was created for a run that uses no MCP server
    assert response.content == "pong"
    assert http.is_closed


async def test_closed_on_cancellation(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    config = make_config(llm_server, tmp_path)
    llm_server.push(text("late", delay=5))
    opened: list[RunSession] = []

    async def run() -> None:
        async with RunSession.open(config, tmp_path, HeadlessInteraction()) as session:
            opened.append(session)
            await session.sender(resolve_model("m", config)).complete(ChatRequest([user_message("x")]))

    task = asyncio.create_task(run())
    while not llm_server.requests:
        await asyncio.sleep(0.01)
    http = opened[0].client._http(llm_server.url)
    assert list(opened[0].client._clients.values()) == [http]
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert http.is_closed


async def test_wrap_sender_and_resolve_path(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    config = make_config(llm_server, tmp_path)
    seen: list[ChatRequest] = []

    class Tracing:
        def __init__(self, inner: ModelCaller) -> None:
            self.inner = inner

        async def complete(self, request: ChatRequest) -> ChatResponse:
            seen.append(request)
            return await self.inner.complete(request)

        async def stream(self, request: ChatRequest, on_delta: DeltaSink | None = None) -> ChatResponse:
            return await self.inner.stream(request, on_delta)

    llm_server.push(text("ok"))
    async with RunSession.open(config, tmp_path, HeadlessInteraction(), wrap_sender=Tracing) as session:
        sender: Sender = session.sender(resolve_model("m", config))
        await sender.complete(ChatRequest([user_message("x")]))
        assert session.resolve_path("a/b.md") == tmp_path / "a/b.md"
        assert session.resolve_path("/abs.md") == Path("/abs.md")
    assert len(seen) == 1


async def test_mcp_servers_closed_on_cancellation(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    """A run cancelled while an MCP tool call hangs leaves no server process behind."""
    import sys

    from lait_core.engine.llm.conversation import converse
    from lait_core.engine.llm.llm_settings import resolve_llm_settings
    from tests.engine.conftest import pid_alive
    from tests.peers.openai_server import call, tool_calls

    repo = Path(__file__).resolve().parents[2]
    config = make_config(
        llm_server,
        tmp_path,
        mcp_servers={
            "peer": {"command": sys.executable, "args": ["-m", "tests.peers.mcp_peer"], "cwd": str(repo)}
        },
        default={"model": "m", "mcp": ["peer"]},
    )
    llm_server.push(tool_calls(call("peer__hang", {}, id="c1")))
    spawned: list[int] = []
    interaction = HeadlessInteraction()

    async def run() -> None:
        async with RunSession.open(config, tmp_path, interaction, on_spawn=spawned.append) as session:
            await converse(session, resolve_llm_settings("chat", [], config), system=None, user="hang")

    from lait_core.engine.run.interaction import ToolCallStarted

    task = asyncio.create_task(run())
    for _ in range(500):
        if interaction.of_type(ToolCallStarted):
            break
        await asyncio.sleep(0.02)
    assert spawned and interaction.of_type(ToolCallStarted)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert not any(pid_alive(pid) for pid in spawned)
