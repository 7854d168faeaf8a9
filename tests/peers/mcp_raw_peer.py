"""A hand-written stdio MCP server (standard library only) that misbehaves on purpose, for the
fault tests of issue 19: it speaks JSON-RPC lines directly, so it can send what the SDK's server
never would.

It refuses ``server/discover`` (clients fall back to ``initialize`` at 2025-11-25) and offers the
tools:

``ok``          answers ``ok`` (after a plain-text log line on stdout, which clients tolerate)
``malformed``   answers a result whose ``content`` is a string, not a list
``utf8``        writes lines that are not UTF-8, then never answers
``deep``        writes a line of JSON nested 200,000 deep, then never answers
``flood``       answers a result of ``mib`` MiB (default 20)
``chatty``      writes ``lines`` plain-text log lines to stdout (default 1000), then answers ``ok``

With ``--marker FILE`` every call is appended to FILE (``call <name>``).
"""

from __future__ import annotations

import json
import sys
import time
from typing import Any

TOOLS = ["ok", "malformed", "utf8", "deep", "flood", "chatty"]
SCHEMA = {"type": "object", "properties": {"mib": {"type": "integer"}, "lines": {"type": "integer"}}}


def send(message: dict[str, Any]) -> None:
    sys.stdout.buffer.write(json.dumps(message).encode() + b"\n")
    sys.stdout.buffer.flush()


def raw(data: bytes) -> None:
    sys.stdout.buffer.write(data)
    sys.stdout.buffer.flush()


def result(rid: Any, value: dict[str, Any]) -> None:
    send({"jsonrpc": "2.0", "id": rid, "result": value})


def call(rid: Any, name: str, args: dict[str, Any]) -> None:
    if name == "ok":
        raw(b"peer: a log line written to stdout by mistake\n")
        result(rid, {"content": [{"type": "text", "text": "ok"}]})
    elif name == "malformed":
        result(rid, {"content": "not a list"})
    elif name == "utf8":
        for _ in range(3):
            raw(b"\xff\xfe\xfd not UTF-8 \xc3\x28\n")
        time.sleep(3600)
    elif name == "deep":
        raw(b"[" * 200_000 + b"]" * 200_000 + b"\n")
        time.sleep(3600)
    elif name == "flood":
        text = "x" * (int(args.get("mib", 20)) * 1024 * 1024)
        result(rid, {"content": [{"type": "text", "text": text}]})
    elif name == "chatty":
        raw(b"".join(b"peer log %d\n" % i for i in range(int(args.get("lines", 1000)))))
        result(rid, {"content": [{"type": "text", "text": "ok"}]})
    else:
        send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32602, "message": f"unknown tool {name}"}})


def main() -> None:
    marker = sys.argv[sys.argv.index("--marker") + 1] if "--marker" in sys.argv else None
    for line in sys.stdin.buffer:
        if not line.strip():
            continue
        message = json.loads(line)
        method, rid = message.get("method"), message.get("id")
        if rid is None:
            continue  # a notification
        if method == "initialize":
            result(
                rid,
                {
                    "protocolVersion": "2025-11-25",
                    "capabilities": {"tools": {}},
                    "serverInfo": {"name": "raw-peer", "version": "1"},
                },
            )
        elif method == "tools/list":
            result(rid, {"tools": [{"name": n, "description": n, "inputSchema": SCHEMA} for n in TOOLS]})
        elif method == "tools/call":
            params = message.get("params") or {}
            if marker:
                with open(marker, "a", encoding="utf-8") as f:
                    f.write(f"call {params.get('name')}\n")
            call(rid, str(params.get("name")), params.get("arguments") or {})
        elif method == "ping":
            result(rid, {})
        else:
            send({"jsonrpc": "2.0", "id": rid, "error": {"code": -32601, "message": "Method not found"}})


if __name__ == "__main__":
    main()
