"""Answering ``initialize`` before the server is imported.

pygls, lsprotocol (whose ``types`` module builds ~570 attrs classes on import) and lait_core take
most of lait-ls's start-up, and an editor waits for the answer to ``initialize`` before it sends
anything else. The answer only depends on the server's code and on what the client sent (its
capabilities and initialization options), so the answer pygls computed is remembered in
``$XDG_CACHE_HOME/lait/ls/`` under a key of exactly those: the next start with the same code and
the same client answers from there with the standard library alone. A first start (nothing
remembered) answers from the description shipped with the package when the params fit it
(:mod:`lait_ls.prebuilt_answer`, generated from the real server). Either way it then imports the server, which
handles the same ``initialize`` as usual (the workspace, the settings) with its own answer checked
against the early one and not sent twice (:class:`EarlyWriter`). A different answer replaces the
remembered one (and is logged); any failure to read or write the cache only means no early answer.

Only for a pipe or socket on stdin (what editors give), read by the event loop afterwards.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import stat
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO, Protocol

log = logging.getLogger("lait-ls")

MAX_HEADER = 64 * 1024
"""Header bytes read before the first message is given up on (left to pygls's reader)."""
MAX_FIRST_BODY = 8 * 1024 * 1024
"""A bigger first message is passed on unread."""
MAX_CACHED = 1024 * 1024
"""A remembered answer is at most this big (read bounded)."""
KEEP = 16
"""Remembered answers kept (the newest); older ones are removed when one is written."""
FORMAT = 1


def reads_on_the_loop(stdin: BinaryIO, stdout: BinaryIO) -> bool:
    """Whether ``stdin`` is a pipe or a socket (which the event loop can read without blocking) that
    is not also ``stdout`` (one socket for both ways: making it non-blocking for reading would make
    the writes non-blocking too)."""
    try:
        given, out = os.fstat(stdin.fileno()), os.fstat(stdout.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    if (given.st_dev, given.st_ino) == (out.st_dev, out.st_ino):
        return False
    return stat.S_ISFIFO(given.st_mode) or stat.S_ISSOCK(given.st_mode)


@dataclass
class EarlyStart:
    """What was read from stdin before the server existed (given back to its reader first)."""

    raw: bytes
    request_id: int | str | None = None
    """The id of the ``initialize`` request (None: the first message was something else)."""
    key: str = ""
    answered: dict[str, Any] | None = None
    """The result sent early (None: not answered; pygls's answer goes out as usual)."""
    prebuilt: bool = False
    """The result sent was built (:mod:`lait_ls.prebuilt_answer`), nothing was remembered yet."""


def cache_dir(environ: Mapping[str, str] | None = None) -> Path:
    env = os.environ if environ is None else environ
    base = env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "lait" / "ls"


def _stamps() -> list[Any]:
    """What the answer depends on in the code: lait_ls's modules, lait_core's version file, pygls."""
    here = Path(__file__).resolve().parent
    folders = [here, here / "features"]
    try:
        import importlib.util

        spec = importlib.util.find_spec("pygls")
        if spec is not None and spec.origin:
            pygls_dir = Path(spec.origin).parent
            folders += [pygls_dir, pygls_dir / "protocol", pygls_dir / "lsp"]
    except (ImportError, ValueError):
        pass
    stamps: list[Any] = [sys.version]
    core_init = here.parent / "lait_core" / "__init__.py"
    for folder in folders:
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            if entry.name.endswith(".py"):
                st = entry.stat()
                stamps.append([entry.path, st.st_size, st.st_mtime_ns])
    try:
        st = core_init.stat()
        stamps.append([str(core_init), st.st_size, st.st_mtime_ns])
    except OSError:
        pass
    return stamps


def cache_key(params: dict[str, Any]) -> str:
    material = {
        "format": FORMAT,
        "code": _stamps(),
        "capabilities": params.get("capabilities"),
        "initializationOptions": params.get("initializationOptions"),
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True, default=str).encode()).hexdigest()[:40]


def private_folder(folder: Path) -> bool:
    """Whether ``folder`` is a real directory (not a symlink) of this user's that nobody else can
    write: only then is an answer read from it or written, and old ones pruned in it."""
    try:
        st = os.lstat(folder)
    except OSError:
        return False
    return (
        stat.S_ISDIR(st.st_mode)
        and st.st_uid == os.geteuid()
        and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    )


def read_remembered(key: str) -> dict[str, Any] | None:
    """The answer remembered under ``key``: a regular file of this user's (a FIFO, a symlink or a
    device is no answer and never blocks the start), at most :data:`MAX_CACHED` bytes."""
    folder = cache_dir()
    if not private_folder(folder):
        return None
    path = folder / f"initialize-{key}.json"
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_uid != os.geteuid():
            return None
        with os.fdopen(fd, "rb", closefd=False) as f:
            data = f.read(MAX_CACHED + 1)
    except OSError:
        return None
    finally:
        os.close(fd)
    if len(data) > MAX_CACHED:
        return None
    try:
        value = json.loads(data)
    except ValueError:
        return None
    return value if isinstance(value, dict) and isinstance(value.get("capabilities"), dict) else None


def remember(key: str, result: dict[str, Any]) -> None:
    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not private_folder(folder):  # a symlink, another user's, writable by others: leave it be
            log.info("not remembering the initialize answer: %s is not a private folder", folder)
            return
        fd, tmp = tempfile.mkstemp(prefix=".initialize-", dir=folder)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(result, f)
        os.replace(tmp, folder / f"initialize-{key}.json")
        entries = sorted(
            (p for p in folder.glob("initialize-*.json") if p.is_file() and not p.is_symlink()),
            key=lambda p: p.stat().st_mtime,
            reverse=True,
        )
        for old in entries[KEEP:]:
            old.unlink(missing_ok=True)
    except (OSError, TypeError, ValueError) as exc:
        log.info("could not remember the initialize answer in %s: %s", folder, exc)


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n%s" % (len(body), body)


def _read_first(fd: int) -> tuple[bytes, bytes | None]:
    """The raw header and the body of the first message (None: no usable message; the raw bytes
    are all that was read). Reads the header a byte at a time, so nothing after the body is read."""
    header = b""
    while not header.endswith(b"\r\n\r\n"):
        if len(header) > MAX_HEADER:
            return header, None
        chunk = os.read(fd, 1)
        if not chunk:
            return header, None
        header += chunk
    length = -1
    for line in header.split(b"\r\n"):
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length" and value.strip().isdigit():
            length = int(value.strip())
    if length < 0 or length > MAX_FIRST_BODY:
        return header, None
    body = b""
    while len(body) < length:
        chunk = os.read(fd, length - len(body))
        if not chunk:
            return header + body, None
        body += chunk
    return header, body


def answer_early(stdin: BinaryIO, stdout: BinaryIO) -> EarlyStart | None:
    """Read the first message; when it is ``initialize`` with a remembered answer, send it.

    None: stdin is not read here (not a pipe or socket)."""
    if os.environ.get("LAIT_LS_EARLY_INITIALIZE", "1") == "0" or not reads_on_the_loop(stdin, stdout):
        return None
    try:
        header, body = _read_first(stdin.fileno())
    except OSError:
        return None
    if body is None:
        return EarlyStart(header)
    raw = header + body
    try:
        message = json.loads(body)
    except (ValueError, RecursionError):  # RecursionError: nested too deep for the decoder
        return EarlyStart(raw)
    if not isinstance(message, dict) or message.get("method") != "initialize" or "id" not in message:
        return EarlyStart(raw)
    params = message.get("params")
    if not isinstance(params, dict):
        return EarlyStart(raw)
    request_id = message["id"]
    key = cache_key(params)
    result = read_remembered(key)
    prebuilt = False
    if result is None:
        from lait_ls.prebuilt_answer import build_answer

        result = build_answer(message)
        prebuilt = result is not None
    if result is not None:
        try:
            stdout.write(_frame({"jsonrpc": "2.0", "id": request_id, "result": result}))
            stdout.flush()
        except OSError:
            return EarlyStart(raw)
        log.info("initialize answered early (%s)", "pre-built" if prebuilt else "remembered")
    return EarlyStart(raw, request_id, key, result, prebuilt)


class Writer(Protocol):
    def write(self, data: bytes) -> None: ...

    def close(self) -> None: ...


class EarlyWriter:
    """pygls's writer, which holds back pygls's own answer to an ``initialize`` answered early
    (after checking it equals), and remembers it when it was not."""

    def __init__(self, inner: Writer, early: EarlyStart) -> None:
        self.inner = inner
        self.early = early
        self.waiting = early.request_id is not None

    def close(self) -> None:
        self.inner.close()

    def write(self, data: bytes) -> None:
        if self.waiting and self._settle(data):
            return
        self.inner.write(data)

    def _settle(self, data: bytes) -> bool:
        """Whether ``data`` is the answer already sent."""
        _, sep, body = data.partition(b"\r\n\r\n")
        try:
            message = json.loads(body if sep else data)
        except ValueError:
            return False
        if not isinstance(message, dict) or message.get("id") != self.early.request_id or "method" in message:
            return False
        self.waiting = False
        result = message.get("result")
        if not isinstance(result, dict):
            return self.early.answered is not None  # an error after an early answer: nothing to add
        if self.early.answered is None:
            remember(self.early.key, result)
            return False
        if result != self.early.answered:
            if self.early.prebuilt:
                log.warning(
                    "the pre-built initialize answer (lait_ls/prebuilt_initialize.json) was out of date;"
                    " the next start sends the new one"
                )
            else:
                log.warning(
                    "the remembered initialize answer was out of date; the next start sends the new one"
                )
            remember(self.early.key, result)
        elif self.early.prebuilt:
            remember(self.early.key, result)  # the next start reads it back without building
        return True
