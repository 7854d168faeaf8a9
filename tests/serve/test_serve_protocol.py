"""`lait serve --mcp` on the wire, driven by the SDK's own client where lait's client would never
misbehave: forged, tampered and replayed `requestState`s, a client without elicitation, progress
and log messages, `logging/setLevel`."""

from __future__ import annotations

import json
from typing import Any

import mcp_types as types
import pytest
from mcp.client import Client
from mcp.shared.exceptions import MCPError

from tests.serve.conftest import HttpServer


async def _accept_yes(context: Any, params: Any) -> types.ElicitResult:
    return types.ElicitResult(action="accept", content={"answer": "yes"})


async def test_request_state_is_sealed_and_single_use(http_server: HttpServer) -> None:
    async with Client(http_server.url, elicitation_callback=_accept_yes) as client:
        assert client.protocol_version == "2026-07-28"
        session = client.session
        first = await session.call_tool("workflow__ship", {"input": "a"}, allow_input_required=True)
        assert isinstance(first, types.InputRequiredResult)
        ((key, request),) = first.input_requests.items()
        assert isinstance(request, types.ElicitRequest)
        assert request.params.message == "Ship a?"
        state = first.request_state
        assert state is not None
        answer = {key: types.ElicitResult(action="accept", content={"answer": "no"})}

        # a forged state (one character of the signature changed) is a clear protocol error
        forged = state[:-2] + ("A" if state[-2] != "A" else "B") + state[-1]
        with pytest.raises(MCPError, match="integrity check"):
            await session.call_tool(
                "workflow__ship",
                {"input": "a"},
                allow_input_required=True,
                input_responses=answer,
                request_state=forged,
            )
        # so is one made up from scratch
        with pytest.raises(MCPError, match="not one this server issued"):
            await session.call_tool(
                "workflow__ship",
                {"input": "a"},
                allow_input_required=True,
                input_responses=answer,
                request_state="x.y",
            )
        # the genuine state resumes the run (still waiting after the rejected attempts)
        done = await session.call_tool(
            "workflow__ship",
            {"input": "a"},
            allow_input_required=True,
            input_responses=answer,
            request_state=state,
        )
        assert isinstance(done, types.CallToolResult)
        assert json.loads(done.content[0].text) == {"answer": "no", "prompt": "no"}  # type: ignore[union-attr]
        # ... once: replaying it is stale
        with pytest.raises(MCPError, match="finished, was cancelled or expired"):
            await session.call_tool(
                "workflow__ship",
                {"input": "a"},
                allow_input_required=True,
                input_responses=answer,
                request_state=state,
            )
        # the high-level loop answers through the callback
        auto = await client.call_tool("workflow__ship", {"input": "b"})
        assert json.loads(auto.content[0].text) == {"answer": "yes", "prompt": "yes"}  # type: ignore[union-attr]


@pytest.mark.parametrize("mode", ["auto", "legacy"])
async def test_client_without_elicitation_gets_the_reference_behaviour(
    http_server: HttpServer, mode: str
) -> None:
    async with Client(http_server.url, mode=mode) as client:  # type: ignore[arg-type]
        names = sorted(t.name for t in (await client.list_tools()).tools)
        assert names == ["workflow__echo", "workflow__fails", "workflow__slow", "workflow__typed"]
        with pytest.raises(MCPError, match="Unknown tool: workflow__ship"):
            await client.call_tool("workflow__ship", {"input": "x"})
        with pytest.raises(MCPError, match="Unknown tool: nope"):
            await client.call_tool("nope", {})
    assert "workflow 'ship' has an 'ask:' step; it is offered only to clients that support elicitation" in (
        http_server.stderr
    )


@pytest.mark.filterwarnings("ignore::mcp.shared.exceptions.MCPDeprecationWarning")
async def test_progress_and_logs_and_set_level(http_server: HttpServer) -> None:
    logs: list[types.LoggingMessageNotificationParams] = []
    progress: list[tuple[float, str | None]] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params)

    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        progress.append((value, message))

    async with Client(http_server.url, mode="legacy", logging_callback=on_log) as client:
        result = await client.call_tool(
            "workflow__typed", {"inputs": {"count": 1}}, progress_callback=on_progress
        )
        assert not result.is_error
        assert [m for _, m in progress] == ["[1] step-1 (jq)", "[1] step-1 (jq) (ok)"]
        assert [v for v, _ in progress] == [1, 2]
        assert [(entry.level, entry.data) for entry in logs] == [
            ("info", "[1] step-1 (jq)"),
            ("info", "[1] step-1 (jq) (ok)"),
        ]
        await client.session.set_logging_level("warning")
        logs.clear()
        await client.call_tool("workflow__typed", {"inputs": {"count": 1}})
        assert logs == []
