"""Helpers for the session/agent/subagent/skill tests: a config pointing at the scripted server
and a RunSession over it (short retry delays)."""

from __future__ import annotations

import contextlib
import textwrap
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from lait_core.documents.config_file import resolve_registry_paths
from lait_core.documents.document_models import Config
from lait_core.engine.llm.client import ChatClient
from lait_core.engine.run.interaction import HeadlessInteraction
from lait_core.engine.run.run_session import RunSession
from tests.engine.conftest import FAST_RETRY
from tests.peers.openai_server import ScriptedOpenAIServer


def make_config(server: ScriptedOpenAIServer, base: Path, **extra: Any) -> Config:
    data: dict[str, Any] = {"base_url": server.url, **extra}
    data.setdefault("default", {}).setdefault("model", "test-model")
    return resolve_registry_paths(Config.model_validate(data), base)


@contextlib.asynccontextmanager
async def open_session(
    config: Config, base: Path, interaction: HeadlessInteraction | None = None, **kwargs: Any
) -> AsyncIterator[RunSession]:
    async with (
        ChatClient(timeout=10.0, retry=FAST_RETRY) as client,
        RunSession.open(
            config, base, interaction or HeadlessInteraction(), client=client, **kwargs
        ) as session,
    ):
        yield session


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def system_of(body: dict[str, Any]) -> str | None:
    first = body["messages"][0]
    return first["content"] if first["role"] == "system" else None


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t["function"]["name"] for t in body.get("tools", [])]
