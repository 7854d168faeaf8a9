"""lait's MCP client (McpPool) against the real @modelcontextprotocol/server-everything, over stdio
and over Streamable HTTP bound to 127.0.0.1: tool listing as the model sees it, ``get-sum``,
``trigger-elicitation-request`` answered (accept / decline / not allowed) through the Interaction,
``allowed_tools`` and process clean-up."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.llm.chat_types import AllowedToolsError, ConfigurationError
from lait_core.engine.run.interaction import ElicitationResult, HeadlessInteraction
from lait_core.engine.tools.base import CallContext, Tool, ToolKind, ToolResult
from lait_core.engine.tools.mcp_tools import McpPool
from tests.mcp_everything.conftest import ScriptedElicitation
from tests.mcp_everything.peer import listening_addresses, stdio_config
from tests.processes import running_with_marker

ANSWER = {"name": "Ada Lovelace", "check": True, "integer": 42}


def pool_for(entry: dict[str, Any], tmp_path: Path, name: str = "everything") -> McpPool:
    return McpPool({name: McpServerConfig.model_validate(entry)}, base_dir=tmp_path)


async def call(pool: McpPool, tool: str, arguments: Any, interaction: Any = None) -> ToolResult:
    source = pool.source("everything")
    tools = {t.name: t for t in await source.list_tools()}
    ctx = CallContext(interaction or HeadlessInteraction("allow"), call_id="call_0")
    return await source.call(tools[tool], json.dumps(arguments), ctx)


def by_name(tools: list[Tool]) -> dict[str, Tool]:
    return {t.qualified_name: t for t in tools}


# -- the HTTP peer itself ------------------------------------------------------------------------
def test_the_http_peer_listens_on_loopback_only(http_peer: Any) -> None:
    assert listening_addresses(http_peer.port) == ["0100007F"]  # 127.0.0.1, no 0.0.0.0 / ::


# -- tools/list ----------------------------------------------------------------------------------
async def test_tools_are_listed_with_qualified_names_and_verbatim_schemas(
    everything: dict[str, Any], tmp_path: Path
) -> None:
    pool = pool_for(everything, tmp_path)
    try:
        tools = by_name(await pool.source("everything").list_tools())
    finally:
        await pool.aclose()
    assert {"everything__echo", "everything__get-sum", "everything__trigger-elicitation-request"} <= set(
        tools
    )
    get_sum = tools["everything__get-sum"]
    assert (get_sum.name, get_sum.server, get_sum.kind) == ("get-sum", "everything", ToolKind.MCP)
    assert get_sum.description and "sum" in get_sum.description.lower()
    props = get_sum.parameters["properties"]
    assert props["a"]["type"] == props["b"]["type"] == "number"
    assert sorted(get_sum.parameters["required"]) == ["a", "b"]
    # the wire form the model sees: the same schema object, under the qualified name
    wire = get_sum.definition().wire()
    assert wire["function"]["name"] == "everything__get-sum"
    assert wire["function"]["parameters"] == get_sum.parameters


async def test_the_source_never_connects_before_it_is_used(tmp_path: Path, marker: str) -> None:
    pool = McpPool(
        {
            "everything": McpServerConfig.model_validate(
                {"command": "node", "env": {"LAIT_TEST_MARKER": marker}}
            )
        },
        base_dir=tmp_path,
    )
    first = pool.source("everything")
    assert pool.source("everything") is first
    await asyncio.sleep(0.2)
    assert running_with_marker(marker) == []
    with pytest.raises(ConfigurationError, match=r"unknown MCP server 'nope'.*\(configured: everything\)"):
        pool.source("nope")
    await pool.aclose()


# -- tools/call ----------------------------------------------------------------------------------
async def test_get_sum(everything: dict[str, Any], tmp_path: Path) -> None:
    pool = pool_for(everything, tmp_path)
    try:
        result = await call(pool, "get-sum", {"a": 19, "b": 23.5})
        again = await call(pool, "get-sum", {"a": -7, "b": 7})
    finally:
        await pool.aclose()
    assert result == ToolResult("The sum of 19 and 23.5 is 42.5.", False)
    assert again.text == "The sum of -7 and 7 is 0."


async def test_elicitation_is_answered_through_the_interaction(
    everything: dict[str, Any], tmp_path: Path
) -> None:
    interaction = ScriptedElicitation(ElicitationResult("accept", ANSWER))
    pool = pool_for({**everything, "allow_elicitation": True}, tmp_path)
    try:
        result = await call(pool, "trigger-elicitation-request", {}, interaction)
    finally:
        await pool.aclose()
    [request] = interaction.requests
    assert (request.server, request.mode, request.allowed) == ("everything", "form", True)
    assert request.message == "Please provide inputs for the following fields:"
    schema = request.requested_schema
    assert schema is not None and schema["required"] == ["name"]
    assert {"name", "check", "integer", "email"} <= set(schema["properties"])
    assert not result.is_error
    assert "User provided the requested information" in result.text
    assert "- Name: Ada Lovelace" in result.text
    # the server echoes what it received: the answer, plus the schema's default of every field the
    # answer left out (SEP-1034)
    raw = json.loads(result.text.split("Raw result:", 1)[1])
    defaults = {
        key: field["default"]
        for key, field in schema["properties"].items()
        if "default" in field and key not in ANSWER
    }
    assert defaults, "server-everything's form has fields with defaults"
    assert raw == {"action": "accept", "content": {**defaults, **ANSWER}}


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_elicitation_declined_or_cancelled(
    everything: dict[str, Any], tmp_path: Path, action: str
) -> None:
    interaction = ScriptedElicitation(ElicitationResult(action))
    pool = pool_for({**everything, "allow_elicitation": True}, tmp_path)
    try:
        result = await call(pool, "trigger-elicitation-request", {}, interaction)
    finally:
        await pool.aclose()
    assert len(interaction.requests) == 1
    raw = json.loads(result.text.split("Raw result:", 1)[1])
    assert raw == {"action": action}


async def test_elicitation_not_allowed_is_declined(everything: dict[str, Any], tmp_path: Path) -> None:
    """``allow_elicitation`` absent: the request reaches no person, the server sees a decline."""
    interaction = ScriptedElicitation(ElicitationResult("accept", ANSWER))
    pool = pool_for(everything, tmp_path)
    try:
        result = await call(pool, "trigger-elicitation-request", {}, interaction)
    finally:
        await pool.aclose()
    assert all(not r.allowed for r in interaction.requests)
    assert interaction.answers  # the scripted accept was never used
    assert json.loads(result.text.split("Raw result:", 1)[1]) == {"action": "decline"}


async def test_allowed_tools_is_enforced_before_the_call(everything: dict[str, Any], tmp_path: Path) -> None:
    pool = pool_for({**everything, "allowed_tools": ["get-sum"]}, tmp_path)
    try:
        assert (await call(pool, "get-sum", {"a": 1, "b": 2})).text == "The sum of 1 and 2 is 3."
        with pytest.raises(AllowedToolsError, match="allowed_tools"):
            await call(pool, "echo", {"message": "hi"})
    finally:
        await pool.aclose()


async def test_concurrent_calls_share_one_server(tmp_path: Path, marker: str) -> None:
    pool = pool_for(stdio_config(env={"LAIT_TEST_MARKER": marker}), tmp_path)
    try:
        results = await asyncio.gather(*(call(pool, "get-sum", {"a": i, "b": 1}) for i in range(6)))
        assert [r.text for r in results] == [f"The sum of {i} and 1 is {i + 1}." for i in range(6)]
        assert len(running_with_marker(marker)) == 1
    finally:
        await pool.aclose()


async def test_aclose_leaves_no_process(tmp_path: Path, marker: str) -> None:
    pool = pool_for(stdio_config(env={"LAIT_TEST_MARKER": marker}), tmp_path)
    await call(pool, "get-sum", {"a": 1, "b": 1})
    assert len(running_with_marker(marker)) == 1
    await pool.aclose()
    await pool.aclose()  # idempotent
    assert running_with_marker(marker) == []
