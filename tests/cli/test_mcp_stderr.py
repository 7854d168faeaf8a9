"""A run that fails on its MCP server says why (issue 25): the last lines of the server's stderr end
the failure message of `lait run` (and of the engine's error it prints), bounded, with secrets masked,
and the server's process group is gone afterwards. Real servers (tests/peers/mcp_failing_server.py)
and the scripted OpenAI-compatible server."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from lait_core.engine.mcp.stderr_tail import MAX_BYTES, MAX_LINE_CHARS, MAX_LINES
from tests.cli.conftest import Run, clean_env, run_lait
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

PEER = Path(__file__).resolve().parent.parent / "peers" / "mcp_failing_server.py"
CANARY = "canary-token-5f1e2d3c4b"


@pytest.fixture
def llm() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as s:
        yield s


def project(root: Path, llm: ScriptedOpenAIServer, mode: str) -> None:
    (root / "lait.config.yml").write_text(
        f"base_url: {llm.url}\ndefault: {{model: m}}\n"
        "mcp_servers:\n"
        "  notes:\n"
        f"    command: {sys.executable}\n"
        f"    args: [{PEER}, {mode}]\n"
        "    cwd: .\n"
        "    env: {NOTES_TOKEN: '${NOTES_TOKEN}'}\n",
        encoding="utf-8",
    )
    (root / "wf.yml").write_text("steps:\n  - prompt: hi\n    mcp: [notes]\n", encoding="utf-8")


def run(root: Path) -> Run:
    env = clean_env(root / "xdg", root / "home")
    env["NOTES_TOKEN"] = CANARY
    # the server's own traceback is expected on stderr; lait's message is checked by the tests
    return run_lait(["run", "wf.yml", "x"], cwd=root, env=env, check_traceback=False)


def processes_in(folder: Path) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if Path(os.readlink(entry / "cwd")) != folder:
                continue
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] not in "ZX":
            found.append(int(entry.name))
    return found


def failure(result: Run) -> list[str]:
    """The failure message's lines: from the last line that starts with ``lait:`` to the end."""
    lines = result.stderr.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("lait: "))
    return lines[start:]


def test_a_server_that_fails_at_start_shows_its_stderr(tmp_path: Path, llm: ScriptedOpenAIServer) -> None:
    project(tmp_path, llm, "start")
    result = run(tmp_path)
    assert result.returncode == 1, result
    message = failure(result)
    assert message[0].startswith("lait: step 'step-1 (prompt)': MCP server 'notes': could not connect")
    assert message[0].endswith("the server process exited (exit status: 1); its stderr ended with:")
    assert message[1] == "    notes server starting"
    assert message[-1] == "    ModuleNotFoundError: No module named 'lait_no_such_module'"
    assert "Traceback (most recent call last):" in message[2]
    assert llm.requests == []  # the step failed before any model call
    assert processes_in(tmp_path) == []


def test_the_tail_is_bounded(tmp_path: Path, llm: ScriptedOpenAIServer) -> None:
    project(tmp_path, llm, "noise")
    result = run(tmp_path)
    assert result.returncode == 1
    tail = failure(result)[1:]
    assert 10 <= len(tail) <= MAX_LINES  # the traceback's lines, the noise before them dropped
    assert all(len(line) <= MAX_LINE_CHARS + 4 for line in tail)
    assert sum(len(line) for line in tail) <= MAX_BYTES + 4 * MAX_LINES
    assert tail[-1] == "    ModuleNotFoundError: No module named 'lait_no_such_module'"
    assert "noise line 0" not in result.stderr.splitlines()[-MAX_LINES - 1 :]
    assert processes_in(tmp_path) == []


def test_secrets_are_masked_in_the_tail_and_in_the_copy(tmp_path: Path, llm: ScriptedOpenAIServer) -> None:
    project(tmp_path, llm, "secret")
    result = run(tmp_path)
    assert result.returncode == 1
    assert "    token=***" in failure(result)
    assert CANARY not in result.stderr and CANARY not in result.stdout


def test_a_server_that_dies_during_a_call_shows_its_stderr(tmp_path: Path, llm: ScriptedOpenAIServer) -> None:
    project(tmp_path, llm, "call")
    llm.push(tool_calls(call("notes__crash", {"why": "disk full"})), text("never"))
    result = run(tmp_path)
    assert result.returncode == 1, result
    message = failure(result)
    assert "MCP server 'notes': calling tool 'crash' failed" in message[0], message
    assert "the server process exited (exit status: 3); its stderr ended with:" in message[0]
    assert message[1:] == ["    crashing: disk full"]
    assert processes_in(tmp_path) == []
