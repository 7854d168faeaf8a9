"""URL elicitation (seed 003) in an editor run: the model calls a tool of the real peer
tests/peers/mcp_url_server.py that fails with -32042; the editor receives lait/elicit in URL mode
(the message and the URL: the extension offers "Open", nothing is opened by lait-ls), answers accept,
the test plays the browser by visiting the URL, the server reports the elicitation complete, and
lait-ls retries the call once; the model receives the retried call's result."""

from __future__ import annotations

import asyncio
import sys
import urllib.request
from pathlib import Path

from tests.lsp.run_support import ROOT, run_client, wait_until, write_project
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

AGENT = "---\nname: reader\nmcp: [shop]\n---\nYou read notes.\n"


def add_shop(root: Path) -> None:
    config = root / "lait.config.yml"
    config.write_text(
        config.read_text(encoding="utf-8").replace(
            "mcp_servers:\n",
            f"mcp_servers:\n  shop:\n    command: {sys.executable}\n    args: [-m, tests.peers.mcp_url_server]\n"
            f"    cwd: {ROOT}\n    allow_elicitation: true\n",
            1,
        ),
        encoding="utf-8",
    )


def visit(url: str) -> None:
    with urllib.request.urlopen(url, timeout=30) as page:
        page.read()


async def test_url_required_in_an_editor_run(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        write_project(tmp_path, llm)
        add_shop(tmp_path)
        agent = tmp_path / "agents" / "reader.md"
        agent.parent.mkdir()
        agent.write_text(AGENT, encoding="utf-8")
        llm.push(tool_calls(call("shop__private_note", {}, id="c1")), text("you must buy milk"))
        async with run_client(tmp_path, approve="never") as client:
            client.answer("lait/elicit", {"action": "accept"})
            params = {"uri": agent.as_uri(), "kind": "agent", "prompt": "go", "runId": "u1"}
            running = asyncio.ensure_future(client.protocol.send_request_async("lait/run", params))
            assert await wait_until(lambda: len(client.dialogs) == 1, 60)
            method, dialog = client.dialogs[0]
            assert method == "lait/elicit"
            assert dialog["mode"] == "url" and dialog["server"] == "shop"
            assert dialog["message"] == "Sign in to read your notes"
            assert dialog["elicitationId"] == "sign-in" and dialog["retriesCall"] is True
            assert dialog["url"].startswith("http://127.0.0.1:") and dialog["url"].endswith("/done/sign-in")
            await asyncio.sleep(0)
            assert not running.done()  # waiting for the server to report the sign-in complete
            await asyncio.to_thread(visit, dialog["url"])
            result = await asyncio.wait_for(running, 60)
    assert result == {"runId": "u1", "status": "ok", "output": "you must buy milk"}
    tool_results = [m["content"] for m in llm.bodies[1]["messages"] if m["role"] == "tool"]
    assert tool_results[0].startswith("note: buy milk")
