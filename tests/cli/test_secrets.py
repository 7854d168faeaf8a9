"""Issue 19, "secrets never printed", in the CLI: a model URL with credentials in its userinfo and
an expanded ``?key=${KEY}``, an API key from ``${VAR}`` that the server echoes in its error body,
an MCP server URL with a token. No canary may reach stderr (errors, ``-vv`` debug lines, workflow
progress) or the listings; the server's error body is shown with ``***`` where the key was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, error, text

CANARIES = ("canary-userinfo-7f3", "canary-query-9d1", "sk-canary-key-2b8")


def configure(lait: Lait, llm: ScriptedOpenAIServer) -> None:
    url = f"http://user:{CANARIES[0]}@127.0.0.1:{llm.port}/v1?key=${{QUERY_KEY}}"
    lait.write(
        "lait.config.yml",
        f"""default:
  model: test-model
models:
  test-model:
    - provider: {{base_url: "{url}", api_key: "${{MODEL_KEY}}"}}
      model_id: scripted
mcp_servers:
  remote:
    url: "https://token:{CANARIES[0]}@mcp.example/mcp?token={CANARIES[1]}"
""",
    )
    lait.env.update({"QUERY_KEY": CANARIES[1], "MODEL_KEY": CANARIES[2]})


def assert_clean(text: str) -> None:
    for canary in CANARIES:
        assert canary not in text, (canary, text)


@pytest.mark.parametrize("verbose", [[], ["-vv"]], ids=["plain", "debug"])
def test_chat_error_shows_the_body_but_no_secret(lait: Lait, verbose: list[str]) -> None:
    with ScriptedOpenAIServer() as llm:
        configure(lait, llm)
        llm.push(error(401, f"invalid api key {CANARIES[2]} for key={CANARIES[1]}"))
        run = lait(*verbose, "hi")
        assert llm.requests, "the request was not sent"
    assert run.returncode == 4, run.stderr
    assert "invalid api key *** for key=***" in run.stderr, run.stderr
    assert "http://***@127.0.0.1:" in run.stderr, run.stderr
    assert_clean(run.stdout + run.stderr)


def test_workflow_step_error_has_no_secret(lait: Lait) -> None:
    with ScriptedOpenAIServer() as llm:
        configure(lait, llm)
        llm.push(error(401, f"invalid api key {CANARIES[2]}"))
        lait.write("wf.yml", "steps:\n  - id: ask\n    prompt: hi\n")
        run = lait("run", "wf.yml", "go")
    assert run.returncode == 4, run.stderr
    assert "invalid api key ***" in run.stderr, run.stderr
    assert_clean(run.stdout + run.stderr)


def test_listings_show_no_url_credentials(lait: Lait) -> None:
    with ScriptedOpenAIServer() as llm:
        configure(lait, llm)
    for args in (["mcp", "list"], ["mcp", "list", "--json"], ["models"], ["models", "--json"]):
        run = lait(*args)
        assert run.returncode == 0, (args, run.stderr)
        assert "***" in run.stdout, (args, run.stdout)
        assert_clean(run.stdout + run.stderr)
    listed = json.loads(lait("mcp", "list", "--json").stdout)
    assert "https://***@mcp.example/mcp?token=***" in json.dumps(listed)


def test_records_hold_no_secret(lait: Lait, tmp_path: Path) -> None:
    """A successful workflow run with ``--record`` and ``--trace-file``: the cassette, the trace and the run
    history hold the answer, but no credential of the URL and not the key (the model echoes the key
    in its answer too)."""
    data = tmp_path / "data"
    lait.env["XDG_DATA_HOME"] = str(data)
    with ScriptedOpenAIServer() as llm:
        configure(lait, llm)
        llm.push(text(f"the answer; your key is {CANARIES[2]}"))
        lait.write("wf.yml", "steps:\n  - id: ask\n    prompt: hi\n")
        run = lait("run", "wf.yml", "go", "--record", "rec", "--trace-file", "trace.jsonl")
        assert llm.requests, run.stderr
    assert run.returncode == 0, run.stderr
    files = [*sorted((lait.cwd / "rec").rglob("*")), lait.cwd / "trace.jsonl", *sorted(data.rglob("*"))]
    texts = {str(f): f.read_text(encoding="utf-8") for f in files if f.is_file()}
    assert any("the answer; your key is ***" in t for t in texts.values()), texts
    assert any("history" in name for name in texts), list(texts)
    for name, content in texts.items():
        for canary in CANARIES:
            assert canary not in content, (name, canary)
