"""`lait mcp list` and `lait mcp tools NAME` as real subprocesses; `tools` talks to the real
@modelcontextprotocol/server-everything over stdio and over HTTP on 127.0.0.1."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from tests.cli.conftest import Lait
from tests.mcp_everything.peer import HttpEverything, http_everything, stdio_config
from tests.processes import running_with_marker, wait_for_marked

CONFIG = """\
default:
  mcp: [remote, picky]
mcp_servers:
  files:
    command: npx
    args: [-y, "@modelcontextprotocol/server-filesystem", "/my dir"]
    env: {TOKEN: "${SECRET}"}
    cwd: tools
  remote:
    url: http://127.0.0.1:3901/mcp
    headers: {Authorization: "Bearer ${TOKEN}"}
    allowed_tools: []
    allow_elicitation: true
  picky:
    url: http://127.0.0.1:3902/mcp
    allowed_tools: [echo, get-sum]
  odd:
    command: x
    url: http://x
"""


@pytest.fixture(scope="module")
def http_peer() -> Iterator[HttpEverything]:
    with http_everything() as peer:
        yield peer


def write_config(lait: Lait, servers: dict[str, Any]) -> None:
    lait.write("lait.config.yml", json.dumps({"mcp_servers": servers}))


# -- lait mcp list -------------------------------------------------------------------------------
def test_list_text(lait: Lait) -> None:
    lait.write("lait.config.yml", CONFIG)
    run = lait("mcp", "list")
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout == (
        "  files   stdio    npx -y @modelcontextprotocol/server-filesystem '/my dir'\n"
        "          allowed_tools: all tools\n"
        "* remote  http     http://127.0.0.1:3901/mcp\n"
        "          allowed_tools: no tools ([])\n"
        "          allow_elicitation: true\n"
        "* picky   http     http://127.0.0.1:3902/mcp\n"
        "          allowed_tools: echo, get-sum\n"
        "  odd     invalid  both 'command' and 'url' are set\n"
        "          allowed_tools: all tools\n"
    )


def test_list_json_leaves_out_secret_values(lait: Lait) -> None:
    lait.write("lait.config.yml", CONFIG)
    run = lait("mcp", "list", "--json")
    assert run.returncode == 0, run.stderr
    entries = json.loads(run.stdout)
    assert [e["name"] for e in entries] == ["files", "remote", "picky", "odd"]
    assert entries[0] == {
        "name": "files",
        "transport": "stdio",
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-filesystem", "/my dir"],
        "cwd": "tools",
        "env": ["TOKEN"],
        "allowed_tools": None,
        "allow_elicitation": False,
        "default": False,
    }
    assert entries[1] == {
        "name": "remote",
        "transport": "http",
        "url": "http://127.0.0.1:3901/mcp",
        "headers": ["Authorization"],
        "allowed_tools": [],
        "allow_elicitation": True,
        "default": True,
    }
    assert entries[3]["transport"] == "invalid"
    assert "SECRET" not in run.stdout and "Bearer" not in run.stdout


def test_list_without_servers(lait: Lait) -> None:
    lait.write("lait.config.yml", "default: {model: m}\n")
    run = lait("mcp", "list")
    assert (run.returncode, run.stdout) == (0, "")
    assert run.stderr == (
        "no MCP servers are configured; define them under 'mcp_servers:' in lait.config.yml\n"
    )
    assert lait("mcp", "list", "--json").stdout == "[]\n"
    assert lait("--no-config", "mcp", "list", "--json").stdout == "[]\n"


def test_list_reads_the_config_given_and_the_one_above(lait: Lait) -> None:
    lait.write("other.yml", "mcp_servers:\n  elsewhere: {url: 'http://127.0.0.1:1/mcp'}\n")
    lait.write("lait.config.yml", "mcp_servers:\n  here: {command: srv}\n")
    (lait.cwd / "sub").mkdir()
    assert lait("mcp", "list", cwd=lait.cwd / "sub").stdout.startswith("  here  stdio    srv\n")
    assert lait("--config", "other.yml", "mcp", "list").stdout.startswith("  elsewhere  http ")
    assert lait("mcp", "list", "--config", "other.yml").stdout.startswith("  elsewhere  http ")


def test_config_errors_exit_3_with_a_location(lait: Lait) -> None:
    lait.write("lait.config.yml", "mcp_servers:\n  bad:\n    command: srv\n    colour: red\n")
    run = lait("mcp", "list")
    assert run.returncode == 3
    assert run.stdout == ""
    assert run.stderr.startswith("lait: ")
    assert "lait.config.yml:4:5: " in run.stderr and "colour" in run.stderr
    missing = lait("--config", "nope.yml", "mcp", "list")
    assert missing.returncode == 3
    assert missing.stderr == "lait: failed to read YAML configuration file 'nope.yml': no such file\n"


def test_usage_errors_exit_2(lait: Lait) -> None:
    assert lait("mcp", "tools").returncode == 2
    assert lait("mcp", "list", "--bogus").returncode == 2
    assert lait("mcp", "frobnicate").returncode == 2
    chat_option = lait("--model", "m", "mcp", "list")
    assert chat_option.returncode == 2
    assert "the argument '--model' cannot be used with subcommand 'mcp'" in chat_option.stderr


def test_mcp_list_does_not_import_the_mcp_or_http_stacks(lait: Lait) -> None:
    lait.write("lait.config.yml", CONFIG)
    probe = (
        "import sys\nfrom lait_cli.main import main\n"
        "try:\n    main(['mcp', 'list'])\nexcept SystemExit:\n    pass\n"
        "heavy = {'mcp', 'httpx', 'anyio', 'pygls'}\n"
        "sys.stderr.write('LOADED ' + ','.join(sorted({m.split('.')[0] for m in sys.modules} & heavy)) + '\\n')\n"
    )
    import subprocess

    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=lait.cwd, env=lait.env, capture_output=True, text=True, timeout=60
    )
    assert "LOADED \n" in done.stderr, done.stderr


# -- lait mcp tools NAME ---------------------------------------------------------------------------
@pytest.fixture(params=["stdio", "http"])
def everything(request: pytest.FixtureRequest, marker: str) -> dict[str, Any]:
    if request.param == "stdio":
        return stdio_config(env={"LAIT_TEST_MARKER": marker})
    peer: HttpEverything = request.getfixturevalue("http_peer")
    return {"url": peer.url}


@pytest.fixture
def marker() -> str:
    import uuid

    return uuid.uuid4().hex


@pytest.mark.mcp_peers  # npm server-everything
def test_tools_text(lait: Lait, everything: dict[str, Any], marker: str) -> None:
    write_config(lait, {"everything": everything})
    run = lait("mcp", "tools", "everything", timeout=60)
    assert run.returncode == 0, run.stderr
    blocks = {b.splitlines()[0]: b for b in run.stdout.split("\n\n")}
    assert "everything__trigger-elicitation-request" in blocks  # the elicitation capability is advertised
    get_sum = blocks["everything__get-sum"]
    lines = get_sum.splitlines()
    assert lines[1].startswith("    ") and "sum" in lines[1].lower()
    schema_text = get_sum.split("    parameters: ", 1)[1]
    schema = json.loads(schema_text)
    assert schema["properties"]["a"]["type"] == "number"
    assert sorted(schema["required"]) == ["a", "b"]
    count = len(blocks)
    # server-everything's own log line ("Starting default (STDIO) server...") comes through on stderr
    assert run.stderr.endswith(f"\nmcp_servers.everything: {count} tools; allowed_tools: all tools\n") or (
        run.stderr == f"mcp_servers.everything: {count} tools; allowed_tools: all tools\n"
    )
    assert running_with_marker(marker) == []


@pytest.mark.mcp_peers  # npm server-everything
def test_tools_json_is_what_the_model_is_sent(lait: Lait, everything: dict[str, Any]) -> None:
    write_config(lait, {"everything": {**everything, "allowed_tools": ["get-sum"]}})
    run = lait("mcp", "tools", "everything", "--json", timeout=60)
    assert run.returncode == 0, run.stderr
    assert "lait" not in run.stderr  # only the server's own log, if any
    payload = json.loads(run.stdout)
    assert payload["server"] == "everything"
    assert payload["allowed_tools"] == ["get-sum"]
    wire = {t["function"]["name"]: t for t in payload["tools"]}
    entry = wire["everything__get-sum"]
    assert entry["type"] == "function"
    assert set(entry["function"]) == {"name", "description", "parameters"}
    assert entry["function"]["parameters"]["properties"]["b"]["type"] == "number"


def test_tools_marks_tools_outside_allowed_tools(lait: Lait) -> None:
    write_config(lait, {"everything": stdio_config(allowed_tools=["get-sum"])})
    run = lait("mcp", "tools", "everything", timeout=60)
    assert run.returncode == 0, run.stderr
    heads = [line for line in run.stdout.splitlines() if line.startswith("everything__")]
    assert "everything__get-sum" in heads
    assert "everything__echo  (not in allowed_tools: calls are refused)" in heads
    assert run.stderr.endswith("; allowed_tools: get-sum\n")


def test_unknown_server_lists_the_configured_ones(lait: Lait) -> None:
    write_config(lait, {"b": {"command": "srv"}, "a": {"url": "http://127.0.0.1:1/mcp"}})
    run = lait("mcp", "tools", "nope")
    assert (run.returncode, run.stdout) == (1, "")
    assert run.stderr.startswith("lait: unknown MCP server 'nope'")
    assert "a, b" in run.stderr or "b, a" in run.stderr
    assert run.stderr.count("\n") == 1


def test_server_that_cannot_start_is_one_line_error(lait: Lait) -> None:
    write_config(
        lait,
        {
            "missing": {"command": "/nonexistent/lait-test-server"},
            "refused": {"url": "http://127.0.0.1:9/mcp"},
            "unset": {"url": "${LAIT_TEST_UNSET_VARIABLE}/mcp"},
            "odd": {"command": "x", "url": "http://x"},
        },
    )
    for name, words in (
        ("missing", "lait-test-server"),
        ("refused", "MCP server 'refused'"),
        ("unset", "LAIT_TEST_UNSET_VARIABLE"),
        ("odd", "url"),
    ):
        run = lait("mcp", "tools", name, timeout=60)
        assert (run.returncode, run.stdout) == (1, ""), (name, run.stderr)
        assert run.stderr.startswith("lait: "), (name, run.stderr)
        assert words in run.stderr, (name, run.stderr)
        assert "internal error" not in run.stderr, (name, run.stderr)


def test_ctrl_c_while_connecting_exits_130_and_kills_the_server(lait: Lait, marker: str) -> None:
    """A server that never answers initialize: Ctrl-C ends the wait, the server's group is killed."""
    import signal
    import subprocess
    import time

    write_config(
        lait, {"hang": {"command": "sh", "args": ["-c", "sleep 300"], "env": {"LAIT_TEST_MARKER": marker}}}
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "mcp", "tools", "hang"],
        cwd=lait.cwd,
        env=lait.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert wait_for_marked(marker, 2), "the server was never started"  # sh and sleep
        proc.send_signal(signal.SIGINT)
        interrupted = time.monotonic()
        out, err = proc.communicate(timeout=30)
        waited = time.monotonic() - interrupted
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    # a server still in its handshake is cancelled at once, not after the 10 s close grace
    assert waited < 8, waited
    assert out == b""
    assert err.decode().endswith("lait: interrupted\n"), err
    assert b"Traceback" not in err
    assert running_with_marker(marker) == []
