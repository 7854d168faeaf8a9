"""Contained stdio MCP servers, with canary secrets, as real subprocesses against the real peer:
``env_inherit: false`` (or ``confine: project`` without ``env_inherit``) gives the server only its
``env:`` plus PATH, HOME, LANG and TERM, so an API key in lait's environment never reaches it; an
inheriting server does get it, and ``lait lint`` warns about that (LAIT605). No process is left."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import Lait
from tests.processes import running_with_marker

REPO = Path(__file__).resolve().parents[2]
CANARY = "sk-canary-" + uuid.uuid4().hex


def write(lait: Lait, top: dict[str, Any] | None = None, **server: Any) -> None:
    peer = {
        "command": sys.executable,
        "args": ["-m", "tests.peers.mcp_peer", "--getenv"],
        "cwd": str(REPO),
        "env": {
            "PYTHONPATH": str(REPO),
            "LAIT_TEST_MARKER": lait.env["LAIT_TEST_MARKER"],
            "PEER_SETTING": "on",
        },
        **server,
    }
    config = {"api_key": "${OPENAI_API_KEY}", "mcp_servers": {"peer": peer}, **(top or {})}
    lait.write("lait.config.yml", json.dumps(config))


NAMES = ("OPENAI_API_KEY", "XDG_CONFIG_HOME", "PEER_SETTING", "HOME", "LANG", "PATH")


def getenv(lait: Lait) -> dict[str, str]:
    """What the server sees of :data:`NAMES` (one ``lait mcp call``)."""
    run = lait("mcp", "call", "peer", "getenv", json.dumps({"name": ",".join(NAMES)}), "--json", timeout=60)
    assert run.returncode == 0, run.stderr
    seen: dict[str, str] = json.loads(json.loads(run.stdout)["content"][0]["text"])
    return seen


@pytest.fixture
def marked(lait: Lait) -> Lait:
    lait.env["LAIT_TEST_MARKER"] = uuid.uuid4().hex
    lait.env["OPENAI_API_KEY"] = CANARY
    lait.env["LANG"] = "C.UTF-8"
    return lait


@pytest.mark.parametrize(
    ("server", "top"),
    [
        ({"env_inherit": False}, {}),
        ({}, {"confine": "project"}),
        ({"env_inherit": False}, {"confine": "none"}),
    ],
)
def test_a_contained_server_sees_no_api_key(
    marked: Lait, server: dict[str, Any], top: dict[str, Any]
) -> None:
    write(marked, top, **server)
    seen = getenv(marked)
    assert seen["OPENAI_API_KEY"] == "<unset>"
    assert seen["XDG_CONFIG_HOME"] == "<unset>"  # nothing else of lait's environment either
    assert seen["PEER_SETTING"] == "on"  # its env: is passed
    assert (seen["HOME"], seen["LANG"], seen["PATH"]) == (marked.env["HOME"], "C.UTF-8", marked.env["PATH"])
    lint = marked("lint", "lait.config.yml")
    assert "LAIT605" not in lint.stdout, lint.stdout
    assert running_with_marker(marked.env["LAIT_TEST_MARKER"]) == []


@pytest.mark.parametrize(("server", "top"), [({}, {}), ({"env_inherit": True}, {"confine": "project"})])
def test_an_inheriting_server_sees_the_key_and_lint_warns(
    marked: Lait, server: dict[str, Any], top: dict[str, Any]
) -> None:
    write(marked, top, **server)
    seen = getenv(marked)
    assert seen["OPENAI_API_KEY"] != "<unset>"  # the key, as is or masked in the output
    assert seen["XDG_CONFIG_HOME"] == marked.env["XDG_CONFIG_HOME"]
    lint = marked("lint", "lait.config.yml")
    assert lint.returncode == 0
    [finding] = [line for line in lint.stdout.splitlines() if "LAIT605" in line]
    assert "MCP server 'peer' inherits lait's whole environment" in finding
    assert "OPENAI_API_KEY" in finding and CANARY not in lint.stdout + lint.stderr
    assert running_with_marker(marked.env["LAIT_TEST_MARKER"]) == []
