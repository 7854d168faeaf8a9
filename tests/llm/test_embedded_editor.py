"""An editor run (``lait/run`` to a real ``lait-ls`` from a pytest-lsp client) of a workflow on the
built-in embedded model: the shell tool call goes through the editor's approval dialog and the run
events stream back, exactly as with a server model."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.llm.conftest import add_arguments, require_peer
from tests.llm.test_real_model import ADD
from tests.lsp.run_support import run_client

WORKFLOW = """\
name: sum
description: One shell tool call on the built-in model.
default:
  model: embedded
steps:
  - id: add
    prompt: "Use the add tool to add 2 and 3."
    tools: [add]
    max_tokens: 16
"""


async def test_editor_run_on_the_embedded_model(tmp_path: Path) -> None:
    require_peer()
    (tmp_path / "lait.config.yml").write_text(
        "tools:\n"
        "  add:\n"
        f"    description: {json.dumps(ADD.description)}\n"
        f"    command: {json.dumps(ADD.command)}\n"
        f"    parameters: {json.dumps(ADD.parameters)}\n",
        encoding="utf-8",
    )
    path = tmp_path / "sum.yml"
    path.write_text(WORKFLOW, encoding="utf-8")
    async with run_client(tmp_path) as client:
        client.answer("lait/approveToolCall", {"decision": "once"})
        params = {"uri": path.as_uri(), "kind": "workflow", "runId": "e1", "prompt": "go"}
        result = await asyncio.wait_for(client.protocol.send_request_async("lait/run", params), 120)
        events = client.events_of("e1")
    assert result["runId"] == "e1" and result["status"] == "ok", result
    assert isinstance(result["output"], str) and result["output"]
    assert [(m, p["tool"]) for m, p in client.dialogs] == [("lait/approveToolCall", "tool__add")]
    calls = [(e["name"], json.loads(e["arguments"])) for e in events if e["type"] == "toolCall"]
    assert [name for name, _ in calls] == ["tool__add"]
    a, b = add_arguments(calls[0][1])  # the grammar forces the schema, not the numbers
    assert client.dialogs[0][1]["command"][-2:] == [str(a), str(b)]
    results = [(e["name"], e["result"], e["isError"]) for e in events if e["type"] == "toolResult"]
    assert results == [("tool__add", str(a + b), False)]
    assert [e["status"] for e in events if e["type"] == "runFinished"] == ["ok"]
