"""lait/run of a workflow from a pytest-lsp client (the issue's acceptance): a prompt step with a shell
tool under approval and an eliciting MCP server, then an ``ask:`` step; every answer path, the exact
event sequence and what the model received. Also: the fallbacks for a client without
``experimental.lait``, ``approveTools: never``, tool_policy, lenses, dry run and runs in parallel."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from lsprotocol import types as lsp

from lait_ls.run import EDITOR_DENIAL
from tests.lsp.run_support import RunClient, run_client, write_project
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

WORKFLOW = """name: notes-flow
description: Shout, save notes, ask.
inputs:
  topic: string
  count:
    type: integer
    default: 1
steps:
  - id: work
    prompt: "Work on {{ inputs.topic }}"
    tools: [shout]
    mcp: [notes]
  - id: keep
    ask: "Keep the result for {{ inputs.topic }}?"
    choices: ["yes", "no"]
  - jq: '{answer: $steps.work, kept: $steps.keep, count: $inputs.count}'
"""

TOOL_ROUNDS = [
    tool_calls(call("tool__shout", {"text": "hi"}, id="c1")),
    tool_calls(call("notes__save_note", {"text": "buy milk"}, id="c2")),
    tool_calls(call("notes__save_note", {"text": "eggs"}, id="c3")),
    tool_calls(call("notes__save_note", {"text": "bread"}, id="c4")),
    tool_calls(call("tool__shout", {"text": "again"}, id="c5")),
    text("worked"),
]


def first_paragraphs(llm: ScriptedOpenAIServer) -> list[list[str]]:
    """Per request, the tool results it carried (MCP results without lait's structuredContent part)."""
    return [
        [m["content"].split("\n\n")[0] for m in body["messages"] if m["role"] == "tool"]
        for body in llm.bodies
    ]


def project(tmp_path: Path, llm: ScriptedOpenAIServer, workflow: str = WORKFLOW) -> Path:
    write_project(tmp_path, llm)
    path = tmp_path / "workflows" / "notes.yml"
    path.parent.mkdir(exist_ok=True)
    path.write_text(workflow, encoding="utf-8")
    return path


async def run(client: RunClient, path: Path, run_id: str, **extra: Any) -> Any:
    params = {"uri": path.as_uri(), "kind": "workflow", "runId": run_id, "inputs": {"topic": "food"}, **extra}
    return await client.protocol.send_request_async("lait/run", params)


def compact(events: list[dict[str, Any]]) -> list[str]:
    """The event sequence in short: type (and name/label where it tells more)."""
    out = []
    for e in events:
        kind = e["type"]
        if kind in ("usage", "round", "reasoning"):
            continue
        if kind.startswith("tool"):
            out.append(f"{kind} {e['name']}")
        elif kind.startswith("step"):
            out.append(f"{kind} {e['label']}" + (f" {e['status']}" if kind == "stepFinished" else ""))
        elif kind in ("runStarted", "runFinished"):
            out.append(f"{kind}" + (f" {e['status']}" if kind == "runFinished" else ""))
        else:
            out.append(kind)
    return out


async def test_workflow_run_with_every_answer(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        path = project(tmp_path, llm)
        llm.push(*TOOL_ROUNDS)
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
            client.answer("lait/ask", {"answer": "yes"})
            result = await run(client, path, "w1")
            assert result == {
                "runId": "w1",
                "status": "ok",
                "output": json.dumps({"answer": "worked", "kept": "yes", "count": 1}, separators=(",", ":")),
            }
            assert [m for m, _ in client.dialogs] == [
                "lait/approveToolCall",
                "lait/approveToolCall",
                "lait/elicit",
                "lait/elicit",
                "lait/elicit",
                "lait/approveToolCall",
                "lait/ask",
            ]
            ask = client.dialogs[-1][1]
            assert ask == {
                "runId": "w1",
                "question": "Keep the result for food?",
                "choices": ["yes", "no"],
                "multiline": False,
            }
            assert all(p["runId"] == "w1" for _, p in client.dialogs)
            results = [
                "HI",
                "saved 'Milk' (priority 2): buy milk",
                "not saved: decline",
                "not saved: cancel",
                EDITOR_DENIAL,
            ]
            assert first_paragraphs(llm) == [results[:i] for i in range(6)]
            assert llm.bodies[0]["messages"][-1] == {"role": "user", "content": "Work on food"}

            assert compact(client.events_of("w1")) == [
                "runStarted",
                "workflowStarted",
                "stepStarted work",
                "toolCall tool__shout",
                "toolResult tool__shout",
                *["toolCall notes__save_note", "toolResult notes__save_note"] * 3,
                "toolDenied tool__shout",
                "stepFinished work ok",
                "stepStarted keep",
                "stepFinished keep ok",
                "stepStarted step-3 (jq)",
                "stepFinished step-3 (jq) ok",
                "runFinished ok",
            ]
            started = client.events_of("w1")[0]
            assert started == {
                "type": "runStarted",
                "uri": path.as_uri(),
                "kind": "workflow",
                "name": "notes-flow",
            }
            step = next(e for e in client.events_of("w1") if e["type"] == "stepStarted")
            assert (step["label"], step["kind"], step["n"]) == ("work", "prompt", 1)
            # work-done progress: begin, a report per step and tool call, end
            [(token, reports)] = client.progress_reports.items()
            assert token == "lait-run-w1"
            assert reports[0].kind == "begin" and reports[-1].kind == "end"
            assert [r.message for r in reports if r.kind == "report"][:2] == ["[1] work", "tool tool__shout"]


async def test_client_without_lait_gets_the_fallbacks(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        path = project(tmp_path, llm)
        llm.push(
            tool_calls(call("tool__shout", {"text": "hi"}, id="c1")),
            tool_calls(call("notes__save_note", {"text": "milk"}, id="c2")),
            tool_calls(call("notes__save_note", {"text": "eggs"}, id="c3")),
            tool_calls(call("tool__shout", {"text": "no"}, id="c4")),
            text("worked"),
        )
        async with run_client(tmp_path, lait=False, progress=False) as client:
            client.answer(lsp.WINDOW_SHOW_MESSAGE_REQUEST, "Allow once", "Allow for this session", None, "no")
            result = await run(client, path, "f1")
            assert result["status"] == "ok", result
            assert json.loads(result["output"]) == {"answer": "worked", "kept": "no", "count": 1}
            requests = [p for _, p in client.dialogs]
            assert all(m == lsp.WINDOW_SHOW_MESSAGE_REQUEST for m, _ in client.dialogs)
            assert [[a.title for a in p.actions] for p in requests] == [
                ["Allow once", "Allow for this session", "Deny"],
                ["Allow once", "Allow for this session", "Deny"],
                ["Allow once", "Allow for this session", "Deny"],
                ["yes", "no"],
            ]
            assert requests[0].message.startswith("lait: the model wants to call 'tool__shout'.")
            assert "command: " in requests[0].message
            assert "of MCP server 'notes'" in requests[1].message
            assert requests[3].message == "Keep the result for food?"
            # elicitation is declined without a dialog (twice: the save_note grant holds), a dismissed
            # approval denies
            assert first_paragraphs(llm)[-1] == [
                "HI",
                "not saved: decline",
                "not saved: decline",
                EDITOR_DENIAL,
            ]
            logs = [m.message for m in client.log_messages if "elicitation" in m.message]
            assert len(logs) == 2 and "no experimental.lait capability" in logs[0]
            assert client.progress_reports == {}


async def test_approve_never_and_tool_policy(tmp_path: Path) -> None:
    """``approveTools: never`` runs tools without asking; a tool_policy denial never reaches a dialog."""
    with ScriptedOpenAIServer() as llm:
        path = project(tmp_path, llm)
        config = tmp_path / "lait.config.yml"
        config.write_text(config.read_text() + "tool_policy:\n  deny: ['notes__*']\n", encoding="utf-8")
        llm.push(
            tool_calls(
                call("tool__shout", {"text": "hi"}, id="c1"), call("notes__save_note", {"text": "x"}, id="c2")
            ),
            text("worked"),
        )
        async with run_client(tmp_path, approve="never") as client:
            client.answer("lait/ask", {"answer": "no"})
            result = await run(client, path, "n1")
            assert result["status"] == "ok", result
            assert [m for m, _ in client.dialogs] == ["lait/ask"]
            tool_results = first_paragraphs(llm)[-1]
            assert tool_results[0] == "HI" and "tool_policy" in tool_results[1]

        llm.push(
            tool_calls(call("notes__save_note", {"text": "x"}, id="c1")),
            text("worked"),
        )
        async with run_client(tmp_path, approve="always") as client:
            client.answer("lait/ask", {"answer": "no"})
            result = await run(client, path, "n2")
            assert result["status"] == "ok", result
            assert [m for m, _ in client.dialogs] == ["lait/ask"]  # the denied call was never shown


async def test_failures_are_results_not_errors(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        path = project(tmp_path, llm)
        async with run_client(tmp_path) as client:
            bad_input = await run(client, path, "e1", inputs={"topic": "x", "count": "many"})
            assert bad_input["status"] == "failed" and bad_input["output"] == ""
            assert bad_input["error"].startswith("lait: ") and "count" in bad_input["error"]
            missing = await client.protocol.send_request_async(
                "lait/run", {"uri": (tmp_path / "nope.yml").as_uri(), "kind": "workflow"}
            )
            assert missing["status"] == "failed" and "no such file" in missing["error"]
            client.answer("lait/ask", None)
            llm.push(text("worked"))
            dismissed = await run(client, path, "e2")
            assert dismissed["status"] == "failed" and "dismissed" in dismissed["error"]
            finished = client.events_of("e2")[-1]
            assert finished["type"] == "runFinished" and finished["error"] == dismissed["error"]


async def test_lenses_and_dry_run(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        path = project(tmp_path, llm)
        async with run_client(tmp_path) as client:
            client.text_document_did_open(
                lsp.DidOpenTextDocumentParams(
                    text_document=lsp.TextDocumentItem(
                        uri=path.as_uri(), language_id="yaml", version=1, text=WORKFLOW
                    )
                )
            )
            lenses = await client.text_document_code_lens_async(
                lsp.CodeLensParams(text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()))
            )
            assert lenses is not None
            assert [(lens.command.title, lens.command.command) for lens in lenses if lens.command] == [
                ("▶ Run workflow", "lait.runWorkflow"),
                ("Dry run", "lait.dryRun"),
            ]
            assert all(lens.range.start.line == 7 for lens in lenses)  # the `steps:` line
            target = (
                lenses[0].command.arguments[0] if lenses[0].command and lenses[0].command.arguments else {}
            )
            assert target == {
                "uri": path.as_uri(),
                "kind": "workflow",
                "prompt": "optional",
                "name": "notes-flow",
                "inputs": [
                    {"name": "topic", "schema": {"type": "string"}, "required": True},
                    {"name": "count", "schema": {"type": "integer", "default": 1}, "required": False},
                ],
            }
            actions = await client.text_document_code_action_async(
                lsp.CodeActionParams(
                    text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()),
                    range=lsp.Range(start=lsp.Position(7, 2), end=lsp.Position(7, 2)),
                    context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.Source]),
                )
            )
            # lsprotocol structures any code action that has a command as a Command (its union hook
            # looks for a "command" key), so the nested command arrives as text here
            assert [(a.title, "'lait.runWorkflow'" in str(a.command)) for a in actions or []] == [
                ("▶ Run workflow", True),
                ("Dry run", False),
            ]
            assert "'lait.dryRun'" in str((actions or [])[1].command)
            assert client.init_result is not None
            provider = client.init_result.capabilities.code_action_provider
            assert isinstance(provider, lsp.CodeActionOptions)
            assert "source.lait.run" in (provider.code_action_kinds or [])
            elsewhere = await client.text_document_code_action_async(
                lsp.CodeActionParams(
                    text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()),
                    range=lsp.Range(start=lsp.Position(9, 0), end=lsp.Position(9, 0)),
                    context=lsp.CodeActionContext(diagnostics=[], only=[lsp.CodeActionKind.Source]),
                )
            )
            assert not elsewhere
            unasked = await client.text_document_code_action_async(
                lsp.CodeActionParams(
                    text_document=lsp.TextDocumentIdentifier(uri=path.as_uri()),
                    range=lsp.Range(start=lsp.Position(7, 2), end=lsp.Position(7, 2)),
                    context=lsp.CodeActionContext(diagnostics=[]),
                )
            )
            assert not unasked  # never mixed into quick fixes
            plan = await run(client, path, "d1", dryRun=True)
            assert plan["status"] == "ok", plan
            assert plan["output"].startswith("dry run: showing the execution plan only")
            assert "Work on food" in plan["output"]
            assert llm.bodies == [] and client.dialogs == []
            via_command = await client.workspace_execute_command_async(
                lsp.ExecuteCommandParams(
                    command="lait.server.dryRun", arguments=[target, {"inputs": {"topic": "drinks"}}]
                )
            )
            assert via_command["status"] == "ok" and "Work on drinks" in via_command["output"]


async def test_parallel_runs_never_overlap_dialogs(tmp_path: Path) -> None:
    """Two runs in flight: their approval dialogs come one after the other, never two at once."""
    agent_text = "---\nname: helper\ntools: [shout]\n---\nYou help.\n"
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        agent = tmp_path / "agents" / "helper.md"
        agent.parent.mkdir()
        agent.write_text(agent_text, encoding="utf-8")
        # each run's first request gets a tool call and its second (after the tool's "X") the
        # answer, whichever run's request comes first: a run can ask again before the other asked once
        llm.push(*[tool_calls(call("tool__shout", {"text": "x"}))] * 2)
        llm.route("X", text("done"), text("done"))
        async with run_client(tmp_path) as client:
            client.delay = 0.5
            client.answer("lait/approveToolCall", {"decision": "once"}, {"decision": "once"})
            results = await asyncio.gather(
                *(
                    client.protocol.send_request_async(
                        "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "p", "runId": f"p{i}"}
                    )
                    for i in range(2)
                )
            )
            assert [r["status"] for r in results] == ["ok", "ok"]
            assert sorted(p["runId"] for _, p in client.dialogs) == ["p0", "p1"]
            assert client.peak == 1
