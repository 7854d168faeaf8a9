"""Issue 16 acceptance: signing in to an OAuth-protected MCP server through the language server.

The official MCP conformance suite serves scenario ``auth/metadata-default`` (an MCP server that
answers 401, its protected-resource metadata, an authorization server with registration, PKCE
and token endpoints). A workflow's prompt step uses that server; the scripted model calls its
tool. The language server asks the editor to open the authorization URL
(``window/showDocument``, ``external: true``) and shows cancellable progress; the test client
plays the browser and follows the URL over loopback HTTP back to lait's listener; the tool call
completes. The suite's own checks of the flow all pass. The run keeps a cassette, a trace, a
history entry and a debug log: the access token (the canary: unique per run) is in the token
store only -- in no output, event, log, trace, cassette or history file -- and no process is
left behind.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import httpx2
from lsprotocol import types as lsp

from tests.conformance.auth_scenario import scenario
from tests.lsp.run_support import run_client
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.processes import running_with_marker

WORKFLOW = """name: signed
inputs: {}
steps:
  - id: work
    prompt: "Call the protected tool"
    mcp: [conf]
"""


def project(root: Path, llm: ScriptedOpenAIServer, url: str) -> Path:
    (root / "lait.config.yml").write_text(
        f"""default:
  model: test-model
models:
  test-model:
    - provider: {{base_url: "{llm.url}"}}
      model_id: scripted
mcp_servers:
  conf:
    url: {url}
