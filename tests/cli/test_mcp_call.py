"""`lait mcp call SERVER TOOL [JSON]` as a real subprocess against the real peer MCP server
(tests/peers/mcp_peer.py over stdio): output, --json, exit codes, and the same gates as a model's
call (tool_policy, allowed_tools, --approve-tools on a terminal and without one). The peer records
every tools/call it receives (--marker), so a refused call is shown never to reach it."""

from __future__ import annotations

import json
import sys
import uuid
from pathlib import Path
from typing import Any

import pexpect

from tests.cli.conftest import Lait
from tests.processes import running_with_marker

REPO = Path(__file__).resolve().parents[2]


def peer_config(lait: Lait, marker_file: Path | None = None, **extra: Any) -> dict[str, Any]:
    args = ["-m", "tests.peers.mcp_peer"]
    if marker_file is not None:
        args += ["--marker", str(marker_file)]
    return {
        "command": sys.executable,
        "args": args,
        "cwd": str(REPO),
        "env": {"PYTHONPATH": str(REPO), "LAIT_TEST_MARKER": lait.env.get("LAIT_TEST_MARKER", "")},
        **extra,
    }


def write(lait: Lait, servers: dict[str, Any], **top: Any) -> None:
    lait.write("lait.config.yml", json.dumps({"mcp_servers": servers, **top}))


def calls_seen(marker_file: Path) -> list[str]:
    if not marker_file.exists():
        return []
    return [line for line in marker_file.read_text().splitlines() if line.startswith("call ")]


