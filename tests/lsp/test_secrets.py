"""Issue 19, "secrets never printed", in the editor: a model URL with credentials in its userinfo
and an expanded ``?key=${KEY}``, and an API key the server echoes in its error body. None of the
canaries may reach the ``lait/run`` result, the run events (``runFinished``), ``$/progress`` or
the server's log (at DEBUG level, where pygls logs every message it sends); the error body itself
is shown, with ``***`` where the key was."""

from __future__ import annotations

import json
from pathlib import Path

from tests.lsp.run_support import run_client
from tests.peers.openai_server import ScriptedOpenAIServer, error

CANARIES = ("canary-userinfo-7f3", "canary-query-9d1", "sk-canary-key-2b8")


def project(root: Path, llm: ScriptedOpenAIServer) -> Path:
    url = f"http://user:{CANARIES[0]}@127.0.0.1:{llm.port}/v1?key=${{QUERY_KEY}}"
    (root / "lait.config.yml").write_text(
        f"""default:
  model: test-model
models:
  test-model:
    - provider: {{base_url: "{url}", api_key: "${{MODEL_KEY}}"}}
      model_id: scripted
""",
        encoding="utf-8",
    )
    agent = root / "a.md"
    agent.write_text("---\nname: a\n---\nGo.\n", encoding="utf-8")
    return agent


async def test_no_canary_in_the_result_events_progress_or_log(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    with ScriptedOpenAIServer() as llm:
        llm.push(error(401, f"invalid api key {CANARIES[2]} for key={CANARIES[1]}"))
        agent = project(tmp_path, llm)
        env = {"QUERY_KEY": CANARIES[1], "MODEL_KEY": CANARIES[2], "LAIT_LOG": "DEBUG"}
        async with run_client(tmp_path, env=env, log=log) as client:
            result = await client.protocol.send_request_async(
                "lait/run", {"uri": agent.as_uri(), "kind": "agent", "prompt": "go", "runId": "r1"}
            )
            events = client.events_of("r1")
            progress = json.dumps([str(p) for reports in client.progress_reports.values() for p in reports])
        assert llm.requests, "the request was not sent"
    assert result["status"] == "failed"
    # the server's error body is shown, the echoed key masked, the URL's credentials too
    assert "invalid api key *** for key=***" in result["error"], result["error"]
    assert "http://***@127.0.0.1" in result["error"], result["error"]
    assert events[-1]["type"] == "runFinished" and "***" in events[-1]["error"]
    assert "failed: lait:" in progress, progress
    texts = {
        "result": json.dumps(result),
        "events": json.dumps(events),
        "progress": progress,
        "log": log.read_text(encoding="utf-8", errors="replace"),
    }
    assert "Sending data" in texts["log"] or "lait/runEvent" in texts["log"], texts["log"][-2000:]
    for where, text in texts.items():
        for canary in CANARIES:
            assert canary not in text, (where, canary)
