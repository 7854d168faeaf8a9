"""The edges of the editor-run surface: the server's default approval setting, running through
``workspace/executeCommand`` (``lait.server.run``), usage and text events, a client's own work-done
token, and bad input (malformed params, an unknown input, a broken workflow, a broken config) as
located errors -- never a traceback."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types as lsp
from pygls.exceptions import JsonRpcException

from tests.lsp.run_support import run_client, write_project
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

AGENT = "---\nname: helper\ntools: [shout]\n---\nYou help.\n"


def agent_file(root: Path) -> Path:
    path = root / "agents" / "helper.md"
    path.parent.mkdir(exist_ok=True)
    path.write_text(AGENT, encoding="utf-8")
    return path


async def test_by_default_every_tool_call_asks(tmp_path: Path) -> None:
    """No ``approveTools`` setting at all: the editor default is ``always``."""
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        agent = agent_file(tmp_path)
        llm.push(
            tool_calls(call("tool__shout", {"text": "a"})),
            tool_calls(call("tool__shout", {"text": "b"})),
            text("done"),
        )
        async with run_client(tmp_path, approve=None) as client:
            client.answer("lait/approveToolCall", {"decision": "once"}, {"decision": "deny"})
            result = await client.protocol.send_request_async(
                "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "p", "runId": "d1"}
            )
            assert result == {"runId": "d1", "status": "ok", "output": "done"}
            assert [(m, p["tool"]) for m, p in client.dialogs] == [
                ("lait/approveToolCall", "tool__shout"),
                ("lait/approveToolCall", "tool__shout"),
            ]
            tool_results = [m["content"] for m in llm.bodies[-1]["messages"] if m["role"] == "tool"]
            assert tool_results == ["A", "denied by the user in the editor"]


# pytest-lsp only knows tokens it created itself; a token sent in the params is the client's own too
@pytest.mark.filterwarnings("ignore:Unknown progress token:pytest_lsp.checks.LspSpecificationWarning")
async def test_run_command_usage_events_and_a_client_token(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        agent = agent_file(tmp_path)
        async with run_client(tmp_path) as client:
            assert client.init_result is not None
            provider = client.init_result.capabilities.execute_command_provider
            assert provider is not None
            assert {"lait.server.run", "lait.server.dryRun"} <= set(provider.commands)

            # lait.server.run with a lens target and the options: the run, its dialog, usage events
            usage = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
            llm.push(tool_calls(call("tool__shout", {"text": "x"}), usage=usage), text("done", usage=usage))
            client.answer("lait/approveToolCall", {"decision": "once"})
            target = {"uri": agent.as_uri(), "kind": "agent", "prompt": "required", "name": "helper"}
            result = await client.workspace_execute_command_async(
                lsp.ExecuteCommandParams(
                    command="lait.server.run", arguments=[target, {"prompt": "hello", "runId": "c1"}]
                )
            )
            assert result == {"runId": "c1", "status": "ok", "output": "done"}
            assert llm.bodies[0]["messages"][-1] == {"role": "user", "content": "hello"}
            assert [p["runId"] for _, p in client.dialogs] == ["c1"]
            events = client.events_of("c1")
            usages = [e for e in events if e["type"] == "usage"]
            assert [(u["promptTokens"], u["completionTokens"], u["totalTokens"]) for u in usages] == [
                (7, 3, 10)
            ] * 2
            assert "".join(e["text"] for e in events if e["type"] == "text") == "done"
            kinds = [e["type"] for e in events if e["type"] != "round"]
            assert kinds.index("toolCall") < kinds.index("toolResult") < kinds.index("text")
            assert kinds[0] == "runStarted" and kinds[-1] == "runFinished"

            # bad command arguments: a JSON-RPC error naming the command, the server lives on
            with pytest.raises(JsonRpcException) as bad:
                await client.workspace_execute_command_async(
                    lsp.ExecuteCommandParams(command="lait.server.run", arguments=[1, 2, 3])
                )
            assert "lait.server.run: expected the arguments [target, options?]" in str(bad.value)

            # the client's own work-done token carries the progress (no window/workDoneProgress/create)
            llm.push(text("again"))
            params = {
                "uri": agent.as_uri(),
                "kind": "agent",
                "prompt": "p",
                "runId": "c2",
                "workDoneToken": "my-token",
            }
            result = await client.protocol.send_request_async("lait/run", params)
            assert result["status"] == "ok"
            reports = client.progress_reports.get("my-token")
            assert reports is not None and reports[0].kind == "begin" and reports[-1].kind == "end"
            assert "lait-run-c2" not in client.progress_reports


async def test_bad_input_is_a_located_error(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        flows = tmp_path / "workflows"
        flows.mkdir()
        good = flows / "good.yml"
        good.write_text("inputs:\n  topic: string\nsteps:\n  - jq: '$inputs.topic'\n", encoding="utf-8")
        broken = flows / "broken.yml"
        broken.write_text("steps:\n  - id: a\n    promt: 'typo'\n", encoding="utf-8")
        async with run_client(tmp_path) as client:
            # malformed params: InvalidParams (-32602) with the reason
            with pytest.raises(JsonRpcException) as bad:
                await client.protocol.send_request_async("lait/run", {"uri": good.as_uri(), "dryRun": "yes"})
            assert bad.value.code == -32602 and "'dryRun' must be a boolean" in str(bad.value)

            # an input name that is no Python identifier reaches the engine unchanged (no namedtuple)
            unknown = await client.protocol.send_request_async(
                "lait/run", {"uri": good.as_uri(), "inputs": {"topic": "t", "my-extra": 1}, "runId": "u1"}
            )
            assert unknown["status"] == "failed"
            assert "unknown input 'my-extra'" in unknown["error"] and unknown["error"].startswith("lait: ")
            ok = await client.protocol.send_request_async(
                "lait/run", {"uri": good.as_uri(), "inputs": {"topic": "tea"}, "runId": "u2"}
            )
            assert (ok["status"], ok["output"]) == ("ok", "tea")

            # a workflow with errors: nothing runs, the error names file:line:col
            failed = await client.protocol.send_request_async(
                "lait/run", {"uri": broken.as_uri(), "prompt": "p", "runId": "b1"}
            )
            assert failed["status"] == "failed" and failed["output"] == ""
            assert f"{broken}:2:5: LAIT308 " in failed["error"], failed["error"]
            assert "Traceback" not in failed["error"]
            assert llm.bodies == []

            # a broken lait.config.yml: the run fails with the config's location
            config = tmp_path / "lait.config.yml"
            config.write_text("models: [\n", encoding="utf-8")
            agent = agent_file(tmp_path)
            no_config = await client.protocol.send_request_async(
                "lait/run", {"uri": agent.as_uri(), "prompt": "p", "runId": "k1"}
            )
            assert no_config["status"] == "failed"
            assert no_config["error"].startswith(f"lait: {config}:"), no_config["error"]
            assert client.events_of("k1")[-1]["error"] == no_config["error"]
            assert client.dialogs == []


async def test_a_run_id_in_use_is_refused_even_when_sent_back_to_back(tmp_path: Path) -> None:
    """The second request arrives while the first still creates its progress token."""
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        agent = agent_file(tmp_path)
        llm.push(tool_calls(call("tool__shout", {"text": "x"})), text("done"))
        async with run_client(tmp_path) as client:
            client.answer("lait/approveToolCall", {"decision": "once"})
            params = {"uri": agent.as_uri(), "kind": "agent", "prompt": "p", "runId": "same"}
            first = client.protocol.send_request_async("lait/run", params)
            second = client.protocol.send_request_async("lait/run", params)
            results = await asyncio.gather(first, second, return_exceptions=True)
            assert results[0] == {"runId": "same", "status": "ok", "output": "done"}, results
            assert isinstance(results[1], JsonRpcException), results
            assert "runId 'same' is already running" in str(results[1])
            assert len(client.dialogs) == 1 and len(llm.bodies) == 2


async def test_a_run_of_a_file_with_unsaved_changes_warns(tmp_path: Path) -> None:
    """A run reads the saved file; when the editor's buffer differs, the run says so first."""
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        flow = tmp_path / "workflows" / "echo.yml"
        flow.parent.mkdir()
        saved = "steps:\n  - jq: '\"saved\"'\n"
        flow.write_text(saved, encoding="utf-8")
        async with run_client(tmp_path) as client:

            async def run(run_id: str, buffer: str) -> list[dict[str, object]]:
                client.text_document_did_open(
                    lsp.DidOpenTextDocumentParams(
                        text_document=lsp.TextDocumentItem(
                            uri=flow.as_uri(), language_id="yaml", version=1, text=buffer
                        )
                    )
                )
                result = await client.protocol.send_request_async(
                    "lait/run", {"uri": flow.as_uri(), "prompt": "p", "runId": run_id}
                )
                assert (result["status"], result["output"]) == ("ok", "saved")
                client.text_document_did_close(
                    lsp.DidCloseTextDocumentParams(
                        text_document=lsp.TextDocumentIdentifier(uri=flow.as_uri())
                    )
                )
                return [e for e in client.events_of(run_id) if e["type"] == "warning"]

            assert await run("s1", saved.replace("\n", "\r\n")) == []
            assert await run("s2", saved.replace("saved", "edited")) == [
                {
                    "type": "warning",
                    "message": "'echo.yml' has unsaved changes in the editor: running the saved file",
                }
            ]
