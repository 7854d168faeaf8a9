"""End to end: the real ``lait`` CLI in a pseudo-terminal, ``lait --mcp everything PROMPT`` against
the scripted OpenAI-compatible server. The scripted model calls ``everything__get-sum``, then
``everything__trigger-elicitation-request``; the test reads lait's elicitation prompt on stderr,
types the JSON answer into the terminal, and checks that the answer reached server-everything by
reading the tool result lait sent back to the model in the next request."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import clean_env
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.processes import running_with_marker

ANSWER = {"name": "Ada Lovelace", "check": True, "integer": 42}
PROMPT_END = (
    b"answer with one line of JSON (an object), or 'decline' / 'cancel', or press Enter to fill in the form: "
)


def lait_in_a_terminal(work: Path, args: list[str], answer: bytes) -> tuple[int, str, str]:
    """Run lait with a pty as stdin; when the elicitation prompt appears on stderr, type ``answer``."""
    env = {
        k: v
        for k, v in clean_env(work / "_xdg", work / "_home").items()
        if not k.startswith(("OPENAI_", "LLM_"))
    }
    (work / "_xdg").mkdir(exist_ok=True)
    (work / "_home").mkdir(exist_ok=True)
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", *args],
        cwd=work,
        env=env,
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(slave)
    try:
        assert proc.stderr is not None
        seen = b""
        deadline = time.monotonic() + 60
        while PROMPT_END not in seen and time.monotonic() < deadline:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
        assert PROMPT_END in seen, seen.decode(errors="replace")
        os.write(master, answer + b"\n")
        out, rest = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    return proc.returncode, out.decode(), (seen + rest).decode()


def tool_messages(body: dict[str, Any]) -> list[str]:
    return [m["content"] for m in body["messages"] if m["role"] == "tool"]


def raw_result(tool_text: str) -> Any:
    """server-everything ends its elicitation result with ``Raw result: <the answer it received>``."""
    return json.loads(tool_text.split("Raw result:", 1)[1])


@pytest.mark.parametrize("typed", ["json", "decline"])
def test_chat_elicitation_answered_in_a_terminal(
    tmp_path: Path, everything: dict[str, Any], marker: str, typed: str
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    config = {"mcp_servers": {"everything": {**everything, "allow_elicitation": True}}}
    (work / "lait.config.yml").write_text(json.dumps(config), encoding="utf-8")
    answer = json.dumps(ANSWER).encode() if typed == "json" else b"decline"
    with ScriptedOpenAIServer() as server:
        server.push(
            tool_calls(call("everything__get-sum", {"a": 2, "b": 40})),
            tool_calls(call("everything__trigger-elicitation-request", {})),
            text("Thanks, Ada."),
        )
        code, out, err = lait_in_a_terminal(
            work,
            ["--base-url", server.url, "--model", "m", "--mcp", "everything", "add 2 and 40, then ask me"],
            answer,
        )
        bodies = server.bodies
    assert "Traceback" not in err, err
    assert (code, out) == (0, "Thanks, Ada.\n"), err
    assert "mcp_servers.everything: Please provide inputs for the following fields:\n" in err
    assert "\n  - name (required): string — Your full, legal name\n" in err
    assert "\n  - check: boolean — Agree to the terms and conditions\n" in err

    names = [t["function"]["name"] for t in bodies[0]["tools"]]
    assert {"everything__get-sum", "everything__trigger-elicitation-request"} <= set(names)
    assert tool_messages(bodies[1]) == ["The sum of 2 and 40 is 42."]
    elicited = tool_messages(bodies[2])[-1]
    if typed == "json":
        assert "- Name: Ada Lovelace" in elicited
        received = raw_result(elicited)
        assert received["action"] == "accept"
        # what was typed, plus the schema's defaults for the fields left out (SEP-1034)
        assert received["content"].items() >= ANSWER.items()
        assert len(received["content"]) > len(ANSWER)
    else:
        assert raw_result(elicited) == {"action": "decline"}
    assert len(bodies) == 3
    assert running_with_marker(marker) == []  # the stdio server was closed and reaped


def test_chat_without_a_terminal_declines_without_asking(
    tmp_path: Path, everything: dict[str, Any], marker: str
) -> None:
    """stdin is not a TTY: elicitation is declined at once, even with ``allow_elicitation: true``."""
    work = tmp_path / "work"
    work.mkdir()
    config = {"mcp_servers": {"everything": {**everything, "allow_elicitation": True}}}
    (work / "lait.config.yml").write_text(json.dumps(config), encoding="utf-8")
    env = {k: v for k, v in clean_env(tmp_path, tmp_path).items() if not k.startswith(("OPENAI_", "LLM_"))}
    with ScriptedOpenAIServer() as server:
        server.push(tool_calls(call("everything__trigger-elicitation-request", {})), text("ok"))
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "lait_cli.main",
                "--base-url",
                server.url,
                "--model",
                "m",
                "--mcp",
                "everything",
                "go",
            ],
            cwd=work,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            timeout=60,
        )
        bodies = server.bodies
    err = done.stderr.decode()
    assert (done.returncode, done.stdout.decode()) == (0, "ok\n"), err
    assert "Please provide inputs" not in err
    assert raw_result(tool_messages(bodies[1])[-1]) == {"action": "decline"}
    assert running_with_marker(marker) == []
