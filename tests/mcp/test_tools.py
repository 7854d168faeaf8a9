"""Connecting, listing and calling (docs/mcp.md) against the real peer over stdio (both protocol
eras) and streamable HTTP."""

from __future__ import annotations

import asyncio
import io
import json

import pytest

from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.llm.chat_types import ConfigurationError, ToolArgumentsError, ToolNameError
from lait_core.engine.mcp.mcp_errors import McpError
from lait_core.engine.mcp.result_text import render_result
from lait_core.engine.run.interaction import HeadlessInteraction
from lait_core.engine.tools.base import CallContext, Tool, ToolResult, ToolSet
from lait_core.engine.tools.mcp_tools import McpToolSource
from tests.mcp.conftest import REPO, HttpPeer, Pools, peer

CTX = CallContext(HeadlessInteraction(), "call-1")


async def call(source: McpToolSource, name: str, arguments: object = None) -> ToolResult:
    tools = {t.name: t for t in await source.list_tools()}
    text = arguments if isinstance(arguments, str) else ("" if arguments is None else json.dumps(arguments))
    return await source.call(tools[name], text, CTX)


@pytest.mark.parametrize(("legacy", "version"), [(False, "2026-07-28"), (True, "2025-11-25")])
async def test_stdio_both_eras(pools: Pools, legacy: bool, version: str) -> None:
    pool = pools({"peer": peer(*(["--legacy"] if legacy else []))})
    source = pool.source("peer")
    assert pool.source("peer") is source
    tools = await source.list_tools()
    assert [t.qualified_name for t in tools][:3] == ["peer__add", "peer__echo", "peer__fail"]
    add = tools[0]
    assert add.parameters["properties"]["a"]["type"] == "integer"
    assert add.description == "Add two integers."
    assert (await pool.connection("peer")).protocol_version == version
    result = await source.call(add, '{"a": 2, "b": 40}', CTX)
    assert result == ToolResult('42\n\nstructuredContent:\n{"result":42}')


async def test_http_transport_and_headers(pools: Pools, http_peer: HttpPeer) -> None:
    cfg = McpServerConfig(url="${PEER_URL}", headers={"X-Token": "Bearer ${TOKEN}"})
    pool = pools({"web": cfg}, environ={"PEER_URL": http_peer.url, "TOKEN": "t1"})
    source = pool.source("web")
    assert (await call(source, "echo", {"text": "over http"})).text.startswith("over http")
    assert (await pool.connection("web")).protocol_version == "2026-07-28"


async def test_result_rendering(pools: Pools) -> None:
    source = pools({"peer": peer()}).source("peer")
    failed = await call(source, "fail", {"message": "bad date"})
    assert failed.is_error
    assert failed.text == "isError: true\n\nError executing tool fail: bad date"
    picture = await call(source, "picture")
    text, image = picture.text.split("\n\n")
    assert text == "here is a picture"
    assert json.loads(image)["type"] == "image" and json.loads(image)["mimeType"] == "image/png"
    weather = await call(source, "weather", {"city": "Kyoto"})
    assert weather.text.endswith('structuredContent:\n{"city":"Kyoto","temperature":21.5}')
    assert not weather.is_error


def test_render_rules() -> None:
    assert render_result([], None, False) == ""
    blocks = [{"type": "text", "text": "a"}, {"type": "audio", "data": "AA", "mimeType": "audio/wav"}]
    assert render_result(blocks, {"k": [1]}, True) == (
        'isError: true\n\na\n\n{"type":"audio","data":"AA","mimeType":"audio/wav"}\n\nstructuredContent:\n{"k":[1]}'
    )


async def test_arguments_blank_null_and_bad(pools: Pools) -> None:
    source = pools({"peer": peer()}).source("peer")
    assert (await call(source, "echo", "")).text.startswith("\n\n") or (
        await call(source, "echo", "null")
    ).text
    with pytest.raises(ToolArgumentsError, match="not a JSON object"):
        await call(source, "echo", "[1]")
    with pytest.raises(ToolArgumentsError, match="not valid JSON"):
        await call(source, "echo", "{oops")


