"""The tool loop against the scripted server, asserting the exact request bodies: rounds and
``max_tool_rounds``, parallel execution, ``response_format`` interplay, streaming, compaction, soft
and hard failures, cancellation (docs/workflows.md, "The tool loop")."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest

from lait_core.documents.document_models import CompactionConfig
from lait_core.engine.llm.chat_types import (
    ApprovalError,
    LlmResponseError,
    MaxToolRoundsExceeded,
    Message,
    ToolArgumentsError,
    UnknownToolError,
    Usage,
    json_schema_format,
    system_message,
    user_message,
)
from lait_core.engine.llm.client import ChatClient
from lait_core.engine.run.interaction import (
    ApprovalDecision,
    ApprovalRequest,
    Compacted,
    HeadlessInteraction,
    Note,
    StreamEnded,
    TextDelta,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallStarted,
    UsageReported,
)
from lait_core.engine.run.tool_loop import (
    COMPACTION_INSTRUCTION,
    SUMMARY_PREFIX,
    LoopOptions,
    LoopResult,
    run_tool_loop,
)
from lait_core.engine.tools import ToolKind, ToolResult, ToolSet, ToolSource
from lait_core.engine.tools.tool_policy import Policy
from tests.engine.conftest import FakeSource, barrier, caller_for, live_group_members, shell_source
from tests.peers.openai_server import ScriptedOpenAIServer, call, empty_stream, text, tool_calls

REPO = Path(__file__).resolve().parents[2]
USER = [user_message("do it")]
U = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}


async def run(
    server: ScriptedOpenAIServer,
    client: ChatClient,
    sources: list[ToolSource],
    interaction: HeadlessInteraction | None = None,
    messages: list[Message] | None = None,
    **options: Any,
) -> LoopResult:
    interaction = interaction or HeadlessInteraction()
    tools = await ToolSet.assemble(sources)
    caller = caller_for(server, client, interaction)
    return await run_tool_loop(caller, messages or USER, tools, interaction, LoopOptions(**options))


def echo_tool(**extra: Any) -> ToolSource:
    return shell_source(
        {"echo": {"command": ["echo", "{{ input.msg }}"], "description": "echo", **extra}},
    )


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]


# -- request bodies of a tool round ---------------------------------------------------------------
async def test_one_tool_round_exact_bodies(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(tool_calls(call("tool__echo", {"msg": "hi"}, id="c1")), text("done"))
    result = await run(llm_server, client, [echo_tool()], messages=[system_message("sys"), *USER])
    assert result.response.content == "done" and result.rounds == 2 and result.requests == 2
    tools = [
        {
            "type": "function",
            "function": {
                "name": "tool__echo",
                "description": "echo",
                "parameters": {"type": "object", "properties": {}},
            },
        }
    ]
    first: dict[str, Any] = {
        "model": "test-model",
        "messages": [{"role": "system", "content": "sys"}, {"role": "user", "content": "do it"}],
        "stream": False,
        "tools": tools,
        "tool_choice": "auto",
    }
    assistant = {
        "role": "assistant",
        "content": "",  # never null: llama-cpp-python answers 500 to a null content
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "tool__echo", "arguments": '{"msg":"hi"}'}}
        ],
    }
    second = {
        **first,
        "messages": [*first["messages"], assistant, {"role": "tool", "tool_call_id": "c1", "content": "hi"}],
    }
    assert llm_server.bodies == [first, second]
    assert result.messages == second["messages"]


async def test_assistant_text_next_to_tool_calls_is_kept(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    llm_server.push(tool_calls(call("tool__echo", {"msg": "x"}), content="let me check"), text("done"))
    await run(llm_server, client, [echo_tool()])
    assert llm_server.bodies[1]["messages"][1]["content"] == "let me check"


async def test_tools_order_in_the_request(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(text("done"))
    sources: list[ToolSource] = [
        FakeSource(ToolKind.SKILL, ["review"]),
        echo_tool(),
        FakeSource(ToolKind.AGENT, ["helper"]),
        FakeSource(ToolKind.MCP, ["search"], server="web"),
        FakeSource(ToolKind.MCP, ["read_file"], server="fs"),
    ]
    await run(llm_server, client, sources)
    assert tool_names(llm_server.bodies[0]) == [
        "web__search",
        "fs__read_file",
        "agent__helper",
        "tool__echo",
        "skill__review",
    ]


async def test_no_tools_is_a_single_request_with_response_format(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    llm_server.push(text('{"a":1}'))
    rf = json_schema_format({"type": "object"})
    result = await run(llm_server, client, [], response_format=rf)
    assert result.response.content == '{"a":1}' and result.rounds == 0
    assert llm_server.bodies == [
        {
            "model": "test-model",
            "messages": [{"role": "user", "content": "do it"}],
            "stream": False,
            "response_format": rf,
        }
    ]


# -- rounds -------------------------------------------------------------------------------------
async def test_max_tool_rounds_runs_the_last_rounds_calls_first(
    llm_server: ScriptedOpenAIServer, client: ChatClient, tmp_path: Path
) -> None:
    log = tmp_path / "calls"
    source = shell_source({"mark": {"command": ["sh", "-c", f"echo x >> {log}"]}})
    llm_server.push(*[tool_calls(call("tool__mark")) for _ in range(3)])
    with pytest.raises(MaxToolRoundsExceeded) as info:
        await run(llm_server, client, [source], max_tool_rounds=2)
    assert (
        str(info.value)
        == "tool loop exceeded max_tool_rounds (2) without the model producing a final response"
    )
    assert len(llm_server.requests) == 2
    assert log.read_text() == "x\nx\n"  # round 2's call ran before the check failed


async def test_default_max_tool_rounds_is_eight(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(*[tool_calls(call("tool__echo", {"msg": "again"})) for _ in range(9)])
    with pytest.raises(MaxToolRoundsExceeded, match=r"\(8\)"):
        await run(llm_server, client, [echo_tool()])
    assert len(llm_server.requests) == 8


async def test_zero_rounds_is_rejected(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    with pytest.raises(Exception, match="max_tool_rounds must be at least 1"):
        await run(llm_server, client, [echo_tool()], max_tool_rounds=0)
    assert llm_server.requests == []


# -- response_format ----------------------------------------------------------------------------
async def test_response_format_is_withheld_then_reissued_without_tools(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    rf = json_schema_format({"type": "object", "properties": {"n": {"type": "integer"}}}, "answer")
    llm_server.push(
        tool_calls(call("tool__echo", {"msg": "1"}), usage=U),
        text("the answer is 1", usage=U),
        text('{"n":1}', usage=U),
    )
    result = await run(llm_server, client, [echo_tool()], response_format=rf, max_tool_rounds=2)
    first, second, third = llm_server.bodies
    assert "response_format" not in first and "response_format" not in second
    assert tool_names(first) == tool_names(second) == ["tool__echo"]
    # the re-issue: same history as the tool-free request (its answer is discarded), no tools
    assert third["messages"] == second["messages"]
    assert third["response_format"] == rf
    assert "tools" not in third and "tool_choice" not in third
    assert result.response.content == '{"n":1}'
    assert result.rounds == 2  # the re-issue is not a round (max_tool_rounds=2 was enough)
    assert result.usage == Usage(30, 6, 36)  # every request counts, the discarded answer too


async def test_reissue_result_wins_even_with_tool_calls(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    llm_server.push(text("plain"), tool_calls(call("tool__echo", {"msg": "ignored"}), content='{"ok":true}'))
    result = await run(
        llm_server, client, [echo_tool()], response_format=json_schema_format({"type": "object"})
    )
    assert result.response.content == '{"ok":true}'
    assert len(llm_server.requests) == 2


# -- decisions and execution -----------------------------------------------------------------------
async def test_calls_run_in_parallel_results_in_model_order(
    llm_server: ScriptedOpenAIServer, client: ChatClient, tmp_path: Path
) -> None:
    """The three calls meet at a barrier (only calls that run at the same time get past it), then
    finish in another order than the model's."""
    nap = barrier(tmp_path / "met", 3, "sleep {{ input.s }}; echo {{ input.s }}")
    source = shell_source({"nap": {"command": nap, "timeout": 60}})
    llm_server.push(
        tool_calls(
            call("tool__nap", {"s": "0.6"}), call("tool__nap", {"s": "0.1"}), call("tool__nap", {"s": "0.3"})
        ),
        text("done"),
    )
    result = await run(llm_server, client, [source])
    tool_messages = [m for m in result.messages if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["content"]) for m in tool_messages] == [
        ("call_0", "0.6"),
        ("call_1", "0.1"),
        ("call_2", "0.3"),
    ]