""",
        encoding="utf-8",
    )
    path = root / "signed.yml"
    path.write_text(WORKFLOW, encoding="utf-8")
    return path


def files_under(root: Path, skip: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and skip not in p.parents]


async def test_sign_in_through_the_editor(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    log = tmp_path / "lait-ls.log"
    seen: list[str] = []

    async def browser(params: lsp.ShowDocumentParams) -> None:
        async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as http:
            answer = await http.get(params.uri)
        seen.append(f"{answer.status_code} {answer.url} {answer.text}")

    with scenario("auth/metadata-default") as suite, ScriptedOpenAIServer() as llm:
        path = project(tmp_path, llm, suite.url)
        llm.push(tool_calls(call("conf__test-tool", {}, id="c1")), text("signed and called"))
        env = {"LAIT_TEST_MARKER": marker, "LAIT_LOG": "DEBUG"}
        async with run_client(tmp_path, show_document=True, env=env, log=log) as client:
            client.on_show_document = browser
            client.answer("lait/approveToolCall", {"decision": "once"})
            params: dict[str, Any] = {
                "uri": path.as_uri(),
                "kind": "workflow",
                "runId": "s1",
                "record": "tape",
                "traceFile": "out/trace.jsonl",
                "history": True,
            }
            result = await client.protocol.send_request_async("lait/run", params)
            assert result == {"runId": "s1", "status": "ok", "output": "signed and called"}, result

            [shown] = client.shown
            assert shown.external is True
            url = urlsplit(shown.uri)
            query = parse_qs(url.query)
            assert url.path == "/authorize"
            assert query["code_challenge_method"] == ["S256"]
            assert query["resource"] == [suite.url]
            redirect = urlsplit(query["redirect_uri"][0])
            assert (redirect.hostname, redirect.path) == ("127.0.0.1", "/callback")
            assert seen and seen[0].startswith("200 http://127.0.0.1:")
            assert "Signed in to conf" in seen[0]

            progress = [
                reports
                for token, reports in client.progress_reports.items()
                if str(token).startswith("lait-signin-")
            ]
            assert len(progress) == 1
            begin, *_, end = progress[0]
            assert isinstance(begin, lsp.WorkDoneProgressBegin) and begin.title == "lait: sign in to conf"
            assert begin.cancellable is True
            assert isinstance(end, lsp.WorkDoneProgressEnd) and end.message == "authorization received"

            tool_messages = [m for m in llm.bodies[1]["messages"] if m["role"] == "tool"]
            assert tool_messages[0]["content"].startswith("test")
            traffic = json.dumps(
                [client.events, [str(p) for p in client.shown], result, client.log_messages, client.messages],
                default=str,
            )
    assert suite.problems() == [], suite.problems()
    assert {
        "authorization-server-metadata",
        "client-registration",
        "token-request",
        "valid-bearer-token",
    } <= (suite.ids())

    store = tmp_path / "xdg-data" / "lait" / "mcp-oauth"
    [record_file] = list(store.glob("*.json"))
    assert record_file.stat().st_mode & 0o777 == 0o600
    assert store.stat().st_mode & 0o777 == 0o700
    token = json.loads(record_file.read_text())["tokens"]["access_token"]
    assert token.startswith("test-token-")  # the suite's token: unique per run

    written = files_under(tmp_path, skip=store)
    names = {p.relative_to(tmp_path).as_posix() for p in written}
    assert "out/trace.jsonl" in names and any(n.startswith("tape/") for n in names)
    assert (tmp_path / "xdg-data" / "lait" / "history.jsonl").is_file()
    assert log.read_text(errors="replace").strip(), "the debug log is empty"
    for file in written:
        assert token not in file.read_text(errors="replace"), f"the token is in {file}"
    assert token not in traffic
    assert token not in llm.bodies.__repr__()
    assert running_with_marker(marker) == []


async def test_cancelling_the_sign_in_progress_ends_the_run(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    with scenario("auth/metadata-default") as suite, ScriptedOpenAIServer() as llm:
        path = project(tmp_path, llm, suite.url)
        async with run_client(tmp_path, show_document=True, env={"LAIT_TEST_MARKER": marker}) as client:

            async def cancel(params: lsp.ShowDocumentParams) -> None:
                [token] = [t for t in client.progress_reports if str(t).startswith("lait-signin-")]
                client.protocol.notify(
                    lsp.WINDOW_WORK_DONE_PROGRESS_CANCEL, lsp.WorkDoneProgressCancelParams(token=token)
                )

            client.on_show_document = cancel
            params = {"uri": path.as_uri(), "kind": "workflow", "runId": "c1", "history": False}
            result = await client.protocol.send_request_async("lait/run", params)
            assert result["status"] == "failed", result
            assert result["error"].endswith("MCP server 'conf': sign-in was cancelled"), result
            [reports] = [r for t, r in client.progress_reports.items() if str(t).startswith("lait-signin-")]
            assert isinstance(reports[-1], lsp.WorkDoneProgressEnd)
            assert reports[-1].message == "sign-in cancelled"
            assert len(llm.bodies) == 0  # the model was never asked: the tools could not be listed
    assert not list((tmp_path / "xdg-data").rglob("mcp-oauth/*.json")) or all(
        "tokens" not in json.loads(p.read_text()) for p in (tmp_path / "xdg-data").rglob("mcp-oauth/*.json")
    )
    assert running_with_marker(marker) == []


async def test_an_editor_without_show_document_gets_the_url_in_a_message(tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    prefix = "lait: sign in to MCP server 'conf' by opening "
    with scenario("auth/metadata-default") as suite, ScriptedOpenAIServer() as llm:
        path = project(tmp_path, llm, suite.url)
        llm.push(tool_calls(call("conf__test-tool", {}, id="c1")), text("via the message"))
        async with run_client(tmp_path, env={"LAIT_TEST_MARKER": marker}) as client:
            client.answer("lait/approveToolCall", {"decision": "once"})
            params = {"uri": path.as_uri(), "kind": "workflow", "runId": "m1", "history": False}
            running = asyncio.ensure_future(client.protocol.send_request_async("lait/run", params))
            async with asyncio.timeout(120):
                while not any(m.message.startswith(prefix) for m in client.messages):
                    await asyncio.sleep(0.05)
            [message] = [m for m in client.messages if m.message.startswith(prefix)]
            async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as http:
                answer = await http.get(message.message.removeprefix(prefix))
            assert answer.status_code == 200
            result = await asyncio.wait_for(running, 120)
            assert result == {"runId": "m1", "status": "ok", "output": "via the message"}, result
            assert client.shown == []
    assert suite.problems() == [], suite.problems()
    assert running_with_marker(marker) == []
