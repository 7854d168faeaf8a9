"""Fixtures for the workflow executor tests: workflow files written to tmp_path, a RunSession with a
HeadlessInteraction (recording events) whose config points at the scripted OpenAI-compatible server."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from lait_core.documents.document_models import Config
from lait_core.engine.llm.client import ChatClient, RetryPolicy
from lait_core.engine.run.interaction import HeadlessInteraction, progress_line
from lait_core.engine.run.run_session import RunSession
from lait_core.engine.workflow import WorkflowResult, run_workflow
from tests.peers.openai_server import ScriptedOpenAIServer

FAST_RETRY = RetryPolicy(base_delay=0.01, max_delay=0.05, max_retry_after=0.5)


@pytest.fixture
def llm_server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as server:
        yield server


@dataclass
class Harness:
    root: Path
    server: ScriptedOpenAIServer | None = None
    config_data: dict[str, Any] = field(default_factory=dict)
    spawned: list[int] = field(default_factory=list)
    last: HeadlessInteraction | None = None

    def write(self, name: str, text: str) -> Path:
        path = self.root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    def config(self) -> Config:
        data = dict(self.config_data)
        if self.server is not None:
            data.setdefault("base_url", self.server.url)
            data.setdefault("default", {"model": "test-model"})
        return Config.model_validate(data)

    async def run(
        self,
        path: Path | str,
        prompt: str | None = "",
        *,
        inputs: dict[str, str] | None = None,
        answers: dict[str, str] | None = None,
    ) -> WorkflowResult:
        interaction = HeadlessInteraction(answers=answers)
        self.last = interaction
        target = path if isinstance(path, Path) else self.root / path
        async with (
            ChatClient(timeout=10.0, retry=FAST_RETRY) as client,
            RunSession.open(
                self.config(), self.root, interaction, on_spawn=self.spawned.append, client=client
            ) as session,
        ):
            return await run_workflow(session, target, prompt=prompt, inputs=inputs)

    def progress(self) -> list[str]:
        assert self.last is not None
        return [line for e in self.last.events if (line := progress_line(e)) is not None]


@pytest.fixture
def wf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Harness:
    monkeypatch.chdir(tmp_path)
    return Harness(tmp_path)


@pytest.fixture
def wf_llm(wf: Harness, llm_server: ScriptedOpenAIServer) -> Harness:
    wf.server = llm_server
    return wf


Writer = Callable[[str, str], Path]
