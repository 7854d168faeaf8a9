"""Issue 19 in the editor: lait/run of an agent whose model answers with two calls -- one with
arguments that are not JSON (or hold a NUL byte), one shell tool whose ``sh -c`` leaves a
background child holding the pipes (``timeout: 2``). Every run ends (the old server hung in 3 of 4
tries) and leaves no process; twenty runs at once, each in its own project with its own scripted
model. Also: ``exit`` without ``shutdown`` and a hang-up (SIGHUP) in the middle of a run leave no
process of the run behind."""

from __future__ import annotations

import asyncio
import signal
import uuid
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.lsp.run_support import RunClient, pid_alive, run_client, wait_until
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.processes import running_with_marker

REPEAT = 20
AGENT = "---\nname: pair\ntools: [bg, echo]\n---\nGo.\n"


def project(root: Path, llm: ScriptedOpenAIServer) -> Path:
    root.mkdir(parents=True)
    (root / "lait.config.yml").write_text(
        f"""default:
  model: test-model
models:
  test-model:
    - provider: {{base_url: "{llm.url}"}}
      model_id: scripted
tools:
  bg:
    command: [sh, -c, 'sleep 30 & echo started']
    timeout: 2
  echo:
    command: [echo, '{{{{ input.a }}}}']
  slow:
    command: [sh, -c, 'sleep 300 & sleep 300; wait']
""",
        encoding="utf-8",
    )
    agent = root / "pair.md"
    agent.write_text(AGENT, encoding="utf-8")
    return agent


def children(marker: str, client: RunClient) -> list[int]:
    server = client._server
    assert server is not None
    return [pid for pid in running_with_marker(marker) if pid != server.pid]


async def twenty_runs(tmp_path: Path, arguments: str) -> list[dict[str, Any]]:
    marker = uuid.uuid4().hex
    with ExitStack() as stack:
        agents = []
        for i in range(REPEAT):
            llm = stack.enter_context(ScriptedOpenAIServer())
            bad, fork = call("tool__echo", arguments, id="bad"), call("tool__bg", {}, id="bg")
            llm.push(tool_calls(*((bad, fork) if i % 2 == 0 else (fork, bad))), text("done"))
            agents.append(project(tmp_path / f"p{i}", llm))
        async with run_client(tmp_path, approve="never", env={"LAIT_TEST_MARKER": marker}) as client:
            runs = [
                client.protocol.send_request_async(
                    "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "go", "runId": f"r{i}"}
                )
                for i, agent in enumerate(agents)
            ]
            results = await asyncio.wait_for(asyncio.gather(*runs), 90)  # a hang fails here
            # the server still answers
            assert await client.protocol.send_request_async("lait/status", {}) is not None
            assert await wait_until(lambda: children(marker, client) == [], 5), children(marker, client)
    return list(results)


async def test_invalid_json_beside_a_forking_tool(tmp_path: Path) -> None:
    for result in await twenty_runs(tmp_path, "{bad json"):
        assert result["status"] == "failed", result
        assert "not valid JSON" in result["error"]


async def test_nul_byte_beside_a_forking_tool(tmp_path: Path) -> None:
    for result in await twenty_runs(tmp_path, '{"a": "x\\u0000y"}'):
        assert (result["status"], result["output"]) == ("ok", "done"), result


@pytest.mark.parametrize("how", ["exit", "sighup"])
async def test_a_run_leaves_no_process_when_the_server_ends(tmp_path: Path, how: str) -> None:
    marker = uuid.uuid4().hex
    with ScriptedOpenAIServer() as llm:
        agent = project(tmp_path / "p", llm)
        agent.write_text(AGENT.replace("[bg, echo]", "[slow]"), encoding="utf-8")
        llm.push(tool_calls(call("tool__slow", {}, id="c1")), text("never sent"))
        async with run_client(tmp_path, approve="never", env={"LAIT_TEST_MARKER": marker}) as client:
            client.protocol.send_request(
                "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "go", "runId": "r1"}
            )
            assert await wait_until(lambda: len(children(marker, client)) == 3, 30)  # sh, two sleeps
            started = children(marker, client)
            server = client._server
            assert server is not None
            client.shut_down = True
            if how == "exit":
                client.protocol.notify("exit", None)
            else:
                server.send_signal(signal.SIGHUP)
            await asyncio.wait_for(server.wait(), 20)
            assert await wait_until(lambda: not any(pid_alive(p) for p in started), 5), started
            assert running_with_marker(marker) == []
