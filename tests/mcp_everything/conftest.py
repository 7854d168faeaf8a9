"""Fixtures: server-everything over stdio and over HTTP on 127.0.0.1, as ``mcp_servers:`` entries,
and an interaction that answers elicitation requests from a script."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest

from lait_core.engine.run.interaction import ElicitationRequest, ElicitationResult, HeadlessInteraction
from tests.mcp_everything.peer import HttpEverything, http_everything, stdio_config


class ScriptedElicitation(HeadlessInteraction):
    """Answers elicitation requests in order from ``answers`` and records them. Like the terminal,
    it declines at once (without using an answer) when the server may not elicit."""

    def __init__(self, *answers: ElicitationResult) -> None:
        super().__init__("allow")
        self.answers = list(answers)
        self.requests: list[ElicitationRequest] = []

    async def elicit(self, request: ElicitationRequest) -> ElicitationResult:
        self.requests.append(request)
        if not request.allowed:
            return ElicitationResult("decline")
        assert self.answers, f"unexpected elicitation request: {request}"
        return self.answers.pop(0)


@pytest.fixture(scope="module")
def http_peer() -> Iterator[HttpEverything]:
    """One HTTP server-everything per test module (every client gets its own MCP session)."""
    with http_everything() as peer:
        yield peer


@pytest.fixture
def marker() -> str:
    return uuid.uuid4().hex


@pytest.fixture(params=["stdio", "http"])
def everything(request: pytest.FixtureRequest, marker: str) -> dict[str, Any]:
    """The ``mcp_servers.everything`` entry for each transport (stdio children carry ``marker``)."""
    if request.param == "stdio":
        return stdio_config(env={"LAIT_TEST_MARKER": marker})
    peer: HttpEverything = request.getfixturevalue("http_peer")
    return {"url": peer.url}
