"""A client's invalid request is answered with an error and logged as one line: lait-ls's stderr
(the editor's server log) shows no traceback for it."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any


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


def test_invalid_run_params_are_an_error_without_a_traceback() -> None:
    requests = b"".join(
        frame(m)
        for m in (
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}},
            {"jsonrpc": "2.0", "method": "initialized", "params": {}},
            {"jsonrpc": "2.0", "id": 2, "method": "lait/run", "params": {"kind": "workflow"}},
            {"jsonrpc": "2.0", "id": 3, "method": "shutdown"},
            {"jsonrpc": "2.0", "method": "exit"},
        )
    )
    proc = subprocess.run(
        [sys.executable, "-m", "lait_ls.server"], input=requests, capture_output=True, timeout=60
    )
    replies = {m["id"]: m for m in read_messages(proc.stdout) if "id" in m and "method" not in m}
    assert replies[2]["error"]["code"] == -32602, replies[2]
    assert "Traceback" not in proc.stderr.decode(), proc.stderr.decode()
