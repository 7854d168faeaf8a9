"""An untrusted workspace (VS Code's Restricted Mode: initialization option ``trusted: false``): lait-ls
refuses every run that would start something -- a workflow, an agent, a test file -- with the reason,
and allows a dry run, which starts nothing. A workspace's settings cannot lift it: ``trusted`` in
workspace/didChangeConfiguration is ignored. The workflow's shell tool would write a file: it never does."""

from __future__ import annotations

import sys
from pathlib import Path

from lsprotocol import types as lsp

from lait_ls.run import UNTRUSTED
from tests.lsp.run_support import run_client
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls


def project(root: Path, llm: ScriptedOpenAIServer) -> tuple[Path, Path]:
    marker = root / "ran.txt"
    (root / "lait.config.yml").write_text(
        f"base_url: {llm.url}\ndefault: {{model: m}}\n"
        "tools:\n"
        "  touch:\n"
        "    description: Write a file.\n"
        f"    command: [{sys.executable}, -c, \"open('{marker}', 'w').write('ran')\"]\n",
        encoding="utf-8",
    )
    path = root / "wf.yml"
    path.write_text(
        "steps:\n  - id: go\n    prompt: hi\n    tools: [touch]\n  - run: [echo, hi]\n", encoding="utf-8"
    )
    return path, marker


async def test_untrusted_refuses_runs_and_allows_a_dry_run(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        path, marker = project(tmp_path, llm)
        llm.push(tool_calls(call("tool__touch", {})))
        async with run_client(tmp_path, approve="never", init={"trusted": False}) as client:
            # A workspace setting saying otherwise changes nothing.
            client.workspace_did_change_configuration(
                lsp.DidChangeConfigurationParams(settings={"lait": {"trusted": True}})
            )
            run = {"uri": path.as_uri(), "kind": "workflow", "runId": "u1", "prompt": "go"}
            refused = await client.protocol.send_request_async("lait/run", run)
            test_file = tmp_path / "wf.test.yml"
            test_file.write_text("workflow: wf.yml\nassert:\n  - equals: x\n", encoding="utf-8")
            test_run = {"uri": test_file.as_uri(), "kind": "test", "runId": "u2"}
            refused_test = await client.protocol.send_request_async("lait/run", test_run)
            dry = await client.protocol.send_request_async("lait/run", {**run, "runId": "u3", "dryRun": True})
        assert llm.requests == []
    assert refused["status"] == "failed" and refused["error"] == f"lait: {UNTRUSTED}", refused
    assert refused_test["status"] == "failed" and refused_test["error"] == f"lait: {UNTRUSTED}"
    assert dry["status"] == "ok", dry
    assert "go" in dry["output"] and "touch" in dry["output"]  # the plan names the step and its tool
    assert not marker.exists()


async def test_trusted_by_default(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        path, marker = project(tmp_path, llm)
        llm.push(tool_calls(call("tool__touch", {})), text("done"))
        async with run_client(tmp_path, approve="never") as client:
            run = {"uri": path.as_uri(), "kind": "workflow", "runId": "t1", "prompt": "go"}
            result = await client.protocol.send_request_async("lait/run", run)
    assert result["status"] == "ok", result
    assert marker.read_text() == "ran"
