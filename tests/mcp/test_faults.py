"""Limits and faults (docs/mcp.md, docs/workflows.md): hangs, crashes, floods, pagination limits,
redirects, cancellation, eviction and reconnect, the tool-list cache. After each test the
``pools`` fixture asserts that no process of any spawned server group is still running."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest

from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.mcp.limits import McpLimits
from lait_core.engine.mcp.mcp_errors import McpError
from tests.mcp.conftest import HttpPeer, Pools, group_alive, peer
from tests.mcp.test_tools import call

SHORT = McpLimits(handshake_timeout=20, timeout=1.5)


async def test_hang_times_out_evicts_and_reconnects(pools: Pools, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    pool = pools({"peer": peer("--legacy", "--marker", str(marker))}, limits=SHORT)
    source = pool.source("peer")
    with pytest.raises(McpError, match=r"MCP server 'peer': calling tool 'hang' failed: .*timed out"):
        await call(source, "hang")
    assert group_alive(pools.pids[0]) == []
    assert (await call(source, "add", {"a": 1, "b": 1})).text.startswith("2")
    assert len(pools.pids) == 2
    # the cached tool list survived the failed call: the second connection called without listing
    assert marker.read_text() == "list None\ncall hang\ncall add 1 1\n"


async def test_crash_mid_call_is_a_hard_error_naming_the_exit(pools: Pools) -> None:
    source = pools({"peer": peer()}).source("peer")
    with pytest.raises(
        McpError, match=r"calling tool 'crash' failed: the server process exited \(exit status: 3\)"
    ):
        await call(source, "crash")
    assert (await call(source, "echo", {"text": "back"})).text.startswith("back")


async def test_stdio_frame_over_16_mib(pools: Pools) -> None:
    """A bad reply: an error result the model sees, and the connection is evicted."""
    source = pools({"peer": peer()}).source("peer")
    result = await call(source, "flood", {"mib": 20})
    assert result.is_error and "the server sent a message larger than 16 MiB" in result.text
    assert group_alive(pools.pids[0]) == []


async def test_http_flood_hang_and_reconnect(pools: Pools, http_peer: HttpPeer) -> None:
    pool = pools(
        {"web": McpServerConfig(url=http_peer.url)},
        limits=McpLimits(handshake_timeout=20, timeout=1.5, frame_bytes=1024 * 1024),
    )
    source = pool.source("web")
    flood = await call(source, "flood", {"mib": 2})  # a bad reply: an error result, not an abort
    assert flood.is_error and "calling tool 'flood' failed: the response body" in flood.text, flood.text
    assert "is larger than 1 MiB; the connection was closed" in flood.text, flood.text
    with pytest.raises(McpError, match=r"calling tool 'hang' failed: .*timed out"):
        await call(source, "hang")
    assert (await call(source, "echo", {"text": "still here"})).text.startswith("still here")


class _Redirect(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.send_response(307)
        self.send_header("Location", "http://127.0.0.1:1/elsewhere")
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_GET = do_POST

    def log_message(self, *args: Any) -> None:
        pass


async def test_http_redirect_is_refused(pools: Pools) -> None:
    server = HTTPServer(("127.0.0.1", 0), _Redirect)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/mcp"
        pool = pools({"r": McpServerConfig(url=url)}, limits=McpLimits(handshake_timeout=20, timeout=3))
        with pytest.raises(McpError, match=r"MCP server 'r': could not connect: .*redirect"):
            await pool.source("r").list_tools()
    finally:
        server.shutdown()
        server.server_close()


async def test_cancellation_mid_call_kills_the_server(pools: Pools) -> None:
    pool = pools({"peer": peer()})
    source = pool.source("peer")
    task = asyncio.create_task(call(source, "hang"))
    await asyncio.sleep(0.3)
    while not pools.pids:
        await asyncio.sleep(0.05)
    await asyncio.sleep(0.5)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert group_alive(pools.pids[0]) == []


async def test_3000_tools_over_pages(pools: Pools) -> None:
    source = pools({"many": peer("--many", "3000")}).source("many")
    tools = await source.list_tools()
    numbered = [t.name for t in tools if t.name[0] == "t" and t.name[1:].isdigit()]
    assert numbered == [f"t{i}" for i in range(3000)]
    assert tools[0].qualified_name == "many__add" and tools[-1].qualified_name == "many__t2999"


@pytest.mark.parametrize(
    ("args", "limits", "message"),
    [
        (
            ["--page-size", "1500"],
            McpLimits(handshake_timeout=20, timeout=5),
            "15\\d\\d tools in one page \\(at most 1024\\)",
        ),
        ([], McpLimits(handshake_timeout=20, timeout=5, pages=2), "more than 2 pages"),
        ([], McpLimits(handshake_timeout=20, timeout=5, total_tools=2000), "more than 2000 tools"),
        (["--repeat-cursor"], McpLimits(handshake_timeout=20, timeout=5), "repeated the cursor"),
        ([], McpLimits(handshake_timeout=20, timeout=5, metadata_bytes=4096), "larger than 4096 bytes"),
    ],
)
async def test_listing_limits(pools: Pools, args: list[str], limits: McpLimits, message: str) -> None:
    source = pools({"many": peer("--many", "3000", *args)}, limits=limits).source("many")
    with pytest.raises(McpError, match=f"MCP server 'many': .*{message}"):
        await source.list_tools()
    assert group_alive(pools.pids[0]) == []  # a failed listing evicts the connection


@pytest.mark.parametrize(
    ("args", "lists"),
    [
        (["--legacy"], 1),  # no hints: kept for the pool's lifetime
        ([], 2),  # MCPServer's default ttlMs 0: not cached
        (["--ttl-ms", "60000", "--scope", "public"], 1),
    ],
)
async def test_tool_list_cache_hints(pools: Pools, tmp_path: Path, args: list[str], lists: int) -> None:
    marker = tmp_path / "marker"
    source = pools({"peer": peer("--marker", str(marker), *args)}).source("peer")
    await source.list_tools()
    await source.list_tools()
    assert marker.read_text().count("list None") == lists


async def test_private_listing_is_dropped_with_its_connection(pools: Pools, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    pool = pools({"peer": peer("--marker", str(marker), "--ttl-ms", "60000")})
    source = pool.source("peer")
    await source.list_tools()
    await source.list_tools()
    assert marker.read_text().count("list None") == 1
    with pytest.raises(McpError):
        await call(source, "crash")
    await source.list_tools()
    assert marker.read_text().count("list None") == 2
    assert json.dumps(len(pools.pids)) == "2"


async def test_server_that_died_while_idle_is_replaced(pools: Pools) -> None:
    source = pools({"peer": peer()}).source("peer")
    assert (await call(source, "add", {"a": 1, "b": 2})).text.startswith("3")
    os.killpg(pools.pids[0], signal.SIGKILL)
    for _ in range(100):
        if not group_alive(pools.pids[0]):
            break
        await asyncio.sleep(0.02)
    await asyncio.sleep(0.1)
    assert (await call(source, "add", {"a": 2, "b": 2})).text.startswith("4")
    assert len(pools.pids) == 2


def _with_grandchild() -> McpServerConfig:
    """The peer started by a shell that first puts a ``sleep`` in the background: same process
    group, and it keeps the server's stdout pipe open after the server itself is gone."""
    import sys

    script = f"sleep 300 & exec {sys.executable} -m tests.peers.mcp_peer"
    return McpServerConfig(command="sh", args=["-c", script], cwd=str(peer().cwd))


