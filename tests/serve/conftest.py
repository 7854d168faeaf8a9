"""Fixtures for `lait serve --mcp`: a small project (workflows without a model, one with an
``ask:`` step, one that runs a long child process), the server as a real subprocess over stdio or
streamable HTTP, and lait's own MCP client (the engine's McpPool) to drive it in either era."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lait_core.documents.document_models import McpServerConfig
from lait_core.engine.mcp.connection import McpConnection
from lait_core.engine.mcp.limits import McpLimits
from lait_core.engine.run.interaction import ElicitationRequest, ElicitationResult, HeadlessInteraction
from lait_core.engine.tools.base import CallContext, Tool, ToolResult
from lait_core.engine.tools.mcp_tools import McpPool
from tests.processes import running_with_marker

REPO = Path(__file__).resolve().parents[2]
LIMITS = McpLimits(timeout=60.0, handshake_timeout=60.0)

CONFIG = """\
workflows:
  echo: echo.yml
  ship: ship.yml
  typed: typed.yml
  slow: slow.yml
  fails: fails.yml
  broken: broken.yml
"""
FILES = {
    "echo.yml": "description: Echo the input in an object\nsteps:\n  - jq: '{got: .}'\n",
    "ship.yml": (
        "steps:\n"
        "  - id: q\n"
        "    ask: 'Ship {{ input }}?'\n"
        "    choices: ['yes', 'no']\n"
        "  - jq: '{answer: ., prompt: $steps.q}'\n"
    ),
    "typed.yml": (
        "inputs:\n"
        "  count: {type: integer, description: How many}\n"
        "  label: {type: string, default: x}\n"
        "steps:\n"
        "  - jq: '{n: $inputs.count, l: $inputs.label}'\n"
    ),
    "slow.yml": "steps:\n  - id: nap\n    run: [sleep, '300']\n",
    "fails.yml": "steps:\n  - id: boom\n    run: [sh, -c, 'echo nope >&2; exit 3']\n",
    "broken.yml": "steps: [\n",
}


def write_project(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "lait.config.yml").write_text(CONFIG, encoding="utf-8")
    for name, text in FILES.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


@pytest.fixture
def project(tmp_path: Path) -> Path:
    return write_project(tmp_path / "proj")


def serve_env(tmp_path: Path, marker: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAIT_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["PYTHONPATH"] = str(REPO)
    env["LAIT_TEST_MARKER"] = marker
    env.update(extra)
    return env


@pytest.fixture
def marker() -> Iterator[str]:
    """A marker for every process a test starts; none may be left afterwards."""
    value = uuid.uuid4().hex
    yield value
    deadline = time.monotonic() + 15
    while running_with_marker(value) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert running_with_marker(value) == []


@dataclass
class HttpServer:
    process: subprocess.Popen[bytes]
    url: str
    stderr_path: Path

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(5)
        return self.stderr


def start_http(project: Path, env: dict[str, str], *args: str) -> HttpServer:
    err = project / f"serve-{uuid.uuid4().hex[:6]}.err"
    with err.open("wb") as fh:
        process = subprocess.Popen(
            [sys.executable, "-m", "lait_cli.main", "serve", "--mcp", "--http", "127.0.0.1:0", *args],
            cwd=project,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=fh,
        )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = err.read_text(encoding="utf-8", errors="replace")
        for line in text.splitlines():
            if "ready at http://" in line:
                url = line.split("ready at ", 1)[1].split(" ", 1)[0]
                return HttpServer(process, url, err)
        if process.poll() is not None:
            break
        time.sleep(0.05)
    process.kill()
    process.wait(5)
    raise AssertionError(f"lait serve did not start: {err.read_text()}")


@pytest.fixture
def http_server(project: Path, tmp_path: Path, marker: str) -> Iterator[HttpServer]:
    server = start_http(project, serve_env(tmp_path, marker))
    try:
        yield server
    finally:
        server.stop()


class Person(HeadlessInteraction):
    """Answers every elicitation with the scripted results, in order, and records the requests."""

    def __init__(self, *answers: ElicitationResult) -> None:
        super().__init__()
        self.answers = list(answers)
        self.asked: list[ElicitationRequest] = []

    async def elicit(self, request: ElicitationRequest) -> ElicitationResult:
        self.asked.append(request)
        return self.answers.pop(0) if self.answers else ElicitationResult("decline")


@dataclass
class Driver:
    """lait's own MCP client connected to one served lait."""

    pool: McpPool
    tools: dict[str, Tool] = field(default_factory=dict)

    async def list(self) -> list[str]:
        listed = await self.pool.source("lait").list_tools()
        self.tools = {t.name: t for t in listed}
        return sorted(self.tools)

    async def protocol(self) -> str | None:
        return (await self.pool.connection("lait")).protocol_version

    async def call(self, name: str, arguments: dict[str, Any], person: Person | None = None) -> ToolResult:
        import json

        if not self.tools:
            await self.list()
        interaction = person or Person()
        return await self.pool.source("lait").call(
            self.tools[name], json.dumps(arguments), CallContext(interaction, "call-1")
        )


@pytest.fixture(params=["auto", "legacy"])
def era(request: pytest.FixtureRequest) -> Iterator[str]:
    """The protocol era lait's client speaks: ``auto`` negotiates 2026-07-28, ``legacy`` 2025-11-25."""
    saved = McpConnection.mode
    McpConnection.mode = request.param
    try:
        yield request.param
    finally:
        McpConnection.mode = saved


def stdio_config(project: Path, env: dict[str, str]) -> McpServerConfig:
    return McpServerConfig(
        command=sys.executable,
        args=["-m", "lait_cli.main", "serve", "--mcp"],
        cwd=str(project),
        env={k: env[k] for k in ("PYTHONPATH", "LAIT_TEST_MARKER", "XDG_CONFIG_HOME")},
        allow_elicitation=True,
    )


@pytest.fixture
async def stdio_driver(project: Path, tmp_path: Path, marker: str, era: str) -> AsyncIterator[Driver]:
    pool = McpPool(
        {"lait": stdio_config(project, serve_env(tmp_path, marker))}, base_dir=project, limits=LIMITS
    )
    try:
        yield Driver(pool)
    finally:
        await pool.aclose()


@pytest.fixture
async def http_driver(http_server: HttpServer, project: Path, era: str) -> AsyncIterator[Driver]:
    pool = McpPool(
        {"lait": McpServerConfig(url=http_server.url, allow_elicitation=True)},
        base_dir=project,
        limits=LIMITS,
    )
    try:
        yield Driver(pool)
    finally:
        await pool.aclose()


@pytest.fixture(params=["stdio", "http"])
def driver(request: pytest.FixtureRequest, era: str) -> Driver:
    """lait's client on lait serve, over each transport, in each era."""
    value: Driver = request.getfixturevalue(f"{request.param}_driver")
    return value
