"""Editor-run details: session grants outlive a run (they live as long as the server),
`lait.approveTools` changes through workspace/didChangeConfiguration, cancelling the work-done
progress cancels the run, lait/status without a config and with a broken one."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types as lsp

from tests.lsp.run_support import HANG, run_client, wait_until, write_project
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

AGENT = "---\nname: helper\ntools: [shout]\n---\nYou help.\n"


def agent_file(tmp_path: Path) -> Path:
    path = tmp_path / "agents" / "helper.md"
    path.parent.mkdir()
    path.write_text(AGENT, encoding="utf-8")
    return path


async def test_settings_change_and_session_grant_outlives_the_run(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        agent = agent_file(tmp_path)
        async with run_client(tmp_path) as client:

            async def run(run_id: str) -> None:
                llm.push(tool_calls(call("tool__shout", {"text": run_id})), text(f"done {run_id}"))
                result = await client.protocol.send_request_async(
                    "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "p", "runId": run_id}
                )
                assert result == {"runId": run_id, "status": "ok", "output": f"done {run_id}"}
                tool_results = [m["content"] for m in llm.bodies[-1]["messages"] if m["role"] == "tool"]
                assert tool_results == [run_id.upper()]

            for value, run_id in (("never", "n1"), ("always", "a1"), ("always", "a2")):
                client.workspace_did_change_configuration(
                    lsp.DidChangeConfigurationParams(settings={"lait": {"approveTools": value}})
                )
                if run_id == "a1":
                    client.answer("lait/approveToolCall", {"decision": "session"})
                await run(run_id)
            # never: no dialog; always: asked once, and the session grant held for the next run
            assert [p["runId"] for _, p in client.dialogs] == ["a1"]


async def test_cancelling_the_progress_cancels_the_run(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        agent = agent_file(tmp_path)
        llm.push(tool_calls(call("tool__shout", {"text": "x"})), text("never"))
        async with run_client(tmp_path) as client:
            client.answer("lait/approveToolCall", HANG)
            future = client.protocol.send_request(
                "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "p", "runId": "pc"}
            )
            assert await wait_until(lambda: len(client.dialogs) == 1, 30)
            client.window_work_done_progress_cancel(lsp.WorkDoneProgressCancelParams(token="lait-run-pc"))
            with pytest.raises(Exception, match="cancel"):
                await asyncio.wait_for(asyncio.wrap_future(future), 20)
            assert await wait_until(lambda: client.withdrawn == 1, 10)
            assert client.events_of("pc")[-1] == {
                "type": "runFinished",
                "status": "cancelled",
                "seconds": client.events_of("pc")[-1]["seconds"],
            }
            assert client.progress_reports["lait-run-pc"][-1].kind == "end"


async def test_status(tmp_path: Path) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "lait.config.yml").write_text("models: [\n", encoding="utf-8")
    async with run_client(tmp_path) as client:
        none = await client.protocol.send_request_async("lait/status", {"uri": (plain / "a.yml").as_uri()})
        assert none["configFile"] is None and none["configError"] is None and none["version"]
        bad = await client.protocol.send_request_async("lait/status", {"uri": (broken / "a.yml").as_uri()})
        assert bad["configFile"] == str(broken / "lait.config.yml")
        assert bad["configError"].startswith(f"lait: {broken / 'lait.config.yml'}:")


async def test_elicitation_not_allowed_is_declined_without_a_dialog(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        config = tmp_path / "lait.config.yml"
        config.write_text(config.read_text().replace("allow_elicitation: true", "allow_elicitation: false"))
        agent = tmp_path / "agents" / "notes.md"
        agent.parent.mkdir()
        agent.write_text("---\nname: notes\nmcp: [notes]\n---\nYou save notes.\n", encoding="utf-8")
        llm.push(tool_calls(call("notes__save_note", {"text": "x"})), text("done"))
        async with run_client(tmp_path, approve="never") as client:
            result = await client.protocol.send_request_async(
                "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "p"}
            )
            assert result["status"] == "ok", result
            assert client.dialogs == []
            tool_results = [m["content"] for m in llm.bodies[-1]["messages"] if m["role"] == "tool"]
            assert tool_results[0].startswith("not saved: decline")
            assert any("allow_elicitation is false" in m.message for m in client.log_messages)


async def test_free_text_ask_without_lait_uses_the_default_or_fails(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        flows = tmp_path / "workflows"
        flows.mkdir()
        with_default = flows / "with.yml"
        with_default.write_text('steps:\n  - ask: "Name?"\n    default: anon\n', encoding="utf-8")
        without = flows / "without.yml"
        without.write_text('steps:\n  - ask: "Name?"\n', encoding="utf-8")
        async with run_client(tmp_path, lait=False) as client:
            ok = await client.protocol.send_request_async(
                "lait/run", {"uri": with_default.as_uri(), "kind": "workflow", "prompt": "p"}
            )
            assert (ok["status"], ok["output"]) == ("ok", "anon")
            failed = await client.protocol.send_request_async(
                "lait/run", {"uri": without.as_uri(), "kind": "workflow", "prompt": "p"}
            )
            assert failed["status"] == "failed" and "cannot answer free-text questions" in failed["error"]
            assert client.dialogs == []
