"""Fixtures for the MCP client tests: the peer server (tests/peers/mcp_peer.py) over stdio and
streamable HTTP, pools with short limits that record every spawned pid, a pty-backed terminal
interaction, and the scripted LLM server of the engine tests."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.mcp.limits import McpLimits
from lait_core.engine.tools.mcp_tools import McpPool
from tests.engine.conftest import llm_server  # noqa: F401  (the scripted OpenAI-compatible server)

REPO = Path(__file__).resolve().parents[2]
FAST = McpLimits(timeout=10.0, handshake_timeout=20.0)


def peer(*args: str, **extra: Any) -> McpServerConfig:
    """A stdio config running the peer."""
    return McpServerConfig(
        command=sys.executable, args=["-m", "tests.peers.mcp_peer", *args], cwd=str(REPO), **extra
    )


def group_alive(pgid: int) -> list[int]:
    """Running (non-zombie) members of process group ``pgid``."""
    alive = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        if int(fields[2]) == pgid and fields[0] not in ("Z", "X"):
            alive.append(int(entry.name))
    return alive


class Pools:
    """Makes pools; remembers every child pid so tests can assert none is left."""

    def __init__(self) -> None:
        self.pids: list[int] = []
        self.pools: list[McpPool] = []

    def __call__(
        self, servers: dict[str, McpServerConfig], limits: McpLimits = FAST, **kwargs: Any
    ) -> McpPool:
        kwargs.setdefault("base_dir", REPO)
        pool = McpPool(servers, limits=limits, on_spawn=self.pids.append, **kwargs)
        self.pools.append(pool)
        return pool

    def leftovers(self) -> list[int]:
        return [pid for pgid in self.pids for pid in group_alive(pgid)]


@pytest.fixture
async def pools() -> AsyncIterator[Pools]:
    made = Pools()
    try:
        yield made
    finally:
        for pool in made.pools:
            await pool.aclose()
    assert made.leftovers() == []


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HttpPeer:
    def __init__(self, *args: str) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.peers.mcp_peer", "--http", str(self.port), *args],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("the HTTP peer did not start")

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/mcp"

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, 9)
        self.proc.wait()


@pytest.fixture(scope="module")
def http_peer() -> Iterator[HttpPeer]:
    server = HttpPeer()
    try:
        yield server
    finally:
        server.stop()
