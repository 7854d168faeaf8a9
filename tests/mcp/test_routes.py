"""The ``mcp:`` routes through the real CLI (seed 000 table): repeated ``--mcp`` flags on chat
replace ``default.mcp``; a workflow step's ``mcp:`` replaces it too. Each run offers exactly the
named servers' tools, calls one, and leaves no server process behind."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.cli.conftest import clean_env
from tests.mcp.conftest import REPO, group_alive
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls


def _config(server: ScriptedOpenAIServer, pid_file: Path) -> dict[str, Any]:
    def peer_entry(name: str) -> dict[str, Any]:
        # a shell records its pid (the process group) and becomes the peer
        script = f'echo $$ >> "{pid_file}"; exec "{sys.executable}" -m tests.peers.mcp_peer'
        return {"command": "sh", "args": ["-c", script], "cwd": str(REPO), "env": {"LAIT_PEER_VAR": name}}

    return {
        "base_url": server.url,
        "default": {"model": "m", "mcp": ["a"]},
        "mcp_servers": {name: peer_entry(name) for name in ("a", "b", "c")},
    }


def _lait(work: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in clean_env(work, work).items() if not k.startswith(("OPENAI_", "LLM_"))}
    return subprocess.run(
        [sys.executable, "-m", "lait_cli.main", *args],
        cwd=work,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def _servers_offered(body: dict[str, Any]) -> set[str]:
    return {t["function"]["name"].split("__")[0] for t in body["tools"]}


def _no_server_left(pid_file: Path) -> None:
    pids = [int(p) for p in pid_file.read_text().split()]
    assert pids and all(group_alive(pid) == [] for pid in pids)


def test_repeated_mcp_flags_on_chat(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    with ScriptedOpenAIServer() as server:
        (tmp_path / "lait.config.yml").write_text(json.dumps(_config(server, pid_file)))
        server.push(tool_calls(call("c__whoami", {})), text("done"))
        run = _lait(tmp_path, "--mcp", "b", "--mcp", "c", "who are you?")
        bodies = server.bodies
    assert (run.returncode, run.stdout) == (0, "done\n"), run.stderr
    assert _servers_offered(bodies[0]) == {"b", "c"}  # default.mcp [a] replaced
    assert "env=c " in bodies[1]["messages"][-1]["content"]
    assert len(pid_file.read_text().split()) == 2  # b and c, each connected once
    _no_server_left(pid_file)


def test_workflow_step_mcp_replaces_default(tmp_path: Path) -> None:
    pid_file = tmp_path / "pids"
    (tmp_path / "workflow.yml").write_text(
        "steps:\n  - prompt: 'who serves {{ input }}?'\n    mcp: [b]\n  - prompt: 'and now?'\n"
    )
    with ScriptedOpenAIServer() as server:
        (tmp_path / "lait.config.yml").write_text(json.dumps(_config(server, pid_file)))
        server.push(tool_calls(call("b__whoami", {})), text("b did"), text("second"))
        run = _lait(tmp_path, "run", "workflow.yml", "you")
        bodies = server.bodies
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip().endswith("second")
    assert _servers_offered(bodies[0]) == {"b"}
    assert "env=b " in bodies[1]["messages"][-1]["content"]
    assert _servers_offered(bodies[2]) == {"a"}  # the second step falls back to default.mcp
    _no_server_left(pid_file)
