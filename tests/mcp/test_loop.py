"""MCP results in the real tool loop (docs/workflows.md, docs/mcp.md) against the scripted LLM server: an
``isError`` result goes back to the model and the loop continues; a protocol error (a JSON-RPC
error answering ``tools/call``) aborts the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.engine.mcp.mcp_errors import McpError
from lait_core.engine.tools.base import ToolSet
from tests.mcp.conftest import Pools, peer
from tests.mcp.test_policy import loop, tool_messages
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls


async def test_is_error_goes_back_to_the_model(pools: Pools, llm_server: ScriptedOpenAIServer) -> None:
    tools = await ToolSet.assemble([pools({"peer": peer()}).source("peer")])
    llm_server.push(
        tool_calls(call("peer__fail", {"message": "no such city"})),
        tool_calls(call("peer__add", {"a": 2, "b": 2})),
        text("recovered"),
    )
    assert await loop(llm_server, tools) == "recovered"
    messages = [m["content"] for m in llm_server.bodies[1]["messages"] if m["role"] == "tool"]
    assert messages == ["isError: true\n\nError executing tool fail: no such city"]
    assert tool_messages(llm_server) == [messages[0], '4\n\nstructuredContent:\n{"result":4}']
    assert len(llm_server.bodies) == 3


async def test_protocol_error_aborts_the_loop(
    pools: Pools, llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    tools = await ToolSet.assemble([pools({"peer": peer("--marker", str(marker))}).source("peer")])
    llm_server.push(tool_calls(call("peer__protocol_error", {})), text("never asked"))
    with pytest.raises(
        McpError, match=r"MCP server 'peer': calling tool 'protocol_error' failed: the peer refuses this call"
    ):
        await loop(llm_server, tools)
    assert "call protocol_error" in marker.read_text()
    assert len(llm_server.bodies) == 1  # the model was not asked again
