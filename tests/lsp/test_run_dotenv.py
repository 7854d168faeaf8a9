"""lait-ls reads the project's ``.env`` for editor runs, like the CLI reads ``./.env``: the model's
``base_url``, an API key and a shell tool's inherited environment come from it; variables the
server's own environment sets win; ``noEnv: true`` (the CLI's ``--no-env``) reads none."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from tests.lsp.run_support import run_client
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

AGENT = """---
name: envy
tools: [show]
---
You show variables.
"""

CONFIG = f"""default:
  model: test-model
models:
  test-model:
    - provider: {{base_url: "${{LAIT_DOTENV_URL}}", api_key: "${{LAIT_DOTENV_KEY}}"}}
      model_id: scripted
tools:
  show:
    command: [{sys.executable}, -c, "import os, sys; print(os.environ.get(sys.argv[1], 'unset'))", "{{{{ input.name }}}}"]
    parameters: {{type: object, properties: {{name: {{type: string}}}}, required: [name]}}
"""


def project(root: Path, llm: ScriptedOpenAIServer, dotenv: str | None = None) -> Path:
    (root / "lait.config.yml").write_text(CONFIG, encoding="utf-8")
    if dotenv is None:
        dotenv = (
            f"LAIT_DOTENV_URL={llm.url}\n"
            "export LAIT_DOTENV_KEY='sk-from-dotenv'\n"
            'LAIT_DOTENV_TOOL="from the .env"\n'
            "LAIT_DOTENV_KEPT=from-dotenv\n"
        )
    (root / ".env").write_text(dotenv, encoding="utf-8")
    agent = root / "agents" / "envy.md"
    agent.parent.mkdir()
    agent.write_text(AGENT, encoding="utf-8")
    return agent


async def run(client: Any, agent: Path, run_id: str) -> Any:
    params = {"uri": agent.as_uri(), "kind": "agent", "prompt": "go", "runId": run_id}
    return await client.protocol.send_request_async("lait/run", params)


def tool_results(llm: ScriptedOpenAIServer) -> list[str]:
    return [m["content"] for m in llm.bodies[-1]["messages"] if m["role"] == "tool"]


async def test_editor_run_reads_the_project_dotenv(tmp_path: Path) -> None:
    """The run finds the model through ``${LAIT_DOTENV_URL}``, sends the key from ``.env``, and a
    shell tool without ``env:`` sees the ``.env`` variables; the server's own variable wins."""
    with ScriptedOpenAIServer() as llm:
        agent = project(tmp_path, llm)
        llm.push(
            tool_calls(
                call("tool__show", {"name": "LAIT_DOTENV_TOOL"}, id="a"),
                call("tool__show", {"name": "LAIT_DOTENV_KEPT"}, id="b"),
            ),
            text("done"),
        )
        # the server starts elsewhere: the .env is found beside the config, not in the server's cwd
        async with run_client(tmp_path, approve="never", env={"LAIT_DOTENV_KEPT": "from-server"}) as client:
            result = await run(client, agent, "r1")
        assert result == {"runId": "r1", "status": "ok", "output": "done"}
        assert llm.requests[0].headers["authorization"] == "Bearer sk-from-dotenv"
        assert tool_results(llm) == ["from the .env", "from-server"]


async def test_no_env_reads_no_dotenv(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        agent = project(tmp_path, llm)
        async with run_client(tmp_path, approve="never", init={"noEnv": True}) as client:
            result = await run(client, agent, "r1")
        assert result["status"] == "failed"
        assert "LAIT_DOTENV_URL" in result["error"] and result["error"].startswith("lait: ")
        assert llm.requests == []


async def test_malformed_dotenv_fails_the_run_with_its_line(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        agent = project(tmp_path, llm, dotenv="GOOD=1\nthis is not an assignment\n")
        async with run_client(tmp_path, approve="never") as client:
            result = await run(client, agent, "r1")
            dry = await client.protocol.send_request_async(
                "lait/run", {"uri": agent.as_uri(), "kind": "agent", "runId": "r2"}
            )
        env_file = tmp_path / ".env"
        assert result["status"] == "failed"
        assert result["error"].startswith(f"lait: {env_file}:2: expected KEY=VALUE")
        assert dry["status"] == "failed" and dry["error"] == result["error"]
        assert llm.requests == []


async def test_dry_run_expands_base_url_from_dotenv(tmp_path: Path) -> None:
    with ScriptedOpenAIServer() as llm:
        project(tmp_path, llm)
        workflow = tmp_path / "flow.yml"
        workflow.write_text("steps:\n  - prompt: hello\n", encoding="utf-8")
        async with run_client(tmp_path, approve="never") as client:
            result = await client.protocol.send_request_async(
                "lait/run", {"uri": workflow.as_uri(), "dryRun": True, "runId": "d1"}
            )
        assert result["status"] == "ok", result
        assert f"model: scripted @ {llm.url}" in result["output"]
