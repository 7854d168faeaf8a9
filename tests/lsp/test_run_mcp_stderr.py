"""lait/run and lait/runEvent say why a run failed on its MCP server (issue 25): the server's last
stderr lines are part of the run's error, of the failed step's event and of ``runFinished`` (what the
VS Code Runs view shows), with secrets masked; the server's processes are gone afterwards. A real MCP
server that fails (tests/peers/mcp_failing_server.py) and the scripted model server."""

from __future__ import annotations

import sys
from pathlib import Path

from tests.cli.test_mcp_stderr import CANARY, PEER, processes_in
from tests.lsp.run_support import run_client
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls


def project(root: Path, llm: ScriptedOpenAIServer, mode: str) -> Path:
    (root / "lait.config.yml").write_text(
        f"base_url: {llm.url}\ndefault: {{model: m}}\n"
        "mcp_servers:\n"
        "  notes:\n"
        f"    command: {sys.executable}\n"
        f"    args: [{PEER}, {mode}]\n"
        "    cwd: .\n"
        "    env: {NOTES_TOKEN: '${NOTES_TOKEN}'}\n",
        encoding="utf-8",
    )
    path = root / "wf.yml"
    path.write_text("steps:\n  - id: ask\n    prompt: hi\n    mcp: [notes]\n", encoding="utf-8")
    return path


async def test_a_failing_server_s_stderr_is_in_the_run_s_error_and_events(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        path = project(tmp_path, llm, "secret")
        async with run_client(tmp_path, env={"NOTES_TOKEN": CANARY}) as client:
            params = {"uri": path.as_uri(), "kind": "workflow", "runId": "f1", "prompt": "go"}
            result = await client.protocol.send_request_async("lait/run", params)
            events = client.events_of("f1")
        assert llm.requests == []
    assert result["status"] == "failed", result
    error = result["error"]
    assert "MCP server 'notes': could not connect" in error
    assert error.endswith(
        "the server process exited (exit status: 1); its stderr ended with:\n"
        "    token=***\n"
        "    notes server starting\n"
        "    Traceback (most recent call last):\n" + error.split("Traceback (most recent call last):\n", 1)[1]
    )
    assert error.splitlines()[-1] == "    ModuleNotFoundError: No module named 'lait_no_such_module'"
    [step] = [e for e in events if e["type"] == "stepFinished"]
    assert step["status"] == "failed" and "    ModuleNotFoundError: No module named" in step["error"]
    [finished] = [e for e in events if e["type"] == "runFinished"]
    assert finished["error"] == error
    assert CANARY not in repr(result) + repr(events)
    assert processes_in(tmp_path) == []


async def test_a_server_that_dies_in_a_call(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        path = project(tmp_path, llm, "call")
        llm.push(tool_calls(call("notes__crash", {"why": "disk full"})), text("never"))
        async with run_client(tmp_path, env={"NOTES_TOKEN": CANARY}) as client:
            client.answer("lait/approveToolCall", {"decision": "once"})
            params = {"uri": path.as_uri(), "kind": "workflow", "runId": "f2", "prompt": "go"}
            result = await client.protocol.send_request_async("lait/run", params)
    assert result["status"] == "failed", result
    assert "calling tool 'crash' failed" in result["error"]
    assert result["error"].endswith("its stderr ended with:\n    crashing: disk full")
    assert processes_in(tmp_path) == []
