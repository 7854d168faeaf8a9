"""Editor runs keep the same records as CLI runs (issue 13): `lait/run` with `record`, `replay`,
`cache`, `traceFile` and `history` writes the cassette, the trace file and the history entry the
CLI writes, and a replayed run answers without the model server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from pygls.exceptions import JsonRpcInvalidParams

from tests.lsp.run_support import run_client
from tests.peers.openai_server import ScriptedOpenAIServer, text

WF = "steps:\n  - id: ask\n    prompt: 'hi {{ input }}'\n  - id: two\n    prompt: 'again'\n"


async def test_record_replay_cache_trace_and_history_from_the_editor(tmp_path: Path) -> None:
    wf = tmp_path / "wf.yml"
    wf.write_text(WF, encoding="utf-8")
    with ScriptedOpenAIServer() as llm:
        (tmp_path / "lait.config.yml").write_text(
            f"base_url: {llm.url}\ndefault: {{model: m}}\n", encoding="utf-8"
        )
        llm.push(text("one"), text("two"))
        async with run_client(tmp_path, approve="never") as client:
            params = {
                "uri": wf.as_uri(),
                "kind": "workflow",
                "prompt": "x",
                "runId": "rec",
                "record": "tape",
                "traceFile": "out/trace.jsonl",
                "cache": True,
            }
            recorded = await client.protocol.send_request_async("lait/run", params)
            assert recorded == {"runId": "rec", "status": "ok", "output": "two"}
            llm.stop()
            replay = {"uri": wf.as_uri(), "kind": "workflow", "prompt": "x", "runId": "rep", "replay": "tape"}
            replayed = await client.protocol.send_request_async("lait/run", {**replay, "history": False})
            assert replayed == {"runId": "rep", "status": "ok", "output": "two"}
            sources = [e["source"] for e in client.events_of("rep") if e["type"] == "modelAnswered"]
            assert sources == ["replay", "replay"]
            cached = {"uri": wf.as_uri(), "kind": "workflow", "prompt": "x", "runId": "hit", "cache": True}
            hit = await client.protocol.send_request_async("lait/run", cached)
            assert hit["status"] == "ok" and hit["output"] == "two"
            with pytest.raises(JsonRpcInvalidParams, match="'record' and 'replay' cannot be used together"):
                await client.protocol.send_request_async("lait/run", {**replay, "runId": "b", "record": "t2"})
    assert len(list((tmp_path / "tape").glob("*.json"))) == 2
    assert len(list((tmp_path / ".lait" / "cache").glob("*.json"))) == 2
    events = [json.loads(line) for line in (tmp_path / "out" / "trace.jsonl").read_text().splitlines()]
    assert [(e["seq"], e["operation"], e["label"]) for e in events] == [
        (0, "chat", "ask"),
        (1, "chat", "two"),
    ]
    history = (tmp_path / "xdg-data" / "lait" / "history.jsonl").read_text().splitlines()
    assert [json.loads(h)["kind"] for h in history] == [
        "workflow",
        "workflow",
    ]  # the replay had history: false
