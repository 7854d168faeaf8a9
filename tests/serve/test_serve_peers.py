"""Third-party MCP clients against `lait serve --mcp --http 127.0.0.1:0`: the official conformance
suite's server scenarios (with the expected failures of tests/peers/conformance/baseline.yml,
each with its reason: the suite fails on a regression and on a stale entry), and the MCP Inspector
CLI listing and calling a served workflow."""

from __future__ import annotations

import json
import subprocess

from tests.serve.conftest import HttpServer
from tests.serve.peers import BASELINE, CONFORMANCE, INSPECTOR, node, script


def test_conformance_server_scenarios(http_server: HttpServer, tmp_path: object) -> None:
    done = subprocess.run(
        [
            *(node(), script(CONFORMANCE), "server", "--url", http_server.url, "--suite", "all"),
            *("--expected-failures", str(BASELINE), "-o", str(tmp_path)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    summary = done.stdout[done.stdout.rfind("=== SUMMARY ===") :]
    assert done.returncode == 0, summary + done.stderr[-3000:]
    for scenario in (
        "server-initialize",
        "ping",
        "logging-set-level",
        "tools-list",
        "dns-rebinding-protection",
    ):
        assert f"✓ {scenario}:" in summary, summary
    assert "✓ server-sse-multiple-streams:" in summary, summary


def test_inspector_cli_lists_and_calls_a_workflow(http_server: HttpServer) -> None:
    # inspector-cli 1.0.3 finds its own package.json relative to the working directory
    cwd = INSPECTOR.parent

    def inspect(*args: str) -> dict[str, object]:
        done = subprocess.run(
            [node(), script(INSPECTOR), http_server.url, *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            timeout=120,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 0, done.stderr
        value: dict[str, object] = json.loads(done.stdout)
        return value

    listed = inspect("--method", "tools/list")
    tools = {t["name"]: t for t in listed["tools"]}  # type: ignore[attr-defined]
    assert tools["workflow__echo"]["description"] == "Echo the input in an object"
    assert tools["workflow__typed"]["inputSchema"]["required"] == ["inputs"]
    assert "workflow__ship" not in tools  # the inspector declares no elicitation capability
    called = inspect("--method", "tools/call", "--tool-name", "workflow__echo", "--tool-arg", "input=hello")
    assert called["isError"] is False
    assert json.loads(called["content"][0]["text"]) == {"got": "hello"}  # type: ignore[index]