async def test_at_most_eight_calls_in_flight(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    async def slow(arguments: str) -> ToolResult:
        await asyncio.sleep(0.1)
        return ToolResult(arguments)

    source = FakeSource(ToolKind.MCP, ["slow"], server="srv", behaviour={"slow": slow})
    llm_server.push(tool_calls(*[call("srv__slow", {"i": i}) for i in range(12)]), text("done"))
    result = await run(llm_server, client, [source])
    assert source.peak == 8
    assert [m["content"] for m in result.messages if m["role"] == "tool"] == [
        f'{{"i":{i}}}' for i in range(12)
    ]


class RecordingApprovals(HeadlessInteraction):
    """Scripted approvals that also mark, in the event stream, when each one was asked."""

    async def approve(self, call: ApprovalRequest) -> ApprovalDecision:
        self.event(Note(f"approve {call.name}"))
        return await super().approve(call)


async def test_decisions_are_made_one_at_a_time_before_any_call_runs(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    interaction = RecordingApprovals(
        [ApprovalDecision.ONCE, ApprovalDecision.DENY, ApprovalDecision.SESSION, ApprovalDecision.ONCE]
    )
    source = FakeSource(ToolKind.MCP, ["a", "b"], server="s")
    llm_server.push(
        tool_calls(call("s__a", {"n": 1}), call("s__b", {"n": 2}), call("s__b", {"n": 3})),
        tool_calls(call("s__b", {"n": 4}), call("s__a", {"n": 5})),
        text("done"),
    )
    result = await run(llm_server, client, [source], interaction, approve_tools=True)
    sequence = [
        e.message if isinstance(e, Note) else f"{type(e).__name__} {getattr(e, 'name', '')}"
        for e in interaction.events
        if isinstance(e, Note | ToolCallStarted | ToolCallDenied)
    ]
    assert sequence == [
        "approve s__a",
        "approve s__b",
        "approve s__b",  # answered "session"
        "ToolCallStarted s__a",
        "ToolCallDenied s__b",
        "ToolCallStarted s__b",
        "approve s__b",  # the interaction allows it from its always-set (no scripted answer used)
        "approve s__a",
        "ToolCallStarted s__b",
        "ToolCallStarted s__a",
    ]
    assert source.calls == [("a", '{"n":1}'), ("b", '{"n":3}'), ("b", '{"n":4}'), ("a", '{"n":5}')]
    assert [m["content"] for m in result.messages if m["role"] == "tool"] == [
        'a:{"n":1}',
        "denied interactively (--approve-tools)",
        'b:{"n":3}',
        'b:{"n":4}',
        'a:{"n":5}',
    ]


async def test_approval_request_shows_the_rendered_argv(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    interaction = HeadlessInteraction("allow")
    source = shell_source({"say": {"command": ["echo", "--", "{{ input.pattern }}"]}})
    llm_server.push(tool_calls(call("tool__say", {"pattern": "TODO"})), text("done"))
    await run(llm_server, client, [source], interaction, approve_tools=True)
    request = interaction.approval_requests[0]
    assert (request.name, request.arguments, request.kind, request.command) == (
        "tool__say",
        '{"pattern":"TODO"}',
        "tool",
        ("echo", "--", "TODO"),
    )


async def test_approval_error_aborts(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(tool_calls(call("tool__echo", {"msg": "x"})))
    with pytest.raises(ApprovalError, match="not a TTY"):
        await run(llm_server, client, [echo_tool()], HeadlessInteraction("error"), approve_tools=True)


async def test_policy_denial_is_soft_and_skips_approval(
    llm_server: ScriptedOpenAIServer, client: ChatClient, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    source = shell_source({"touch": {"command": ["touch", str(marker)]}})
    interaction = HeadlessInteraction("error")  # would fail if asked
    llm_server.push(tool_calls(call("tool__touch"), call("ghost__tool")), text("ok, I could not"))
    result = await run(
        llm_server,
        client,
        [source],
        interaction,
        approve_tools=True,
        policy=Policy(deny=("tool__*", "ghost__*")),
    )
    assert result.response.content == "ok, I could not"
    assert (
        [m["content"] for m in result.messages if m["role"] == "tool"]
        == [
            "denied by 'tool_policy' in lait.config.yml (deny pattern 'tool__*')",
            "denied by 'tool_policy' in lait.config.yml (deny pattern 'ghost__*')",  # a denied unknown name is a denial, not an error
        ]
    )
    assert not marker.exists() and interaction.approval_requests == []


async def test_soft_failures_continue_the_loop(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    source = shell_source(
        {
            "fail": {"command": ["sh", "-c", "echo bad >&2; exit 2"]},
            "need": {"command": ["echo"], "parameters": {"type": "object", "required": ["x"]}},
        }
    )
    mcp = FakeSource(
        ToolKind.MCP,
        ["broken"],
        server="m",
        behaviour={"broken": lambda a: _result("isError: true\nboom", True)},
    )
    llm_server.push(tool_calls(call("tool__fail"), call("tool__need"), call("m__broken")), text("recovered"))
    interaction = HeadlessInteraction()
    result = await run(llm_server, client, [mcp, source], interaction)
    assert result.response.content == "recovered"
    assert [m["content"] for m in result.messages if m["role"] == "tool"] == [
        "tool command failed: command 'sh' exited with exit status: 2: bad",
        "tool arguments failed validation: arguments is missing required field(s): x",
        "isError: true\nboom",
    ]
    assert [e.is_error for e in interaction.of_type(ToolCallFinished)] == [True, True, True]


async def _result(text: str, is_error: bool) -> ToolResult:
    return ToolResult(text, is_error)


async def test_unknown_tool_aborts_before_anything_runs(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    source = FakeSource(ToolKind.MCP, ["a"], server="s")
    llm_server.push(tool_calls(call("s__a"), call("nope__x")), text("never"))
    with pytest.raises(UnknownToolError) as info:
        await run(llm_server, client, [source])
    assert str(info.value) == "model called unknown tool 'nope__x'"
    assert source.calls == [] and len(llm_server.requests) == 1


async def test_first_error_in_order_aborts_the_round(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    started: list[str] = []
    cancelled: list[str] = []

    async def slow(arguments: str) -> ToolResult:
        started.append(arguments)
        try:
            await asyncio.sleep(3600)
        except asyncio.CancelledError:
            cancelled.append(arguments)
            raise
        return ToolResult("late")

    slow_source = FakeSource(ToolKind.MCP, ["slow"], server="s", behaviour={"slow": slow})
    llm_server.push(tool_calls(call("tool__echo", "[1]"), call("s__slow", {})), text("never"))
    with pytest.raises(ToolArgumentsError, match="not a JSON object"):
        await asyncio.wait_for(run(llm_server, client, [slow_source, echo_tool()]), 60)
    assert started == cancelled == ["{}"]  # the in-flight call was cancelled, not awaited
    assert len(llm_server.requests) == 1


# -- streaming ------------------------------------------------------------------------------------
async def test_streaming_rounds(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    interaction = HeadlessInteraction()
    llm_server.push(
        tool_calls(
            call("tool__echo", {"msg": "streamed args"}),
            content="Looking. ",
            stream_style="repeat",
            chunk_size=2,
        ),
        text("Found it."),
    )
    result = await run(llm_server, client, [echo_tool()], interaction, stream=True)
    assert result.response.content == "Found it."
    assert interaction.text == "Looking. Found it."
    assert interaction.of_type(StreamEnded) == [StreamEnded(final=False), StreamEnded(final=True)]
    assert [m["content"] for m in result.messages if m["role"] == "tool"] == ["streamed args"]
    assert all(b["stream"] is True and "stream_options" not in b for b in llm_server.bodies)
    assert llm_server.bodies[1]["messages"][1]["tool_calls"][0]["function"] == {
        "name": "tool__echo",
        "arguments": '{"msg":"streamed args"}',
    }


async def test_streaming_with_response_format_streams_both_answers(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    interaction = HeadlessInteraction()
    llm_server.push(text("draft"), text('{"x":1}'))
    rf = json_schema_format({"type": "object"})
    result = await run(llm_server, client, [echo_tool()], interaction, stream=True, response_format=rf)
    assert result.response.content == '{"x":1}'
    assert interaction.text == 'draft{"x":1}'
    assert interaction.of_type(StreamEnded) == [StreamEnded(final=True), StreamEnded(final=True)]
    assert llm_server.bodies[1]["response_format"] == rf and "tools" not in llm_server.bodies[1]


async def test_streamed_usage_is_requested_and_summed(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    llm_server.push(tool_calls(call("tool__echo", {"msg": "a"}), usage=U), text("done", usage=U))
    result = await run(llm_server, client, [echo_tool()], stream=True, include_usage=True)
    assert all(b["stream_options"] == {"include_usage": True} for b in llm_server.bodies)
    assert result.usage == Usage(20, 4, 24)


async def test_empty_stream_with_tools_is_a_clear_error(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    llm_server.push(empty_stream())
    with pytest.raises(LlmResponseError, match=f"the server at {llm_server.url} sent an empty stream"):
        await run(llm_server, client, [echo_tool()], stream=True)


# -- compaction ------------------------------------------------------------------------------------
async def test_compaction_by_rounds(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    interaction = HeadlessInteraction()
    llm_server.push(
        tool_calls(call("tool__echo", {"msg": "one"}, id="a")),
        tool_calls(call("tool__echo", {"msg": "two"}, id="b")),
        text("SUMMARY"),
        text("final"),
    )
    compaction = CompactionConfig(trigger_rounds=3, keep_last_n=2)
    messages = [system_message("sys"), user_message("task")]
    result = await run(
        llm_server, client, [echo_tool()], interaction, messages=messages, compaction=compaction
    )
    assert result.response.content == "final" and result.requests == 4
    summary_body = llm_server.bodies[2]
    assert "tools" not in summary_body and summary_body["stream"] is False
    # the whole history before round 3, then the instruction
    assert summary_body["messages"][:4] == llm_server.bodies[1]["messages"]
    assert summary_body["messages"][4]["tool_calls"][0]["id"] == "b"
    assert summary_body["messages"][5] == {"role": "tool", "tool_call_id": "b", "content": "two"}
    assert summary_body["messages"][-1] == {"role": "user", "content": COMPACTION_INSTRUCTION}
    assert len(summary_body["messages"]) == 7  # sys, task, call a, result a, call b, result b, instruction
    after = llm_server.bodies[3]["messages"]
    assert after[0] == {"role": "system", "content": "sys"}
    assert after[1] == {"role": "assistant", "content": f"{SUMMARY_PREFIX}SUMMARY)"}
    assert [m["role"] for m in after[2:]] == ["assistant", "tool"]
    assert after[2]["tool_calls"][0]["id"] == "b"
    assert interaction.of_type(Compacted) == [Compacted(3, 6, 4)]


async def test_compaction_by_tokens_keeps_tool_results_with_their_call(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    big = {"prompt_tokens": 5000, "completion_tokens": 1, "total_tokens": 5001}
    llm_server.push(
        tool_calls(
            call("tool__echo", {"msg": "1"}, id="a"), call("tool__echo", {"msg": "2"}, id="b"), usage=big
        ),
        text("SUMMARY"),
        text("final"),
    )
    compaction = CompactionConfig(trigger_tokens=4000, keep_last_n=1)
    await run(llm_server, client, [echo_tool()], compaction=compaction)
    after = llm_server.bodies[2]["messages"]
    # keep_last_n=1 would keep only the second tool result; its assistant call message is kept too
    assert [m["role"] for m in after] == ["assistant", "assistant", "tool", "tool"]
    assert after[0]["content"].startswith(SUMMARY_PREFIX)


async def test_compaction_needs_a_trigger(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(text("x"))
    with pytest.raises(Exception, match="needs 'trigger_rounds' or 'trigger_tokens'"):
        await run(llm_server, client, [echo_tool()], compaction=CompactionConfig())


# -- cancellation ---------------------------------------------------------------------------------
async def test_cancel_kills_the_running_tool_tree(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    spawned: list[int] = []
    source = shell_source(
        {"hang": {"command": ["sh", "-c", "sleep 30 & sleep 30 & wait"]}}, on_spawn=spawned.append
    )
    llm_server.push(tool_calls(call("tool__hang"), call("tool__hang")), text("never"))
    task = asyncio.create_task(run(llm_server, client, [source]))
    for _ in range(200):
        if len(spawned) == 2:
            break
        await asyncio.sleep(0.01)
    await asyncio.sleep(0.1)
    assert all(live_group_members(p) for p in spawned)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [live_group_members(p) for p in spawned] == [[], []]
    assert len(llm_server.requests) == 1


SIGINT_SCRIPT = textwrap.dedent(
    """
    import asyncio, json, os, signal, sys
    from lait_core.documents.document_models import Config, ShellToolDefinition
    from lait_core.engine.run.interaction import HeadlessInteraction
    from lait_core.engine.llm.client import ChatClient, ModelCaller
    from lait_core.engine.run.tool_loop import run_tool_loop
    from lait_core.engine.llm.chat_types import user_message
    from lait_core.engine.llm.model_resolution import resolve_model
    from lait_core.engine.tools import ToolSet
    from lait_core.engine.tools.shell import ShellToolSource

    def spawned(pid):
        print(json.dumps({"pgid": pid}), flush=True)

    async def main():
        definition = ShellToolDefinition(command=["sh", "-c", "sleep 60 & sleep 60 & wait"])
        source = ShellToolSource(["hang"], {"hang": definition}, on_spawn=spawned)
        tools = await ToolSet.assemble([source])
        interaction = HeadlessInteraction()
        async with ChatClient() as client:
            caller = ModelCaller(resolve_model("m", Config(base_url=sys.argv[1])), client, interaction=interaction)
            task = asyncio.current_task()
            asyncio.get_running_loop().add_signal_handler(signal.SIGINT, task.cancel)
            try:
                await run_tool_loop(caller, [user_message("go")], tools, interaction)
            except asyncio.CancelledError:
                print(json.dumps({"cancelled": True}), flush=True)
                sys.exit(130)

    asyncio.run(main())
    """
)


def test_sigint_during_a_shell_tool_leaves_no_process(llm_server: ScriptedOpenAIServer) -> None:
    llm_server.push(tool_calls(call("tool__hang")), text("never"))
    proc = subprocess.Popen(
        [sys.executable, "-c", SIGINT_SCRIPT, llm_server.url], cwd=REPO, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        pgid = json.loads(proc.stdout.readline())["pgid"]
        deadline = time.monotonic() + 5
        while len(live_group_members(pgid)) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(live_group_members(pgid)) == 3  # sh and both sleeps
        os.kill(proc.pid, signal.SIGINT)
        assert proc.wait(10) == 130
        assert json.loads(proc.stdout.readline()) == {"cancelled": True}
        assert live_group_members(pgid) == []
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


async def test_events_of_a_round(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    interaction = HeadlessInteraction()
    llm_server.push(tool_calls(call("tool__echo", {"msg": "e"}, id="x"), usage=U), text("done"))
    await run(llm_server, client, [echo_tool()], interaction)
    assert interaction.of_type(ToolCallStarted) == [ToolCallStarted("x", "tool__echo", '{"msg":"e"}')]
    assert interaction.of_type(ToolCallFinished) == [ToolCallFinished("x", "tool__echo", "e", False)]
    assert interaction.of_type(UsageReported) == [UsageReported(Usage(10, 2, 12), 1)]
    assert interaction.of_type(TextDelta) == []  # nothing streamed
