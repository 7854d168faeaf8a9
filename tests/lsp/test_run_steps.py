"""lait/runEvent names the step each event belongs to (PROTOCOL.md section 5, "Step fields"): the
run view nests a `for_each`'s steps, a prompt step's tool calls and the approvals it asked under
the right step, also for `parallel` branches that run at the same time, and reveals each step at
its range in the file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.lsp.run_support import run_client, write_project
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

WORKFLOW = """name: each
steps:
  - id: each
    for_each: '["apple", "pear"]'
    steps:
      - id: shout_item
        prompt: "Shout {{ loop.item }}"
        tools: [shout]
  - id: both
    parallel:
      left:
        - jq: '"L"'
      right:
        - jq: '"R"'
"""


async def test_events_name_their_step_its_parent_and_its_place(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        path = tmp_path / "each.yml"
        path.write_text(WORKFLOW, encoding="utf-8")
        llm.push(
            tool_calls(call("tool__shout", {"text": "apple"}, id="c1")),
            text("APPLE done"),
            tool_calls(call("tool__shout", {"text": "pear"}, id="c2")),
            text("PEAR done"),
        )
        async with run_client(tmp_path) as client:
            client.answer("lait/approveToolCall", {"decision": "session"})
            params = {"uri": path.as_uri(), "kind": "workflow", "runId": "s1", "prompt": "go"}
            result = await client.protocol.send_request_async("lait/run", params)
            assert result["status"] == "ok", result
            events = client.events_of("s1")
            [approval] = [p for m, p in client.dialogs if m == "lait/approveToolCall"]

    started = {e["stepId"]: e for e in events if e["type"] == "stepStarted"}
    by_label: dict[str, list[dict[str, Any]]] = {}
    for e in started.values():
        by_label.setdefault(e["label"], []).append(e)
    [each] = by_label["each"]
    items = by_label["shout_item"]
    assert len(items) == 2 and len(started) == 6
    assert each["parentStepId"] is None and each["uri"] == path.resolve().as_uri()
    assert each["range"]["start"] == {"line": 2, "character": 4}
    assert [i["parentStepId"] for i in items] == [each["stepId"]] * 2
    assert {i["range"]["start"]["line"] for i in items} == {5}
    [both] = by_label["both"]
    branches = [e for e in started.values() if e["kind"] == "jq"]
    assert [b["parentStepId"] for b in branches] == [both["stepId"]] * 2
    assert {b["range"]["start"]["line"] for b in branches} == {11, 13}
    # stepFinished carries the same id and place as its stepStarted.
    for e in events:
        if e["type"] == "stepFinished":
            s = started[e["stepId"]]
            assert (e["label"], e["parentStepId"], e["uri"], e["range"]) == (
                s["label"],
                s["parentStepId"],
                s["uri"],
                s["range"],
            )
    # Tool calls, results, usage and item progress belong to the step that was running.
    calls = [e for e in events if e["type"] in ("toolCall", "toolResult")]
    assert [(e["type"], e["stepId"]) for e in calls] == [
        ("toolCall", items[0]["stepId"]),
        ("toolResult", items[0]["stepId"]),
        ("toolCall", items[1]["stepId"]),
        ("toolResult", items[1]["stepId"]),
    ]
    assert {e["stepId"] for e in events if e["type"] == "usage"} <= {i["stepId"] for i in items}
    progress = [e for e in events if e["type"] == "stepProgress"]
    assert [(e["message"], e["stepId"]) for e in progress] == [
        ("iterating over 2 item(s)", each["stepId"]),
        ("item 1/2", each["stepId"]),
        ("item 2/2", each["stepId"]),
    ]
    # The approval (asked once: "for this session") names its step too.
    assert approval["stepId"] == items[0]["stepId"] and approval["tool"] == "tool__shout"
    assert all("stepId" not in e for e in events if e["type"] in ("runStarted", "runFinished"))