async def test_crash_kills_the_whole_process_group(pools: Pools) -> None:
    source = pools({"peer": _with_grandchild()}, limits=SHORT).source("peer")
    assert (await call(source, "add", {"a": 1, "b": 2})).text.startswith("3")
    assert len(group_alive(pools.pids[0])) == 2  # the server and its background sleep
    # reported as the exit at once, not as the request timeout (the sleep holds the pipe open)
    with pytest.raises(McpError, match=r"calling tool 'crash' failed: the server process exited"):
        await call(source, "crash")
    assert group_alive(pools.pids[0]) == []
    assert (await call(source, "add", {"a": 2, "b": 2})).text.startswith("4")
    assert len(group_alive(pools.pids[1])) == 2
    # the pools fixture closes the pool and asserts the second group is gone as well


async def test_listing_expires_after_ttl(pools: Pools, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    source = pools({"peer": peer("--marker", str(marker), "--ttl-ms", "400")}).source("peer")
    await source.list_tools()
    await source.list_tools()
    assert marker.read_text().count("list None") == 1  # within ttlMs: cached
    await asyncio.sleep(0.5)
    await source.list_tools()
    assert marker.read_text().count("list None") == 2  # expired: listed again


async def test_public_listing_outlives_its_connection(pools: Pools, tmp_path: Path) -> None:
    marker = tmp_path / "marker"
    source = pools({"peer": peer("--marker", str(marker), "--ttl-ms", "60000", "--scope", "public")}).source(
        "peer"
    )
    await source.list_tools()
    with pytest.raises(McpError):
        await call(source, "crash")
    await source.list_tools()
    assert (await call(source, "add", {"a": 1, "b": 1})).text.startswith("2")
    assert len(pools.pids) == 2
    assert marker.read_text().count("list None") == 1
