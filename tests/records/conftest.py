"""Fixtures of the records tests: a project whose default model is the scripted server, with a
shell tool and the MCP peer configured, a private XDG data dir (history) and a canary secret in
every place a secret can live (api_key_cmd output, a ${VAR} in an MCP header, a literal header)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import REPO, Lait, clean_env
from tests.peers.openai_server import ScriptedOpenAIServer

CANARY = "CANARY-7f3a9c21-secret"
"""Never allowed in any file lait writes."""


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as s:
        yield s


def project_config(url: str, *, key: str = "cmd") -> str:
    """A config with the canary as the model's key (``cmd``: the output of ``api_key_cmd``;
    ``literal``: ``api_key``), an MCP peer and a shell tool."""
    auth = (
        f"api_key_cmd: [{json.dumps(sys.executable)}, -c, 'print(\"{CANARY}-cmd\")']"
        if key == "cmd"
        else f"api_key: {CANARY}-literal"
    )
    return f"""\
models:
  main:
    - provider:
        base_url: "{url}"
        {auth}
      model_id: test-model
default:
  model: main
tools:
  shout:
    description: Upper-case a word.
    command: [sh, -c, 'printf "%s\\n" "$1" | tr a-z A-Z', sh, "{{{{ input.word }}}}"]
    parameters:
      type: object
      properties: {{word: {{type: string}}}}
      required: [word]
mcp_servers:
  peer:
    command: {json.dumps(sys.executable)}
    args: ["-m", "tests.peers.mcp_peer"]
    cwd: {json.dumps(str(REPO))}
  remote:
    url: "http://127.0.0.1:9/mcp"
    headers:
      X-Api-Key: "{CANARY}-header"
      Authorization: "Bearer ${{LAIT_TEST_CANARY}}"
"""


@pytest.fixture
def project(server: ScriptedOpenAIServer, tmp_path: Path) -> Lait:
    for name in ("_xdg", "_home", "work"):
        (tmp_path / name).mkdir()
    lait = Lait(tmp_path / "work", clean_env(tmp_path / "_xdg", tmp_path / "_home"))
    for key in list(lait.env):
        if key.startswith(("OPENAI_", "LLM_")):
            del lait.env[key]
    lait.env["XDG_DATA_HOME"] = str(tmp_path / "_data")
    lait.env["LAIT_TEST_CANARY"] = f"{CANARY}-env"
    lait.env["OPENAI_API_KEY"] = f"{CANARY}-envkey"
    lait.write("lait.config.yml", project_config(server.url))
    return lait


def files_under(*roots: Path) -> list[Path]:
    out: list[Path] = []
    for root in roots:
        if root.is_file():
            out.append(root)
        elif root.is_dir():
            out.extend(p for p in root.rglob("*") if p.is_file())
    return out


def assert_no_canary(*roots: Path) -> int:
    """Every file under ``roots`` that lait wrote (all but the test's lait.config.yml) is free of the
    canary; returns how many files were checked."""
    files = [p for p in files_under(*roots) if p.name != "lait.config.yml"]
    for path in files:
        assert CANARY.encode() not in path.read_bytes(), path
    return len(files)