def test_text_and_json_output(lait: Lait) -> None:
    marker = uuid.uuid4().hex
    lait.env["LAIT_TEST_MARKER"] = marker
    write(lait, {"peer": peer_config(lait)})
    run = lait("mcp", "call", "peer", "add", '{"a": 2, "b": 40}', timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout == '42\n\nstructuredContent:\n{"result":42}\n'  # as the model sees it
    run = lait("mcp", "call", "peer", "add", '{"a": 2, "b": 40}', "--json", timeout=60)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {
        "content": [{"type": "text", "text": "42"}],
        "structuredContent": {"result": 42},
        "isError": False,
    }
    run = lait("mcp", "call", "peer", "echo", "-", stdin=b'{"text": "from stdin"}', timeout=60)
    assert (run.returncode, run.stdout.split("\n")[0]) == (0, "from stdin"), run.stderr
    assert running_with_marker(marker) == []


def test_tool_error_result_exits_1(lait: Lait) -> None:
    write(lait, {"peer": peer_config(lait)})
    run = lait("mcp", "call", "peer", "fail", '{"message": "no luck"}', "--json", timeout=60)
    assert run.returncode == 1
    result = json.loads(run.stdout)
    assert result["isError"] is True and "no luck" in result["content"][0]["text"]


def test_bad_arguments_unknown_tool_and_unknown_server(lait: Lait, tmp_path: Path) -> None:
    marker_file = tmp_path / "seen"
    write(lait, {"peer": peer_config(lait, marker_file)})
    for bad in ("[1, 2]", "{nope", '"text"'):
        run = lait("mcp", "call", "peer", "add", bad)
        assert (run.returncode, run.stdout) == (2, ""), bad
        assert run.stderr.startswith("lait: the tool arguments "), run.stderr
    run = lait("mcp", "call", "peer", "nope", timeout=60)
    assert (run.returncode, run.stdout) == (1, "")
    assert run.stderr.startswith("lait: MCP server 'peer': has no tool 'nope' (it offers: add, echo, ")
    run = lait("mcp", "call", "other", "add")
    assert run.returncode == 1 and run.stderr == (
        "lait: unknown MCP server 'other'; define it under 'mcp_servers:' in lait.config.yml (configured: peer)\n"
    )
    assert calls_seen(marker_file) == []


def test_allowed_tools_and_tool_policy_refuse_before_the_call(lait: Lait, tmp_path: Path) -> None:
    marker_file = tmp_path / "seen"
    write(
        lait,
        {"peer": peer_config(lait, marker_file, allowed_tools=["add", "echo"])},
        tool_policy={"deny": ["peer__echo"]},
    )
    run = lait("mcp", "call", "peer", "fail", timeout=60)
    assert (run.returncode, run.stdout) == (1, "")
    assert "'mcp_servers.peer.allowed_tools'" in run.stderr and run.stderr.startswith("lait: ")
    run = lait("mcp", "call", "peer", "echo", '{"text": "x"}', timeout=60)
    assert (run.returncode, run.stdout) == (1, "")
    assert (
        run.stderr
        == "lait: MCP server 'peer': calling 'peer__echo' was denied by 'tool_policy' in lait.config.yml "
        "(deny pattern 'peer__echo')\n"
    )
    assert calls_seen(marker_file) == []
    run = lait("mcp", "call", "peer", "add", '{"a": 1, "b": 2}', timeout=60)
    assert run.returncode == 0 and calls_seen(marker_file) == ["call add 1 2"]


def test_approve_tools_without_a_terminal_fails_clearly(lait: Lait, tmp_path: Path) -> None:
    marker_file = tmp_path / "seen"
    write(lait, {"peer": peer_config(lait, marker_file)})
    run = lait("--approve-tools", "mcp", "call", "peer", "add", '{"a": 1, "b": 2}', timeout=60)
    assert (run.returncode, run.stdout) == (1, "")
    assert run.stderr.startswith("lait: --approve-tools needs an interactive terminal")
    assert calls_seen(marker_file) == []


def spawn(lait: Lait, *args: str) -> pexpect.spawn:
    env = {**lait.env, "PYTHONPATH": str(REPO), "TERM": "dumb"}
    return pexpect.spawn(
        sys.executable,
        ["-m", "lait_cli.main", *args],
        cwd=str(lait.cwd),
        env=env,
        encoding="utf-8",
        timeout=60,
    )


def test_approve_tools_asks_on_the_terminal(lait: Lait, tmp_path: Path) -> None:
    """On a pseudo-terminal the call is shown with its arguments; 'n' refuses it, 'y' runs it."""
    marker_file = tmp_path / "seen"
    write(lait, {"peer": peer_config(lait, marker_file)})
    for answer, code in (("n", 1), ("y", 0)):
        child = spawn(lait, "--approve-tools", "mcp", "call", "peer", "add", '{"a": 3, "b": 4}')
        try:
            child.expect_exact('tool call: peer__add\r\narguments: {"a":3,"b":4}\r\nallow this call?')
            child.sendline(answer)
            child.expect(pexpect.EOF)
        finally:
            child.close()
        assert child.exitstatus == code, child.before
        if answer == "n":
            assert "calling 'peer__add' was denied interactively (--approve-tools)" in str(child.before)
            assert calls_seen(marker_file) == []
        else:
            assert "7" in str(child.before)
            assert calls_seen(marker_file) == ["call add 3 4"]


def test_a_canary_secret_never_reaches_the_output(lait: Lait) -> None:
    """A header value and a URL query value of the server (both remembered as secrets) appear in no
    output of a failing call, and the text of --json is not an error trace."""
    canary = "canary-" + uuid.uuid4().hex
    lait.env["LAIT_CANARY"] = canary
    write(
        lait,
        {
            "web": {
                "url": "http://127.0.0.1:9/mcp?token=${LAIT_CANARY}",
                "headers": {"Authorization": "Bearer ${LAIT_CANARY}"},
            }
        },
    )
    for extra in ((), ("--json",), ("-v",)):
        run = lait("mcp", "call", "web", "search", '{"q": "x"}', *extra, timeout=60)
        assert run.returncode == 1
        assert run.stderr.startswith("lait: MCP server 'web': ")
        assert canary not in run.stdout + run.stderr
