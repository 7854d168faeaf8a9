"""lait-ls over stdio (lait_ls.transport): a pipe on stdin is read on the request loop, anything
else with pygls's reader. Whatever arrives at once is answered in order (each request's handler gets
its turn before the next message is read), the end of the input mid-message ends the server without
a traceback, and a regular file on stdin is served too."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

SERVER = [sys.executable, "-m", "lait_ls.server"]
SMALL = "steps:\n  - id: first\n    prompt: 'hello'\n"


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode()
    return f"Content-Length: {len(body)}\r\n\r\n".encode() + body


def read_messages(data: bytes) -> list[dict[str, Any]]:
    out = []
    while data:
        header, _, rest = data.partition(b"\r\n\r\n")
        fields = dict(line.split(b":", 1) for line in header.split(b"\r\n"))
        length = int(fields[b"Content-Length"])
        out.append(json.loads(rest[:length]))
        data = rest[length:]
    return out


def session(tmp_path: Path) -> list[dict[str, Any]]:
    """Open a workflow, hover in it, ask for completion, shut down, exit: all sent at once."""
    doc = tmp_path / "flow.yml"
    doc.write_text(SMALL, encoding="utf-8")
    uri = doc.as_uri()
    where = {"textDocument": {"uri": uri}, "position": {"line": 2, "character": 6}}
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": uri, "languageId": "yaml", "version": 1, "text": SMALL}},
        },
        {"jsonrpc": "2.0", "id": 2, "method": "textDocument/hover", "params": where},
        {"jsonrpc": "2.0", "id": 3, "method": "textDocument/completion", "params": where},
        {"jsonrpc": "2.0", "id": 4, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]


def env(tmp_path: Path) -> dict[str, str]:
    import os

    return {**os.environ, "XDG_CONFIG_HOME": str(tmp_path / "xdg")}


def check_answers(stdout: bytes) -> None:
    replies = [m for m in read_messages(stdout) if "id" in m and "method" not in m]
    assert [r["id"] for r in replies] == [1, 2, 3, 4]  # in order, every request answered
    assert "error" not in replies[1] and "prompt" in json.dumps(replies[1]["result"])
    assert "error" not in replies[2] and replies[2]["result"] is not None


def test_messages_sent_at_once_on_a_pipe_are_all_answered_in_order(tmp_path: Path) -> None:
    data = b"".join(frame(m) for m in session(tmp_path))
    proc = subprocess.run(
        SERVER, input=data, capture_output=True, timeout=60, env=env(tmp_path), cwd=tmp_path
    )
    check_answers(proc.stdout)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr.decode()


def test_a_regular_file_on_stdin_is_served_with_pygls_reader(tmp_path: Path) -> None:
    requests = tmp_path / "requests.bin"
    requests.write_bytes(b"".join(frame(m) for m in session(tmp_path)))
    with requests.open("rb") as stdin:
        proc = subprocess.run(
            SERVER, stdin=stdin, capture_output=True, timeout=60, env=env(tmp_path), cwd=tmp_path
        )
    check_answers(proc.stdout)
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr.decode()


def test_input_that_ends_inside_a_message_ends_the_server_without_a_traceback(tmp_path: Path) -> None:
    first, second = session(tmp_path)[:2]
    cut = frame(second)[:-5]  # the body is 5 bytes short when the input ends
    proc = subprocess.run(
        SERVER, input=frame(first) + cut, capture_output=True, timeout=60, env=env(tmp_path), cwd=tmp_path
    )
    replies = [m for m in read_messages(proc.stdout) if "id" in m and "method" not in m]
    assert [r["id"] for r in replies] == [1]
    assert b"Traceback" not in proc.stderr, proc.stderr.decode()
    # one line in the log; no shutdown came, so the status is 1 (LSP's rule for exit)
    assert proc.stderr.count(b"the editor closed the connection (end of input)") == 1, proc.stderr.decode()
    assert proc.returncode == 1, proc.stderr.decode()


def test_one_socket_for_stdin_and_stdout_is_served(tmp_path: Path) -> None:
    """(Read with pygls's reader: the loop would make the socket non-blocking for the writes too.)"""
    import socket

    ours, theirs = socket.socketpair()
    with ours, theirs:
        proc = subprocess.Popen(
            SERVER, stdin=theirs, stdout=theirs, stderr=subprocess.PIPE, env=env(tmp_path), cwd=tmp_path
        )
        theirs.close()
        ours.sendall(b"".join(frame(m) for m in session(tmp_path)))
        ours.shutdown(socket.SHUT_WR)
        received = b""
        ours.settimeout(60)
        while chunk := ours.recv(65536):
            received += chunk
        _out, stderr = proc.communicate(timeout=60)
    check_answers(received)
    assert proc.returncode == 0 and b"Traceback" not in stderr, stderr.decode()
