"""Run history (docs/workflows.md): ``$XDG_DATA_HOME/lait/history.jsonl`` (default
``~/.local/share/lait/history.jsonl``), one JSON object per line, appended only after a success:
``{timestamp, kind: chat|agent|workflow|prompt, model (null for a workflow), prompt, response,
usage?}``.

Appends from concurrent lait processes never interleave: each entry is one ``write`` of one line
to a file opened with ``O_APPEND``, under an exclusive ``flock``. Reading goes newest-first in
blocks from the end of the file and stops as soon as enough entries were found, so a long history
is never read whole. Numbers count back from 1 = newest over all entries, also when filtered.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lait_core.engine.llm.chat_types import Usage
from lait_core.engine.records.record_files import parse_rfc3339, rfc3339, utc_now
from lait_core.support import bounded_json as jsonbounded
from lait_core.support.userdata import data_home

KINDS = ("chat", "agent", "workflow", "prompt")
PREVIEW = 60
BLOCK = 64 * 1024
MAX_LINE = 16 * 1024 * 1024


class HistoryError(Exception):
    """A bad ``--since`` or ``show`` number, or an unreadable history file."""


def history_path(environ: Mapping[str, str] | None = None) -> Path:
    return data_home(environ) / "history.jsonl"


def entry(kind: str, model: str | None, prompt: str, response: str, usage: Usage | None) -> dict[str, Any]:
    value: dict[str, Any] = {
        "timestamp": rfc3339(utc_now()),
        "kind": kind,
        "model": model,
        "prompt": prompt,
        "response": response,
    }
    if usage is not None:
        value["usage"] = usage.as_dict()
    return value


def append(path: Path, value: Mapping[str, Any]) -> None:
    """Append one entry as one line (see the module doc for why concurrent appends are safe)."""
    import fcntl

    from lait_core.support.redact import mask_secrets

    line = mask_secrets(json.dumps(value, ensure_ascii=False, separators=(",", ":")))
    data = (line + "\n").encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
    finally:
        os.close(fd)  # closing releases the lock


def _lines_backwards(path: Path) -> Iterator[bytes]:
    from lait_core.syntax.bounded_read import open_regular

    try:
        fh = os.fdopen(open_regular(path), "rb")  # a FIFO or device is refused, never opened
    except FileNotFoundError:
        return
    except OSError as exc:
        raise HistoryError(f"cannot read the history file '{path}': {exc.strerror or exc}") from None
    with fh:
        fh.seek(0, os.SEEK_END)
        position = fh.tell()
        rest = b""
        while position > 0:
            size = min(BLOCK, position)
            position -= size
            fh.seek(position)
            rest = fh.read(size) + rest
            parts = rest.split(b"\n")
            rest = parts[0]
            if len(rest) > MAX_LINE:
                raise HistoryError(f"the history file '{path}' has a line longer than 16 MiB")
            for line in reversed(parts[1:]):
                if line.strip():
                    yield line
        if rest.strip():
            yield rest


def entries_newest_first(path: Path) -> Iterator[tuple[int, dict[str, Any]]]:
    """``(number, entry)`` from the newest (1); lines that are not entries are skipped."""
    number = 0
    for line in _lines_backwards(path):
        try:
            value = jsonbounded.loads(line)
        except ValueError:
            continue
        if not isinstance(value, dict):
            continue
        number += 1
        yield number, value


_RELATIVE = re.compile(r"(\d+)([mhdw])")
_UNITS = {"m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_since(text: str, now: dt.datetime | None = None) -> dt.datetime:
    """``YYYY-MM-DD`` (UTC midnight), RFC 3339, or ``<N>m|h|d|w`` ago."""
    now = now or utc_now()
    match = _RELATIVE.fullmatch(text.strip())
    if match is not None:
        return now - dt.timedelta(seconds=int(match.group(1)) * _UNITS[match.group(2)])
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text.strip()):
        try:
            return dt.datetime.strptime(text.strip(), "%Y-%m-%d").replace(tzinfo=dt.UTC)
        except ValueError:
            pass
    elif "T" in text or " " in text.strip():
        when = parse_rfc3339(text.strip())
        if when is not None:
            return when
    raise HistoryError(
        f"invalid --since '{text}': expected YYYY-MM-DD, an RFC 3339 time, or <N>m, <N>h, <N>d or <N>w"
    )


@dataclass(frozen=True, slots=True)
class Filters:
    kind: str | None = None
    model: str | None = None
    since: dt.datetime | None = None
    query: str | None = None

    def match(self, value: Mapping[str, Any]) -> bool:
        if self.kind is not None and value.get("kind") != self.kind:
            return False
        if self.model is not None:
            model = value.get("model")
            if not isinstance(model, str) or self.model not in model:
                return False
        if self.since is not None:
            stamp = value.get("timestamp")
            when = parse_rfc3339(stamp) if isinstance(stamp, str) else None
            if when is None or when < self.since:
                return False
        if self.query is not None:
            needle = self.query.casefold()
            texts = (value.get("prompt"), value.get("response"))
            if not any(isinstance(t, str) and needle in t.casefold() for t in texts):
                return False
        return True


def select(path: Path, filters: Filters, limit: int) -> list[tuple[int, dict[str, Any]]]:
    found: list[tuple[int, dict[str, Any]]] = []
    if limit <= 0:
        return found
    for number, value in entries_newest_first(path):
        if filters.match(value):
            found.append((number, value))
            if len(found) >= limit:
                break
    return found


def find(path: Path, number: int) -> dict[str, Any] | None:
    if number < 1:
        raise HistoryError("history entries are numbered from 1 (the newest)")
    for n, value in entries_newest_first(path):
        if n == number:
            return value
    return None


def preview(text: Any) -> str:
    flat = " ".join(str(text if text is not None else "").split())
    return flat if len(flat) <= PREVIEW else flat[:PREVIEW] + "..."


def list_line(number: int, value: Mapping[str, Any]) -> str:
    model = value.get("model")
    return "\t".join(
        [
            str(number),
            str(value.get("timestamp", "")),
            str(value.get("kind", "")),
            model if isinstance(model, str) and model else "-",
            preview(value.get("prompt")),
        ]
    )


def show_text(value: Mapping[str, Any]) -> str:
    lines = [f"timestamp: {value.get('timestamp', '')}", f"kind: {value.get('kind', '')}"]
    model = value.get("model")
    if isinstance(model, str) and model:
        lines.append(f"model: {model}")
    usage = value.get("usage")
    if isinstance(usage, dict):
        lines.append(
            f"usage: prompt={usage.get('prompt_tokens', 0)} completion={usage.get('completion_tokens', 0)}"
            f" total={usage.get('total_tokens', 0)}"
        )
    lines += ["", "prompt:", str(value.get("prompt", "")), "", "response:", str(value.get("response", ""))]
    return "\n".join(lines) + "\n"
