"""Files of the records: atomic writes (a temporary file in the same folder, then ``os.replace``),
bounded reads (16 MiB, as every file lait reads), and the stored shape of a model response."""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from lait_core.engine.llm.chat_types import ChatResponse, JsonObject
from lait_core.support import bounded_json as jsonbounded
from lait_core.syntax.bounded_read import MAX_FILE_BYTES


class RecordFileError(Exception):
    """A record file that cannot be read or parsed; ``str()`` names the file."""


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that a reader sees the old file or the new one, never a part;
    missing folders are created. Remembered secrets (API keys, URL credentials: lait_core.support.redact)
    are masked: a record never holds one."""
    from lait_core.support.redact import mask_secrets

    text = mask_secrets(text)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def atomic_write_json(path: Path, value: Any) -> None:
    """Pretty JSON (two-space indent, UTF-8, a final newline) written atomically."""
    atomic_write_text(path, json.dumps(value, ensure_ascii=False, indent=2) + "\n")


def read_text_bounded(path: Path) -> str:
    """The UTF-8 text of ``path``; FileNotFoundError passes through, anything else that keeps it
    from being read (too large, not UTF-8, a folder) is a :class:`RecordFileError`."""
    from lait_core.syntax.bounded_read import FileRefused, FileTooLarge, read_bounded

    try:
        data = read_bounded(path, MAX_FILE_BYTES)  # a FIFO or device is refused, never opened
    except FileNotFoundError:
        raise
    except FileTooLarge:
        raise RecordFileError(f"'{path}' is larger than 16 MiB") from None
    except FileRefused as exc:
        raise RecordFileError(str(exc)) from None
    except OSError as exc:
        raise RecordFileError(f"cannot read '{path}': {exc.strerror or exc}") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise RecordFileError(f"'{path}' is not UTF-8 text") from None


def read_json_object(path: Path) -> JsonObject:
    text = read_text_bounded(path)
    try:
        value = jsonbounded.loads(text)
    except ValueError as exc:
        raise RecordFileError(f"'{path}' is not valid JSON: {exc}") from None
    if not isinstance(value, dict):
        raise RecordFileError(f"'{path}' does not hold a JSON object")
    return value


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


def rfc3339(when: dt.datetime) -> str:
    """``2026-12-01T14:30:00.123456Z``."""
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def parse_rfc3339(text: str) -> dt.datetime | None:
    try:
        when = dt.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)


def response_json(response: ChatResponse) -> JsonObject:
    """The stored response: ``choices[0].message{content, reasoning, reasoning_content,
    tool_calls}``, ``usage`` and ``model`` -- the shape ``parse_completion`` reads back."""
    message: JsonObject = {
        "content": response.content,
        "reasoning": response.reasoning,
        "reasoning_content": None,
        "tool_calls": [c.wire() for c in response.tool_calls] or None,
    }
    return {
        "model": response.model,
        "choices": [{"index": 0, "message": message}],
        "usage": response.usage.as_dict() if response.usage is not None else None,
    }


def response_from_json(value: Any, base_url: str) -> ChatResponse:
    """A stored response as the engine's :class:`ChatResponse` (raises ``LlmResponseError``)."""
    from lait_core.engine.llm.client import parse_completion

    return parse_completion(value, base_url)