async def test_env_added_to_inherited_and_cwd_relative(
    pools: Pools, tmp_path: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    work = REPO / "tests" / "peers"
    cfg = McpServerConfig(
        command="${PY}",
        args=[
            "-c",
            "import runpy, sys; sys.path.insert(0, '../..'); runpy.run_module('tests.peers.mcp_peer', run_name='__main__')",
        ],
        env={"LAIT_PEER_VAR": "v-${SUFFIX}"},
        cwd="tests/peers",
    )
    import sys

    environ = {"PY": sys.executable, "SUFFIX": "x", "LAIT_INHERITED": "from-parent", "PATH": "/usr/bin:/bin"}
    source = pools({"p": cfg}, environ=environ).source("p")
    text = (await call(source, "whoami")).text.split("\n\n")[0]
    assert text == f"cwd={work} env=v-x home=from-parent"


async def test_config_errors_at_first_use(pools: Pools) -> None:
    pool = pools(
        {
            "both": McpServerConfig(command="x", url="http://127.0.0.1:1/mcp"),
            "neither": McpServerConfig(),
            "unset": McpServerConfig(command="${LAIT_NOT_SET_ANYWHERE}"),
            "header": McpServerConfig(url="http://127.0.0.1:1/mcp", headers={"Bad Name": "x"}),
            "missing": McpServerConfig(command="/nonexistent/lait-mcp-server"),
        },
        environ={},
    )
    with pytest.raises(ConfigurationError, match=r"mcp_servers.both .* sets both of 'command' and 'url'"):
        await pool.source("both").list_tools()
    with pytest.raises(ConfigurationError, match="sets neither"):
        await pool.source("neither").list_tools()
    with pytest.raises(
        ConfigurationError, match=r"mcp_servers.unset.command .*LAIT_NOT_SET_ANYWHERE.* not set"
    ):
        await pool.source("unset").list_tools()
    with pytest.raises(ConfigurationError, match="not a valid HTTP header name"):
        await pool.source("header").list_tools()
    with pytest.raises(
        McpError, match="MCP server 'missing': failed to spawn '/nonexistent/lait-mcp-server'"
    ):
        await pool.source("missing").list_tools()
    with pytest.raises(
        ConfigurationError,
        match=r"unknown MCP server 'nope'; define it under 'mcp_servers:'.*configured: both",
    ):
        pool.source("nope")


async def test_one_connect_for_concurrent_first_users(pools: Pools, tmp_path: object) -> None:
    pool = pools({"peer": peer()})
    source = pool.source("peer")
    results = await asyncio.gather(*(call(source, "add", {"a": i, "b": 1}) for i in range(6)))
    assert [r.text.split("\n")[0] for r in results] == [str(i + 1) for i in range(6)]
    assert len(pools.pids) == 1


async def test_name_collision_between_servers(pools: Pools) -> None:
    pool = pools({"a.b": peer(), "a_b": peer()})
    with pytest.raises(
        ToolNameError,
        match=r"MCP tool name collision: 'add' of server 'a\.b' and 'add' of server 'a_b' both qualify to 'a_b__add'",
    ):
        await ToolSet.assemble([pool.source("a.b"), pool.source("a_b")])


async def test_qualified_name_too_long(pools: Pools) -> None:
    pool = pools({"s" * 60: peer()})
    with pytest.raises(ToolNameError, match="at most 64 characters"):
        await pool.source("s" * 60).list_tools()


async def test_sampling_and_roots_get_method_not_found(pools: Pools) -> None:
    source = pools({"old": peer("--legacy")}).source("old")
    text = (await call(source, "sample_it")).text.split("\n\n")[0]
    assert text == "error: -32601 Method not found | error: -32601 Method not found"
    caps = (await call(source, "client_caps")).text.split("\n\n")[0]
    assert caps == "lait ['elicitation'] ['form', 'url']"  # only elicitation, always advertised


async def test_server_stderr_goes_to_the_given_stream(pools: Pools) -> None:
    err = io.StringIO()
    source = pools({"peer": peer()}, stderr=err).source("peer")
    with pytest.raises(McpError):
        await call(source, "crash")
    assert "peer: crashing now" in err.getvalue()


async def test_tool_source_shape(pools: Pools) -> None:
    source = pools({"peer": peer()}).source("peer")
    tools: list[Tool] = await source.list_tools()
    assert all(t.server == "peer" and t.source is source for t in tools)
    assert len(pools.pids) == 1


async def test_headers_are_sent_on_every_request(pools: Pools, http_peer: HttpPeer) -> None:
    cfg = McpServerConfig(url=http_peer.url, headers={"X-Lait-Token": "Bearer ${TOKEN}"})
    source = pools({"web": cfg}, environ={"TOKEN": "secret-1"}).source("web")
    first_call = await call(source, "header", {"name": "x-lait-token"})
    second_call = await call(source, "header", {"name": "x-lait-token"})
    assert first_call.text.split("\n\n")[0] == second_call.text.split("\n\n")[0] == "Bearer secret-1"
    assert (await call(source, "header", {"name": "x-not-sent"})).text.startswith("<absent>\n\n")


async def test_modern_sampling_and_roots_requests_are_refused(pools: Pools) -> None:
    """2026-07-28: sampling/roots inside an ``input_required`` result get "method not found",
    which the SDK turns into a failed call (a protocol error: aborts, evicts)."""
    pool = pools({"peer": peer()})
    source = pool.source("peer")
    with pytest.raises(McpError, match=r"calling tool 'sample_modern' failed: .*Method not found"):
        await call(source, "sample_modern")
    assert (await call(source, "add", {"a": 1, "b": 1})).text.startswith("2")
    assert len(pools.pids) == 2  # the failed call evicted the first connection


def test_default_limits_are_the_specified_ones() -> None:
    from lait_core.engine.mcp.limits import DEFAULT_LIMITS
    from lait_core.engine.tools.mcp_tools import McpPool

    limits = McpPool({}, base_dir=REPO).limits
    assert limits is DEFAULT_LIMITS
    assert (limits.timeout, limits.handshake_timeout) == (300.0, 300.0)
    assert limits.frame_bytes == 16 * 1024 * 1024 == limits.metadata_bytes
    assert (limits.page_tools, limits.total_tools, limits.pages) == (1024, 8192, 128)


async def test_output_schema_is_not_enforced(pools: Pools) -> None:
    """Spec 3.5: the output schema is ignored (only counted in the byte budget); a result that
    does not match it still goes to the model."""
    source = pools({"peer": peer("--odd-output-schema")}).source("peer")
    [echo] = [t for t in await source.list_tools() if t.name == "echo"]
    result = await source.call(echo, '{"text": "free-form"}', CTX)
    assert result == ToolResult('free-form\n\nstructuredContent:\n{"result":"free-form"}')
