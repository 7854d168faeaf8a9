"""The response cache (docs/workflows.md): ``.lait/cache/<key>.json`` holding pretty JSON
``{created_at, response}``. With ``default.cache_ttl`` (seconds) an entry older than the TTL -- or
dated in the future -- is a miss; without one, entries never expire. Writes are atomic. Every tool
round is its own entry. An unreadable or malformed entry is a miss (it is overwritten by the next
answer), never an error: a cache may only save work, not break a run.

Beyond the reference: a streamed answer is cached whole, and a hit for a streamed request is
replayed to the stream's reader as text deltas.
"""

from __future__ import annotations

import contextlib
import shutil
from dataclasses import dataclass
from pathlib import Path

from lait_core.engine.llm.chat_types import ChatResponse, EngineError
from lait_core.engine.records.record_files import (
    RecordFileError,
    atomic_write_json,
    parse_rfc3339,
    read_json_object,
    response_from_json,
    response_json,
    rfc3339,
    utc_now,
)

CACHE_DIR = Path(".lait") / "cache"


@dataclass(frozen=True, slots=True)
class ResponseCache:
    folder: Path
    ttl: int | None = None
    read: bool = True
    """False while recording a cassette: entries are written but not read."""

    def entry(self, key: str) -> Path:
        return self.folder / f"{key}.json"

    def get(self, key: str, base_url: str) -> ChatResponse | None:
        if not self.read:
            return None
        try:
            data = read_json_object(self.entry(key))
        except (FileNotFoundError, RecordFileError):
            return None
        stamp = data.get("created_at")
        created = parse_rfc3339(stamp) if isinstance(stamp, str) else None
        if created is None:
            return None
        if self.ttl is not None:
            age = (utc_now() - created).total_seconds()
            if age < 0 or age > self.ttl:
                return None
        try:
            return response_from_json(data.get("response"), base_url)
        except EngineError:
            return None

    def put(self, key: str, response: ChatResponse) -> None:
        atomic_write_json(
            self.entry(key), {"created_at": rfc3339(utc_now()), "response": response_json(response)}
        )


def clear_cache(folder: Path) -> None:
    """Delete the cache folder; a missing one is fine."""
    with contextlib.suppress(FileNotFoundError):
        shutil.rmtree(folder)
