"""Issue 19, "MCP faults as documented": a server's *bad reply* -- a result over 16 MiB, a result
whose ``content`` is not a list, a stream of stdout lines that are not JSON-RPC (not UTF-8, JSON
nested 200,000 deep) -- is an error result the model sees; the loop continues, the connection is
evicted (its process group killed) and the next call reconnects. The old client aborted the run
(oversized, malformed: with raw pydantic text) or ignored the lines and waited for the 300 s
timeout. A plain log line on stdout is still ignored. The server is tests/peers/mcp_raw_peer.py;
the limits are the defaults (300 s), so a call that waited for the timeout fails the test's own
30 s bound."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

import pytest

from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.mcp.limits import DEFAULT_LIMITS
from lait_core.engine.tools.base import ToolSet
from tests.mcp.conftest import REPO, Pools, group_alive
from tests.mcp.test_policy import loop, tool_messages
from tests.mcp.test_tools import call
from tests.peers.openai_server import ScriptedOpenAIServer, text, tool_calls
from tests.peers.openai_server import call as model_call

BOUND = 30.0

FAULTS = {
    "malformed": "the result does not match the MCP schema ('content': Input should be a valid list)",
    "utf8": "the server sent a line that is not JSON-RPC (byte 0xff at offset 0 is not UTF-8)",
    "deep": "the server sent a line that is not JSON-RPC (JSON nested too deeply)",
    "flood": "the server sent a message larger than 16 MiB",
}


def raw_peer(marker: Path) -> McpServerConfig:
    return McpServerConfig(
        command=sys.executable,
        args=["-m", "tests.peers.mcp_raw_peer", "--marker", str(marker)],
        cwd=str(REPO),
    )


@pytest.mark.parametrize("fault", list(FAULTS))
async def test_a_bad_reply_is_a_tool_error_and_evicts(pools: Pools, tmp_path: Path, fault: str) -> None:
    source = pools({"raw": raw_peer(tmp_path / "marker")}, limits=DEFAULT_LIMITS).source("raw")
    result = await asyncio.wait_for(call(source, fault, {"mib": 17} if fault == "flood" else None), BOUND)
    assert result.is_error
    assert result.text == (
        f"isError: true\n\nMCP server 'raw': calling tool '{fault}' failed: {FAULTS[fault]}; "
        "the connection was closed (the next call reconnects)"
    )
    assert group_alive(pools.pids[0]) == []  # evicted: the server's group is gone
    ok = await asyncio.wait_for(call(source, "ok"), BOUND)  # a plain log line before it is ignored
    assert (ok.is_error, ok.text) == (False, "ok")
    assert len(pools.pids) == 2


async def test_the_loop_continues_after_bad_replies(
    pools: Pools, llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    tools = await ToolSet.assemble(
        [pools({"raw": raw_peer(tmp_path / "marker")}, limits=DEFAULT_LIMITS).source("raw")]
    )
    llm_server.push(
        tool_calls(model_call("raw__malformed", {})),
        tool_calls(model_call("raw__utf8", {})),
        tool_calls(model_call("raw__ok", {})),
        text("recovered"),
    )
    assert await asyncio.wait_for(loop(llm_server, tools), BOUND) == "recovered"
    messages = tool_messages(llm_server)
    assert [m.split(" failed: ")[0] for m in messages[:2]] == [
        "isError: true\n\nMCP server 'raw': calling tool 'malformed'",
        "isError: true\n\nMCP server 'raw': calling tool 'utf8'",
    ]
    assert messages[2] == "ok"
    assert (tmp_path / "marker").read_text() == "call malformed\ncall utf8\ncall ok\n"


async def test_a_server_logging_to_stdout_gets_a_few_notes_and_a_count(pools: Pools, tmp_path: Path) -> None:
    """5,000 log lines on stdout: three notes naming lines, one saying more are ignored, and the
    count when the server stops -- not one stderr note per line."""
    import io

    notes = io.StringIO()
    pool = pools({"raw": raw_peer(tmp_path / "marker")}, limits=DEFAULT_LIMITS, stderr=notes)
    result = await asyncio.wait_for(call(pool.source("raw"), "chatty", {"lines": 5000}), BOUND)
    assert (result.is_error, result.text) == (False, "ok")
    await pool.aclose()
    lines = notes.getvalue().splitlines()
    assert len(lines) == 5, lines
    assert lines[0] == "mcp_servers.raw: ignored a stdout line that is not JSON-RPC: b'peer log 0'"
    assert "ignoring further stdout lines" in lines[3]
    assert lines[4] == "mcp_servers.raw: ignored 5000 stdout lines that are not JSON-RPC in all"
