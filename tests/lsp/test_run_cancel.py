"""Cancelling lait/run ($/cancelRequest): tool process trees are killed and MCP servers closed (no
process is left), an open dialog is withdrawn at the client, and the next run's dialogs still work."""

from __future__ import annotations

import asyncio
import signal
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from tests.lsp.run_support import HANG, pid_alive, run_client, wait_until, write_project
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

AGENT = """---
name: sleeper
tools: [sleepy, shout]
mcp: [notes]
---
You wait.
"""


def pids(path: Path) -> list[int]:
    return [int(x) for x in path.read_text().split()] if path.exists() else []


async def test_cancel_kills_tool_trees_and_mcp_servers(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids.txt"
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm, pid_file=pid_file)
        agent = tmp_path / "agents" / "sleeper.md"
        agent.parent.mkdir()
        agent.write_text(AGENT, encoding="utf-8")
        llm.push(tool_calls(call("tool__sleepy", {}, id="c1")), text("never sent"))
        async with run_client(tmp_path, approve="never") as client:
            future = client.protocol.send_request(
                "lait/run",
                {"uri": agent.as_uri(), "kind": "agent", "prompt": "wait", "runId": "r1"},
                msg_id="run-1",
            )
            # the MCP server (listed before the first request), the tool and its child
            assert await wait_until(lambda: len(pids(pid_file)) == 3, 30), pids(pid_file)
            started = pids(pid_file)
            assert all(pid_alive(p) for p in started)
            client.cancel_request(lsp.CancelParams(id="run-1"))
            with pytest.raises(Exception, match="cancel"):
                await asyncio.wait_for(asyncio.wrap_future(future), 20)
            assert await wait_until(lambda: not any(pid_alive(p) for p in started), 10), [
                p for p in started if pid_alive(p)
            ]
            events = client.events_of("r1")
            assert [e["type"] for e in events][-1] == "runFinished"
            assert events[-1]["status"] == "cancelled"
            assert len(llm.bodies) == 1  # the answer after the tool was never asked for


async def test_cancel_during_a_dialog_withdraws_it_and_frees_the_lock(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        agent = tmp_path / "agents" / "sleeper.md"
        agent.parent.mkdir()
        agent.write_text(AGENT, encoding="utf-8")
        llm.push(
            tool_calls(call("tool__shout", {"text": "one"}, id="c1")),
            tool_calls(call("tool__shout", {"text": "two"}, id="c2")),
            text("second run done"),
        )
        async with run_client(tmp_path) as client:
            client.answer("lait/approveToolCall", HANG, {"decision": "once"})
            future = client.protocol.send_request(
                "lait/run",
                {"uri": agent.as_uri(), "kind": "agent", "prompt": "a", "runId": "r1"},
                msg_id="run-1",
            )
            assert await wait_until(lambda: len(client.dialogs) == 1, 30)
            with pytest.raises(Exception, match="runId 'r1' is already running"):
                await client.protocol.send_request_async(
                    "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "a", "runId": "r1"}
                )
            client.cancel_request(lsp.CancelParams(id="run-1"))
            with pytest.raises(Exception, match="cancel"):
                await asyncio.wait_for(asyncio.wrap_future(future), 20)
            assert await wait_until(lambda: client.withdrawn == 1, 10)

            result = await client.protocol.send_request_async(
                "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "b", "runId": "r2"}
            )
            assert result["status"] == "ok" and result["output"] == "second run done"
            assert [p["runId"] for _, p in client.dialogs] == ["r1", "r2"]


async def test_editor_shutdown_during_a_run_leaves_no_process(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids.txt"
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm, pid_file=pid_file)
        agent = tmp_path / "agents" / "sleeper.md"
        agent.parent.mkdir()
        agent.write_text(AGENT, encoding="utf-8")
        llm.push(tool_calls(call("tool__sleepy", {}, id="c1")), text("never sent"))
        async with run_client(tmp_path, approve="never") as client:
            client.protocol.send_request(
                "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "wait", "runId": "r1"}
            )
            assert await wait_until(lambda: len(pids(pid_file)) == 3, 30), pids(pid_file)
            started = pids(pid_file)
            client.shut_down = True
            await asyncio.wait_for(client.shutdown_session(), 20)
            # answered only once the run has ended: nothing is left when the editor exits right away
            assert not any(pid_alive(p) for p in started), [p for p in started if pid_alive(p)]


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
async def test_sigterm_to_the_server_kills_the_children_of_runs(tmp_path: Path, signum: int) -> None:
    """An editor force-stopping lait-ls (Neovim's client:stop(true) sends SIGTERM) mid-run; SIGINT:
    Ctrl-C where `lait ls` was started by hand (it hung in pygls's shutdown, waiting for stdin)."""
    pid_file = tmp_path / "pids.txt"
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm, pid_file=pid_file)
        agent = tmp_path / "agents" / "sleeper.md"
        agent.parent.mkdir()
        agent.write_text(AGENT, encoding="utf-8")
        llm.push(tool_calls(call("tool__sleepy", {}, id="c1")), text("never sent"))
        async with run_client(tmp_path, approve="never") as client:
            client.protocol.send_request(
                "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "wait", "runId": "r1"}
            )
            assert await wait_until(lambda: len(pids(pid_file)) == 3, 30), pids(pid_file)
            started = pids(pid_file)
            server = client._server
            assert server is not None
            client.shut_down = True
            server.send_signal(signum)
            assert await asyncio.wait_for(server.wait(), 10) == -signum
            assert await wait_until(lambda: not any(pid_alive(p) for p in started), 5), [
                p for p in started if pid_alive(p)
            ]


async def test_cancelling_one_run_hands_the_dialog_to_the_run_waiting_for_it(tmp_path: Path) -> None:
    """Two runs in flight; the first hangs in its approval dialog, the second waits for the dialog
    lock. Cancelling the first withdraws its dialog and the second run's dialog comes up and finishes."""
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        agent = tmp_path / "agents" / "sleeper.md"
        agent.parent.mkdir()
        agent.write_text(AGENT, encoding="utf-8")
        llm.push(
            tool_calls(call("tool__shout", {"text": "one"}, id="c1")),
            tool_calls(call("tool__shout", {"text": "two"}, id="c2")),
            text("second run done"),
        )
        async with run_client(tmp_path) as client:
            client.answer("lait/approveToolCall", HANG, {"decision": "once"})
            first = client.protocol.send_request(
                "lait/run",
                {"uri": agent.as_uri(), "kind": "agent", "prompt": "a", "runId": "r1"},
                msg_id="run-1",
            )
            assert await wait_until(lambda: len(client.dialogs) == 1, 30)
            second = client.protocol.send_request_async(
                "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "b", "runId": "r2"}
            )
            second_task = asyncio.ensure_future(second)
            assert await wait_until(lambda: len(llm.bodies) == 2, 30)  # r2 asked for its tool call
            await asyncio.sleep(0.3)
            assert len(client.dialogs) == 1 and not second_task.done()  # ...and waits for the dialog
            client.cancel_request(lsp.CancelParams(id="run-1"))
            with pytest.raises(Exception, match="cancel"):
                await asyncio.wait_for(asyncio.wrap_future(first), 20)
            result = await asyncio.wait_for(second_task, 20)
            assert result == {"runId": "r2", "status": "ok", "output": "second run done"}
            assert [p["runId"] for _, p in client.dialogs] == ["r1", "r2"]
            assert client.withdrawn == 1 and client.peak == 1
            tool_results = [m["content"] for m in llm.bodies[-1]["messages"] if m["role"] == "tool"]
            assert tool_results == ["TWO"]
