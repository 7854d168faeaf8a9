"""`lait import` as a real subprocess: a Claude Code subagent with the MCP server of its `.mcp.json` becomes a
lait agent and an `mcp_servers:` entry that lint clean and run against the scripted model (the MCP server is
tests/peers/mcp_peer.py, a real one); a VS Code agent and `.vscode/mcp.json` likewise; `--check` for CI."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

REPO = Path(__file__).resolve().parents[2]
CLAUDE = """\
---
name: adder
description: Adds numbers with the peer server.
tools: Read, mcp__peer__add
model: sonnet
maxTurns: 4
color: green
---
You add numbers. Answer with the sum only; {{ braces }} stay literal.
"""


def _mcp_json() -> str:
    server = {
        "command": sys.executable,
        "args": ["-m", "tests.peers.mcp_peer"],
        "env": {"PYTHONPATH": str(REPO)},
    }
    return json.dumps({"mcpServers": {"peer": server}}, indent=2) + "\n"


def test_claude_subagent_round_trip(lait_no_model_env: Lait, server: ScriptedOpenAIServer) -> None:
    lait = lait_no_model_env
    lait.write(".claude/agents/adder.md", CLAUDE)
    lait.write(".mcp.json", _mcp_json())
    lait.write("lait.config.yml", f"base_url: {server.url}\ndefault: {{model: m}}\n")
    check = lait("import", "--check", ".claude/agents/adder.md")
    assert check.returncode == 1 and "agents/adder.md is missing" in check.stderr
    run = lait("import", ".claude/agents/adder.md")
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == ["wrote agents/adder.md", "wrote lait.config.yml"]
    lost = run.stderr
    assert "not carried over" in lost and "'Read'" in lost and "'model: sonnet'" in lost and "'color'" in lost
    agent = (lait.cwd / "agents/adder.md").read_text()
    assert agent.startswith("---\nname: adder\ndescription: Adds numbers with the peer server.\n")
    assert "max_tool_rounds: 4\n" in agent and "mcp: [peer]\n" in agent
    assert agent.endswith("---\nYou add numbers. Answer with the sum only; \\{{ braces }} stay literal.\n")
    config = (lait.cwd / "lait.config.yml").read_text()
    assert config.startswith(f"base_url: {server.url}\ndefault: {{model: m}}\nmcp_servers:\n  peer:\n")

    lint = lait("lint", "agents", "lait.config.yml")
    assert (lint.returncode, lint.stdout) == (0, ""), lint.stdout
    # the converted agent runs: the model calls the MCP tool and answers
    server.push(tool_calls(call("peer__add", {"a": 2, "b": 3}, id="c1")), text("5"))
    ran = lait("agent", "run", "agents/adder.md", "2 + 3")
    assert (ran.returncode, ran.stdout) == (0, "5\n"), ran.stderr
    first, second = server.bodies
    assert first["messages"][0] == {
        "role": "system",
        "content": "You add numbers. Answer with the sum only; {{ braces }} stay literal.",
    }
    assert "peer__add" in [t["function"]["name"] for t in first["tools"]]
    assert second["messages"][-1]["role"] == "tool" and second["messages"][-1]["content"].startswith("5")

    # up to date now, except for what cannot be carried over
    again = lait("import", "--check", ".claude/agents/adder.md")
    assert again.returncode == 1 and "is missing" not in again.stderr and "out of date" not in again.stderr
    assert lait("import", "--check", "--allow-lost", ".claude/agents/adder.md").returncode == 0
    # the original changes: the check fails
    lait.write(".claude/agents/adder.md", CLAUDE.replace("Adds numbers", "Adds integers"))
    stale = lait("import", "--check", "--allow-lost", ".claude/agents/adder.md")
    assert stale.returncode == 1 and "agents/adder.md is out of date" in stale.stderr
    refused = lait("import", ".claude/agents/adder.md")
    assert refused.returncode == 1 and "--force" in refused.stderr
    assert lait("import", "--force", ".claude/agents/adder.md").returncode == 0
    assert "Adds integers" in (lait.cwd / "agents/adder.md").read_text()


def test_vscode_agent_and_mcp_json(lait: Lait) -> None:
    lait.write(
        ".vscode/mcp.json",
        '{\n  // workspace servers\n  "inputs": [{"type": "promptString", "id": "api-key", "description": "Key"}],\n'
        '  "servers": {\n    "docs": {"type": "http", "url": "https://example.com/mcp",'
        ' "headers": {"Authorization": "Bearer ${input:api-key}"}},\n'
        '    "fs": {"command": "npx", "args": ["-y", "server-fs", "${workspaceFolder}"], "sandboxEnabled": true},\n  }\n}\n',
    )
    lait.write(
        ".github/agents/planner.agent.md",
        "---\ndescription: Plans.\ntools: ['search/codebase', 'docs/*']\nhandoffs:\n  - label: Go\n    agent: impl\n---\nPlan it.\n",
    )
    run = lait("import", ".github/agents/planner.agent.md")
    assert run.returncode == 0, run.stderr
    agent = (lait.cwd / "agents/planner.md").read_text()
    assert agent == "---\nname: planner\ndescription: Plans.\nmcp: [docs]\n---\nPlan it.\n"
    assert "'search/codebase'" in run.stderr and "'handoffs' has no lait counterpart" in run.stderr
    assert "${input:api-key}" in run.stderr
    run = lait("import", ".vscode/mcp.json")
    assert run.returncode == 0, run.stderr
    config = (lait.cwd / "lait.config.yml").read_text()
    assert (
        '  docs:\n    url: "https://example.com/mcp"\n' in config
        or "  docs:\n    url: https://example.com/mcp\n" in config
    )
    assert "Bearer ${API_KEY}" in config
    assert "'sandboxEnabled' has no lait counterpart" in run.stderr
    lint = lait("lint", "lait.config.yml", "agents")
    assert lint.returncode == 0, lint.stdout


def test_errors_are_located(lait: Lait) -> None:
    lait.write(".mcp.json", '{"mcpServers": [1,\n')
    run = lait("import", ".mcp.json")
    assert run.returncode == 1 and run.stderr.startswith("lait: ") and "Traceback" not in run.stderr
    lait.write("notes.md", "# notes\n")
    run = lait("import", "notes.md")
    assert run.returncode == 1 and "cannot import 'notes.md'" in run.stderr
    assert lait("import", "missing.md").returncode == 1


def test_lait209_advice_converts_the_file_in_place(lait: Lait) -> None:
    lait.write("lait.config.yml", "models: {}\n")
    lait.write(
        "agents/planner.md",
        "---\nname: planner\ndescription: Plans.\nmodel: inherit\npermissionMode: plan\n---\nPlan.\n",
    )
    lint = lait("lint", "agents/planner.md")
    assert "LAIT209 warning" in lint.stdout and "lait import agents/planner.md" in lint.stdout
    assert lint.returncode == 0  # a warning now
    run = lait("import", "agents/planner.md")
    assert run.returncode == 0 and run.stdout == "wrote agents/planner.md\n", run.stderr
    assert (
        lait.cwd / "agents/planner.md"
    ).read_text() == "---\nname: planner\ndescription: Plans.\n---\nPlan.\n"
    assert lait("lint", "agents/planner.md").stdout == ""


def test_secret_values_are_never_printed(lait: Lait) -> None:
    canary = "sk-canary-7f3a9b2c4d"
    lait.write(
        ".mcp.json",
        json.dumps(
            {
                "mcpServers": {
                    "web": {
                        "type": "http",
                        "url": "https://x/mcp",
                        "headers": {"Authorization": f"Bearer {canary}"},
                        "oauth": {"clientSecret": canary},
                    }
                }
            }
        ),
    )
    for args in (("import", "--check", ".mcp.json"), ("import", ".mcp.json"), ("lint", ".")):
        run = lait(*args)
        assert canary not in run.stdout + run.stderr, args
