"""Fixtures for the engine tests: a scripted OpenAI-compatible server on 127.0.0.1 and helpers that
build callers, shell tools and loops against it (with short retry delays)."""

from __future__ import annotations

import os
import shlex
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from lait_core.documents.document_models import Config, ShellToolDefinition
from lait_core.engine.llm.client import ChatClient, ModelCaller, RetryPolicy
from lait_core.engine.llm.model_resolution import clear_key_cache, resolve_model
from lait_core.engine.run.interaction import HeadlessInteraction
from lait_core.engine.tools.base import CallContext, Tool, ToolKind, ToolResult, ToolSource
from lait_core.engine.tools.naming import qualify
from lait_core.engine.tools.shell import ShellToolSource
from tests.peers.openai_server import ScriptedOpenAIServer

FAST_RETRY = RetryPolicy(base_delay=0.01, max_delay=0.05, max_retry_after=0.5)


@pytest.fixture
def llm_server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as server:
        yield server


@pytest.fixture
def second_server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as server:
        yield server


@pytest.fixture(autouse=True)
def _fresh_key_cache() -> Iterator[None]:
    clear_key_cache()
    yield
    clear_key_cache()


@pytest.fixture
async def client() -> AsyncIterator[ChatClient]:
    async with ChatClient(timeout=5.0, retry=FAST_RETRY) as c:
        yield c


def config_for(server: ScriptedOpenAIServer, **extra: Any) -> Config:
    """A config whose top-level base_url points at ``server``."""
    return Config.model_validate({"base_url": server.url, **extra})


def caller_for(
    server: ScriptedOpenAIServer,
    client: ChatClient,
    interaction: HeadlessInteraction | None = None,
    model: str = "test-model",
) -> ModelCaller:
    resolved = resolve_model(model, config_for(server))
    return ModelCaller(resolved, client, interaction=interaction or HeadlessInteraction())


def shell_source(
    definitions: dict[str, dict[str, Any]], names: list[str] | None = None, **kwargs: Any
) -> ShellToolSource:
    defs = {k: ShellToolDefinition.model_validate(v) for k, v in definitions.items()}
    return ShellToolSource(names if names is not None else list(defs), defs, **kwargs)


def barrier(folder: Path, parties: int, then: str) -> list[str]:
    """A shell command that leaves a file in ``folder`` and waits until ``parties`` such files are
    there (each call of it leaves one), then runs ``then``. A call that waits 20 s in vain prints
    ``alone`` instead: calls that do not run at the same time fail a test by their output, not by
    a clock."""
    where = shlex.quote(str(folder))
    script = (
        f"mkdir -p {where}; mktemp -p {where} >/dev/null; end=$(( $(date +%s) + 20 )); "
        f'while [ "$(ls {where} | wc -l)" -lt {parties} ]; do '
        f'if [ "$(date +%s)" -gt "$end" ]; then echo alone; exit 0; fi; sleep 0.01; done; {then}'
    )
    return ["sh", "-c", script]


def live_group_members(pgid: int) -> list[int]:
    """Processes of group ``pgid`` that are still running (zombies excluded: on this machine PID 1
    does not reap orphans, so killed grandchildren linger as zombies that hold no resources)."""
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        state, pgrp = fields[0], int(fields[2])
        if pgrp == pgid and state not in ("Z", "X"):
            members.append(int(entry.name))
    return members


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


class FakeSource(ToolSource):
    """An in-process tool source of any kind (stands in for MCP servers, subagents, skills).

    ``behaviour`` maps a raw tool name to a coroutine function ``(args_text) -> ToolResult`` (or
    raising); the default echoes the arguments. Tracks calls and the peak number in flight.
    """

    def __init__(
        self,
        kind: ToolKind,
        names: list[str],
        *,
        server: str | None = None,
        behaviour: dict[str, Callable[[str], Awaitable[ToolResult]]] | None = None,
    ) -> None:
        self.kind = kind
        self.names = names
        self.server = server
        self.behaviour = behaviour or {}
        self.calls: list[tuple[str, str]] = []
        self.in_flight = 0
        self.peak = 0
        self.closed = False

    async def list_tools(self) -> list[Tool]:
        prefix = self.server if self.kind is ToolKind.MCP else self.kind.value
        assert prefix is not None
        return [
            Tool(
                qualify(prefix, n),
                n,
                f"{n} tool",
                {"type": "object", "properties": {}},
                self.kind,
                self,
                self.server,
            )
            for n in self.names
        ]

    async def call(self, tool: Tool, arguments: str, ctx: CallContext) -> ToolResult:
        self.calls.append((tool.name, arguments))
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        try:
            handler = self.behaviour.get(tool.name)
            if handler is None:
                return ToolResult(f"{tool.name}:{arguments}")
            return await handler(arguments)
        finally:
            self.in_flight -= 1

    async def aclose(self) -> None:
        self.closed = True
