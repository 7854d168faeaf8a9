"""Saved conversations: ``.lait/sessions/<NAME>.jsonl`` (docs/cli.md).

One message per line (``{"role", "content"}``); the stored turns go between the system prompt and
the new user message; a turn (the user message and the reply) is appended only after it succeeded;
the system prompt is never stored.

Crash safety: a turn is appended with a single ``write`` on an ``O_APPEND`` descriptor and then
``fsync``-ed. A process killed in the middle can at worst leave an unterminated last line: loading
ignores it (with a note), and the next append first cuts it off, so one broken turn never breaks
the lines around it. Every read is capped (16 MiB, like every file lait reads).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lait_core.support import bounded_json as jsonbounded

SESSIONS_DIR = Path(".lait") / "sessions"
NAME = re.compile(r"[A-Za-z0-9_-]+")
READ_LIMIT = 16 * 1024 * 1024


class SessionError(Exception):
    """A bad session name, an unreadable or too large file."""


def check_name(name: str) -> str:
    if NAME.fullmatch(name) is None:
        raise SessionError(f"invalid session name '{name}': use letters, digits, '_' and '-' only")
    return name


def session_path(name: str, base: Path | None = None) -> Path:
    return (base or Path.cwd()) / SESSIONS_DIR / f"{check_name(name)}.jsonl"


@dataclass(slots=True)
class Loaded:
    messages: list[dict[str, Any]] = field(default_factory=list)
    skipped: int = 0
    """Lines that were not a stored message (a cut-off last line, hand-edited garbage)."""


def load(path: Path) -> Loaded:
    """The stored messages (an absent file: none)."""
    from lait_core.syntax.bounded_read import FileRefused, FileTooLarge, read_bounded

    try:
        data = read_bounded(path, READ_LIMIT)  # a FIFO or device is refused, never opened
    except FileNotFoundError:
        return Loaded()
    except FileTooLarge:
        raise SessionError(
            f"session '{path}' is larger than 16 MiB; delete it or start another session"
        ) from None
    except FileRefused as exc:
        raise SessionError(f"cannot read session: {exc}") from None
    except OSError as exc:
        raise SessionError(f"cannot read session '{path}': {exc.strerror or exc}") from None
    out = Loaded()
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    for raw in lines:
        try:
            value = jsonbounded.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            out.skipped += 1
            continue
        if isinstance(value, dict) and value.get("role") in ("user", "assistant") and "content" in value:
            out.messages.append({"role": value["role"], "content": value["content"]})
        else:
            out.skipped += 1
    return out


def _cut_partial_tail(fd: int) -> None:
    """Truncate an unterminated last line (left by a killed process) before appending."""
    size = os.fstat(fd).st_size
    if size == 0:
        return
    if os.pread(fd, 1, size - 1) == b"\n":
        return
    start = max(0, size - 1024 * 1024)
    tail = os.pread(fd, size - start, start)
    cut = tail.rfind(b"\n")
    os.ftruncate(fd, start + cut + 1 if cut >= 0 else start)


def append(path: Path, messages: Sequence[dict[str, Any]]) -> None:
    """Append ``messages`` (one turn) as complete lines in one write, then fsync."""
    if not messages:
        return
    data = "".join(json.dumps(m, ensure_ascii=False) + "\n" for m in messages).encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        _cut_partial_tail(fd)
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fsync(fd)
    finally:
        os.close(fd)


@dataclass(frozen=True, slots=True)
class Summary:
    name: str
    path: Path
    messages: int
    modified: float


def list_sessions(base: Path | None = None) -> list[Summary]:
    folder = (base or Path.cwd()) / SESSIONS_DIR
    out: list[Summary] = []
    if not folder.is_dir():
        return out
    for path in sorted(folder.glob("*.jsonl")):
        if NAME.fullmatch(path.stem) is None or not path.is_file():
            continue
        try:
            count = len(load(path).messages)
        except SessionError:
            count = -1
        out.append(Summary(path.stem, path, count, path.stat().st_mtime))
    return out


def delete(name: str, base: Path | None = None) -> bool:
    path = session_path(name, base)
    try:
        path.unlink()
    except FileNotFoundError:
        return False
    return True
