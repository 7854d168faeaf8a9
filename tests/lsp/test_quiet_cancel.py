"""lait-ls's stderr is shown in the editor's output channel (VS Code copies it there): a
``$/cancelRequest`` for a request already answered -- VS Code sends many -- leaves no warning in it.
A real lait-ls over stdio, spoken to in raw JSON-RPC."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_a_late_cancel_leaves_no_warning_on_stderr(tmp_path: Path) -> None:
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"processId": None, "capabilities": {}, "rootUri": None},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 1}},  # already answered
        {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": 4242}},  # never sent
        {"jsonrpc": "2.0", "id": 2, "method": "shutdown"},
        {"jsonrpc": "2.0", "method": "exit"},
    ]
    proc = subprocess.run(
        [sys.executable, "-m", "lait_ls.server"],
        input=b"".join(frame(m) for m in messages),
        capture_output=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT), "XDG_CONFIG_HOME": str(tmp_path / "xdg")},
    )
    assert b'"id": 2' in proc.stdout.replace(b'"id":2', b'"id": 2'), proc.stdout[-500:]
    assert proc.returncode == 0, proc.stderr.decode(errors="replace")
    assert b"Cancel notification" not in proc.stderr, proc.stderr.decode(errors="replace")
    # With LAIT_LOG=debug it is still there, as a debug line.
    debug = subprocess.run(
        [sys.executable, "-m", "lait_ls.server"],
        input=b"".join(frame(m) for m in messages),
        capture_output=True,
        timeout=60,
        check=False,
        env={
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
            "LAIT_LOG": "debug",
        },
    )
    assert b"DEBUG:pygls.protocol.json_rpc:Cancel notification for unknown message id" in debug.stderr
