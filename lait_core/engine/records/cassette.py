"""Cassettes (docs/workflows.md): ``--record DIR`` writes ``DIR/<key>.json`` for every model
request; ``--replay DIR`` answers every model request from ``DIR/<key>.json`` and never reaches the
network. MCP servers, shell tools, commands and file I/O still run for real.

An entry is pretty JSON ``{recorded_at, request: {base_url, model_id, messages, tools,
response_format}, response}``; ``request`` is for people reading a diff (the endpoint that actually
answered) and is never used to look an entry up. No API key and no header is ever written: the
request part holds only what the key covers.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lait_core.engine.llm.chat_types import ChatRequest, ChatResponse, EngineError
from lait_core.engine.records.record_files import (
    RecordFileError,
    atomic_write_json,
    read_json_object,
    response_from_json,
    response_json,
    rfc3339,
    utc_now,
)
from lait_core.support.redact import redact_url


class RecordsError(EngineError):
    """A cassette or cache problem that ends the run (exit 1)."""


class ReplayMiss(RecordsError):
    """A request with no cassette entry while replaying."""


class CassetteUnreadable(RecordsError):
    """A cassette entry that exists but cannot be read or parsed."""


@dataclass(frozen=True, slots=True)
class Cassette:
    folder: Path
    record_command: str = "lait run --record DIR"

    def entry(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def write(
        self, key: str, base_url: str, model_id: str, request: ChatRequest, response: ChatResponse
    ) -> None:
        atomic_write_json(
            self.entry(key),
            {
                "recorded_at": rfc3339(utc_now()),
                "request": {
                    "base_url": redact_url(base_url),
                    "model_id": model_id,
                    "messages": request.messages,
                    "tools": [t.wire() for t in request.tools] if request.tools else None,
                    "response_format": request.response_format,
                },
                "response": response_json(response),
            },
        )

    def read(self, key: str, model: str, label: str, base_url: str) -> ChatResponse:
        path = self.entry(key)
        try:
            data = read_json_object(path)
        except FileNotFoundError:
            raise ReplayMiss(
                f"replay: no recording of the request of {label} to model '{model}' (key {key}): expected"
                f" '{path}'; record it with `{self.record_command}`"
            ) from None
        except RecordFileError as exc:
            raise CassetteUnreadable(
                f"replay: cassette entry for {label} (key {key}) is unusable: {exc}"
            ) from None
        if "response" not in data:
            raise CassetteUnreadable(
                f"replay: cassette entry '{path}' for {label} (key {key}) has no 'response'"
            )
        try:
            return response_from_json(data["response"], base_url)
        except EngineError as exc:
            raise CassetteUnreadable(
                f"replay: cassette entry '{path}' for {label} (key {key}) holds no usable response: {exc}"
            ) from None
