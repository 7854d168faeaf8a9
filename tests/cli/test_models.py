"""`lait models [--remote] [--json]` (docs/cli.md): the configured aliases with the
default marked, and the ids a server lists (GET /models, with the key) against the scripted server."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator

import pytest

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer


@pytest.fixture
def clean(lait: Lait) -> Lait:
    for key in list(lait.env):
        if key.startswith(("OPENAI_", "LLM_")):
            del lait.env[key]
    return lait


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer(models=["alpha", "beta"], api_key="k-123") as s:
        yield s


CONFIG = """\
default:
  model: fast
models:
  fast:
    - provider: {base_url: "http://127.0.0.1:9/v1"}
      model_id: small-model
    - provider: {base_url: "http://127.0.0.1:10/v1"}
      model_id: backup-model
  big:
    - provider: {base_url: "http://127.0.0.1:9/v1"}
      model_id: large-model
"""


def test_lists_the_aliases_with_the_default_marked(clean: Lait) -> None:
    clean.write("lait.config.yml", CONFIG)
    run = clean("models")
    assert run.returncode == 0, run.stderr
    lines = run.lines
    assert lines[0].startswith("* fast  ") and "small-model" in lines[0]
    assert "then backup-model at http://127.0.0.1:10/v1" in lines[0]
    assert lines[1].startswith("  big   ") and "large-model" in lines[1]
    assert lines[2].startswith("  embedded") and "SmolLM2-135M-Instruct" in lines[2]
    data = json.loads(clean("models", "--json").stdout)
    assert data["default"] == "fast"
    assert [m["alias"] for m in data["models"]] == ["fast", "big", "embedded"]
    assert data["models"][0]["endpoints"][1] == {
        "model_id": "backup-model",
        "endpoint": "http://127.0.0.1:10/v1",
    }
    bare = clean("models", "--no-config")
    assert bare.returncode == 0 and bare.lines[0].startswith("  embedded")


def test_remote_lists_what_the_server_serves(clean: Lait, server: ScriptedOpenAIServer) -> None:
    run = clean("models", "--remote", "--base-url", server.url, "--api-key", "k-123")
    assert (run.returncode, run.stdout) == (0, "alpha\nbeta\n"), run.stderr
    clean.write("lait.config.yml", f'base_url: "{server.url}"\napi_key: "${{MY_KEY}}"\n')
    clean.env["MY_KEY"] = "k-123"
    from_config = clean("models", "--remote", "--json")
    assert from_config.returncode == 0, from_config.stderr
    assert json.loads(from_config.stdout) == {"base_url": server.url, "models": ["alpha", "beta"]}
    assert server.all_requests[-1].headers["authorization"] == "Bearer k-123"
    clean.env["OPENAI_API_KEY"] = "wrong"
    refused = clean("models", "--remote")
    assert refused.returncode == 4
    assert refused.stderr == f"lait: request to {server.url}/models failed: HTTP 401\n"


def test_remote_unreachable_exits_4(clean: Lait) -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    run = clean("models", "--remote", "--base-url", f"http://127.0.0.1:{port}/v1")
    assert run.returncode == 4
    assert run.stderr.startswith(f"lait: request to http://127.0.0.1:{port}/v1/models failed: ")
