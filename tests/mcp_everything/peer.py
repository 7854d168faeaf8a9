"""The real ``@modelcontextprotocol/server-everything`` (npm, pinned in tests/peers/npm) as a test
peer: its stdio command line, and its Streamable-HTTP mode started on a free port bound to
127.0.0.1 only (tests/peers/npm/loopback.mjs), killed with its whole process group afterwards.

When the npm package is missing the tests fail (never skip) and say how to install it.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
NPM_DIR = REPO / "tests" / "peers" / "npm"
EVERYTHING_JS = NPM_DIR / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
LOOPBACK = NPM_DIR / "loopback.mjs"
INSTALL_HINT = (
    "the npm test peer is missing; run `bash .ci/install-test-peers` (or `npm ci --prefix tests/peers/npm`)"
)


def everything_js() -> Path:
    """The server's entry script; fails the test with the install command when it is missing."""
    if not EVERYTHING_JS.is_file():
        pytest.fail(f"{EVERYTHING_JS} not found: {INSTALL_HINT}", pytrace=False)
    return EVERYTHING_JS


def stdio_config(**extra: Any) -> dict[str, Any]:
    """An ``mcp_servers:`` entry that starts server-everything over stdio."""
    return {"command": "node", "args": [str(everything_js()), "stdio"], **extra}


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def listening_addresses(port: int) -> list[str]:
    """Local IPv4/IPv6 addresses (hex, as in /proc/net/tcp*) with a socket listening on ``port``."""
    found = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with contextlib.suppress(OSError):
            for line in Path(table).read_text().splitlines()[1:]:
                fields = line.split()
                address, hex_port = fields[1].rsplit(":", 1)
                if int(hex_port, 16) == port and fields[3] == "0A":  # 0A = LISTEN
                    found.append(address)
    return found


@dataclass
class HttpEverything:
    """server-everything in ``streamableHttp`` mode on ``127.0.0.1:port``."""

    port: int
    process: subprocess.Popen[bytes]
    log: list[str] = field(default_factory=list)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stop(self) -> None:
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(timeout=5)
        with contextlib.suppress(ProcessLookupError):  # anything it left in its group
            os.killpg(self.process.pid, signal.SIGKILL)


def _drain(stream: Any, log: list[str], ready: threading.Event) -> None:
    for raw in iter(stream.readline, b""):
        line = raw.decode("utf-8", errors="replace").rstrip("\n")
        log.append(line)
        if "listening on port" in line:
            ready.set()
    ready.set()  # EOF: the process ended (the caller checks poll())


def start_http_everything(attempts: int = 3, timeout: float = 30.0) -> HttpEverything:
    """Start the server on a free port (retrying when another process takes the port first)."""
    script = everything_js()
    last: list[str] = []
    for _ in range(attempts):
        port = free_port()
        process = subprocess.Popen(
            ["node", "--import", LOOPBACK.as_uri(), str(script), "streamableHttp"],
            cwd=NPM_DIR,
            env={**os.environ, "PORT": str(port)},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        peer = HttpEverything(port, process)
        ready = threading.Event()
        threading.Thread(target=_drain, args=(process.stderr, peer.log, ready), daemon=True).start()
        ready.wait(timeout)
        deadline = time.monotonic() + 5
        while process.poll() is None and not listening_addresses(port) and time.monotonic() < deadline:
            time.sleep(0.05)
        if process.poll() is None and listening_addresses(port):
            return peer
        peer.stop()
        last = peer.log
    raise RuntimeError("server-everything (HTTP) did not start:\n" + "\n".join(last))


@contextlib.contextmanager
def http_everything() -> Iterator[HttpEverything]:
    peer = start_http_everything()
    try:
        yield peer
    finally:
        peer.stop()
