"""``allowed_tools`` (seed 000: absent = unrestricted, ``[]`` = all denied, a hard error checked
before connecting) and ``tool_policy`` / ``--approve-tools`` (soft denials), through the real tool
loop against the scripted LLM server and the real peer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lait_core.engine.llm.chat_types import AllowedToolsError, user_message
from lait_core.engine.llm.client import ChatClient
from lait_core.engine.run.interaction import ApprovalDecision, HeadlessInteraction
from lait_core.engine.run.tool_loop import LoopOptions, run_tool_loop
from lait_core.engine.tools.base import CallContext, Tool, ToolKind, ToolSet
from lait_core.engine.tools.tool_policy import INTERACTIVE_DENIAL, POLICY_DENIAL, Policy
from tests.engine.conftest import FAST_RETRY, caller_for
from tests.mcp.conftest import Pools, peer
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls


def tool_messages(server: ScriptedOpenAIServer) -> list[str]:
    last = server.bodies[-1]
    return [m["content"] for m in last["messages"] if m["role"] == "tool"]


async def loop(
    server: ScriptedOpenAIServer,
    tools: ToolSet,
    *,
    policy: Policy | None = None,
    interaction: HeadlessInteraction | None = None,
) -> str:
    async with ChatClient(timeout=10.0, retry=FAST_RETRY) as client:
        result = await run_tool_loop(
            caller_for(server, client),
            [user_message("go")],
            tools,
            interaction or HeadlessInteraction(),
            LoopOptions(policy=policy or Policy(), approve_tools=interaction is not None),
        )
    return result.response.content or ""


async def test_allowed_tools_absent_list_and_empty(
    pools: Pools, llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    pool = pools(
        {
            "free": peer("--marker", str(marker)),
            "some": peer("--marker", str(marker), allowed_tools=["add"]),
            "none": peer(allowed_tools=[]),
        }
    )
    tools = await ToolSet.assemble([pool.source("free"), pool.source("some")])
    # absent: unrestricted; a list: the listed raw names run
    llm_server.push(
        tool_calls(call("free__echo", {"text": "e"}), call("some__add", {"a": 2, "b": 3})), text("done")
    )
    assert await loop(llm_server, tools) == "done"
    assert [m.split("\n\n")[0] for m in tool_messages(llm_server)] == ["e", "5"]
    # not in the list: a hard error before anything is sent to the server; the model still saw the tool
    assert "some__echo" in json.dumps(llm_server.bodies[0]["tools"])
    llm_server.push(tool_calls(call("some__echo", {"text": "x"})))
    with pytest.raises(AllowedToolsError, match=r"'echo' of server 'some' is not allowed: .*\(add\)"):
        await loop(llm_server, tools)
    assert "call echo x" not in marker.read_text()
    # []: every tool is denied, without even connecting
    spawned = len(pools.pids)
    source = pool.source("none")
    fake = Tool("none__add", "add", None, {"type": "object"}, ToolKind.MCP, source, "none")
    with pytest.raises(
        AllowedToolsError, match=r"'mcp_servers.none.allowed_tools' in lait.config.yml is empty"
    ):
        await source.call(fake, '{"a": 1, "b": 1}', CallContext(HeadlessInteraction(), "c"))
    with pytest.raises(AllowedToolsError):
        source.check(fake)
    assert len(pools.pids) == spawned


async def test_tool_policy_and_approval_are_soft(
    pools: Pools, llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    marker = tmp_path / "marker"
    pool = pools({"peer": peer("--marker", str(marker), allowed_tools=["add", "echo"])})
    tools = await ToolSet.assemble([pool.source("peer")])

    # deny wins over allow; a denial goes back to the model and the loop continues
    llm_server.push(
        tool_calls(call("peer__echo", {"text": "no"}), call("peer__add", {"a": 1, "b": 1})), text("ok")
    )
    assert await loop(llm_server, tools, policy=Policy(allow=("peer__*",), deny=("*__echo",))) == "ok"
    assert [m.split("\n\n")[0] for m in tool_messages(llm_server)] == [
        f"{POLICY_DENIAL} (deny pattern '*__echo')",
        "2",
    ]

    # a non-empty allow list denies everything else
    llm_server.push(tool_calls(call("peer__echo", {"text": "no"})), text("ok"))
    assert await loop(llm_server, tools, policy=Policy(allow=("peer__add",))) == "ok"
    assert tool_messages(llm_server) == [f"{POLICY_DENIAL} (no allow pattern matches; allow: peer__add)"]

    # both must pass: a policy denial of a tool outside allowed_tools stays soft (checked first)
    llm_server.push(tool_calls(call("peer__fail", {})), text("ok"))
    assert await loop(llm_server, tools, policy=Policy(deny=("peer__fail",))) == "ok"
    assert tool_messages(llm_server) == [f"{POLICY_DENIAL} (deny pattern 'peer__fail')"]
    # ... and a policy allow does not lift allowed_tools
    llm_server.push(tool_calls(call("peer__fail", {})))
    with pytest.raises(AllowedToolsError):
        await loop(llm_server, tools, policy=Policy(allow=("*",)))

    # --approve-tools: an interactive denial is soft, an approval runs the call
    interaction = HeadlessInteraction([ApprovalDecision.DENY, ApprovalDecision.ONCE])
    llm_server.push(
        tool_calls(call("peer__echo", {"text": "denied"}), call("peer__echo", {"text": "approved"})),
        text("ok"),
    )
    assert await loop(llm_server, tools, interaction=interaction) == "ok"
    assert [m.split("\n\n")[0] for m in tool_messages(llm_server)] == [INTERACTIVE_DENIAL, "approved"]
    calls = [line for line in marker.read_text().splitlines() if line.startswith("call ")]
    assert calls == ["call add 1 1", "call echo approved"]


async def test_allowed_tools_refusal_is_never_put_to_the_approval_prompt(
    pools: Pools, llm_server: ScriptedOpenAIServer
) -> None:
    """Seed 000: a tool outside ``allowed_tools`` is a hard error before any approval is asked."""
    pool = pools({"some": peer(allowed_tools=["add"])})
    tools = await ToolSet.assemble([pool.source("some")])
    interaction = HeadlessInteraction("allow")
    llm_server.push(tool_calls(call("some__echo", {"text": "x"})))
    with pytest.raises(AllowedToolsError):
        await loop(llm_server, tools, interaction=interaction)
    assert interaction.approval_requests == []
