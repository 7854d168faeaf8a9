"""lait/run of an agent from a pytest-lsp client: the scripted model server, a shell tool under
approval and a real MCP server that elicits; every dialog answer and its effect."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from lait_ls.run import EDITOR_DENIAL
from tests.lsp.run_support import run_client, write_project
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

AGENT = """---
name: helper
description: Shouts and saves notes.
tools: [shout]
mcp: [notes]
---
You help.
"""


def tool_messages(llm: ScriptedOpenAIServer) -> list[list[str]]:
    """The tool results each request carried (what the model received; an MCP result's first
    paragraph, without the structuredContent lait appends)."""
    out = []
    for body in llm.bodies:
        out.append([m["content"].split("\n\n")[0] for m in body["messages"] if m["role"] == "tool"])
    return out


async def run(client: Any, uri: str, run_id: str, prompt: str = "go", **extra: Any) -> Any:
    params = {"uri": uri, "kind": "agent", "prompt": prompt, "runId": run_id, **extra}
    return await client.protocol.send_request_async("lait/run", params)


async def test_agent_run_with_approvals_and_elicitation(tmp_path: Path) -> None:
    """Allow once / for the session / deny, and accept / decline / cancel, in one run: the exact
    dialog sequence, the events, and what the model received after each answer."""
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        agent = tmp_path / "agents" / "helper.md"
        agent.parent.mkdir()
        agent.write_text(AGENT, encoding="utf-8")
        llm.push(
            tool_calls(call("tool__shout", {"text": "hi"}, id="c1")),
            tool_calls(call("notes__save_note", {"text": "buy milk"}, id="c2")),
            tool_calls(call("notes__save_note", {"text": "eggs"}, id="c3")),
            tool_calls(call("notes__save_note", {"text": "bread"}, id="c4")),
            tool_calls(call("tool__shout", {"text": "again"}, id="c5")),
            text("all done"),
        )
        async with run_client(tmp_path) as client:
            client.answer(
                "lait/approveToolCall", {"decision": "once"}, {"decision": "session"}, {"decision": "deny"}
            )
            client.answer(
                "lait/elicit",
                {"action": "accept", "content": {"title": "Milk", "priority": 2}},
                {"action": "decline"},
                {"action": "cancel"},
            )
            result = await run(client, agent.as_uri(), "r1")
            assert result == {"runId": "r1", "status": "ok", "output": "all done"}

            assert [m for m, _ in client.dialogs] == [
                "lait/approveToolCall",
                "lait/approveToolCall",
                "lait/elicit",
                "lait/elicit",  # notes__save_note was allowed for the session: no second approval
                "lait/elicit",
                "lait/approveToolCall",  # tool__shout was allowed once only
            ]
            first, second, elicit, _, _, last = (p for _, p in client.dialogs)
            assert first["tool"] == "tool__shout" and first["runId"] == "r1" and first["kind"] == "tool"
            assert json.loads(first["arguments"]) == {"text": "hi"}
            assert first["command"][-1] == "hi" and first["command"][-2].startswith("import sys")
            assert second["tool"] == "notes__save_note" and second["server"] == "notes"
            assert "command" not in second
            assert elicit["server"] == "notes" and elicit["mode"] == "form" and elicit["runId"] == "r1"
            assert elicit["message"] == "Save the note 'buy milk'?"
            assert set(elicit["requestedSchema"]["properties"]) == {"title", "priority"}
            assert elicit["requestedSchema"]["required"] == ["title", "priority"]
            assert last["tool"] == "tool__shout" and json.loads(last["arguments"]) == {"text": "again"}

            results = [
                "HI",
                "saved 'Milk' (priority 2): buy milk",
                "not saved: decline",
                "not saved: cancel",
                EDITOR_DENIAL,
            ]
            assert tool_messages(llm) == [results[:i] for i in range(6)]

            events = client.events_of("r1")
            assert events[0] == {
                "type": "runStarted",
                "uri": agent.as_uri(),
                "kind": "agent",
                "name": "helper",
            }
            tools = [(e["type"], e.get("name")) for e in events if e["type"].startswith("tool")]
            assert tools == [
                ("toolCall", "tool__shout"),
                ("toolResult", "tool__shout"),
                *[("toolCall", "notes__save_note"), ("toolResult", "notes__save_note")] * 3,
                ("toolDenied", "tool__shout"),
            ]
            assert [e["result"].split("\n\n")[0] for e in events if e["type"] == "toolResult"] == results[:4]
            assert "".join(e["text"] for e in events if e["type"] == "text") == "all done"
            assert events[-1]["type"] == "runFinished"
            assert events[-1]["status"] == "ok" and events[-1]["output"] == "all done"


async def test_lens_and_status(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        agent = tmp_path / "agents" / "helper.md"
        agent.parent.mkdir()
        agent.write_text(AGENT, encoding="utf-8")
        async with run_client(tmp_path) as client:
            client.text_document_did_open(
                lsp.DidOpenTextDocumentParams(
                    text_document=lsp.TextDocumentItem(
                        uri=agent.as_uri(), language_id="markdown", version=1, text=AGENT
                    )
                )
            )
            lenses = await client.text_document_code_lens_async(
                lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri=agent.as_uri()))
            )
            assert lenses is not None
            [lens] = lenses
            assert lens.command is not None
            assert (lens.command.title, lens.command.command) == ("▶ Run agent", "lait.runAgent")
            assert list(lens.command.arguments or ()) == [
                {"uri": agent.as_uri(), "kind": "agent", "prompt": "required", "name": "helper"}
            ]
            status = await client.protocol.send_request_async("lait/status", {"uri": agent.as_uri()})
            assert status["configFile"] == str(tmp_path / "lait.config.yml")
            assert status["configError"] is None
