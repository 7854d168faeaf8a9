"""Escape sequences from elsewhere never reach the terminal raw: a model API error body (what
`lait: <error>` prints; OAuth errors take the same path) and, on a terminal, the model's answer
(streamed or not) show each control character as `\\xNN`. A pipe still gets the answer's bytes."""

from __future__ import annotations

import os
import pty
import subprocess
import sys

import pytest

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, error, text

HOSTILE = "\x1b]0;owned\x07\x1b[2Jtitle\x9b31m"


def test_an_error_body_with_escapes_is_shown_escaped(lait: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(error(400, f"bad {HOSTILE} request"))
    run = lait("--base-url", server.url, "--model", "m", "hi")
    assert run.returncode != 0
    assert "\x1b" not in run.stderr and "\x07" not in run.stderr and "\x9b" not in run.stderr
    assert "\\x1b]0;owned\\x07\\x1b[2Jtitle\\x9b31m" in run.stderr


def test_a_piped_answer_keeps_its_bytes(lait: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text(f"answer {HOSTILE}"))
    run = lait("--base-url", server.url, "--model", "m", "hi")
    assert run.returncode == 0 and HOSTILE in run.stdout


@pytest.mark.parametrize("stream", [["--stream"], []])
def test_an_answer_on_a_terminal_is_shown_escaped(
    lait: Lait, server: ScriptedOpenAIServer, stream: list[str]
) -> None:
    server.push(text(f"answer {HOSTILE} end"))
    master, slave = pty.openpty()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "lait_cli.main", "--base-url", server.url, "--model", "m", *stream, "hi"],
            cwd=lait.cwd,
            env=lait.env,
            stdin=subprocess.DEVNULL,
            stdout=slave,
            stderr=subprocess.PIPE,
        )
        os.close(slave)
        slave = -1
        shown = b""
        while True:
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not chunk:
                break
            shown += chunk
        _, err = proc.communicate(timeout=60)
    finally:
        os.close(master)
        if slave != -1:
            os.close(slave)
    assert proc.returncode == 0, err
    assert b"answer " in shown and b" end" in shown
    assert b"\x1b" not in shown and b"\x07" not in shown and "\x9b".encode() not in shown
    assert b"\\x1b]0;owned\\x07" in shown
