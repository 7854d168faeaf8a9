"""Reading files: the one bounded reader, and a file's bytes into text with every failure as a
located diagnostic.

Every file lait reads -- config, workflows, agents, skills, schemas, ``.env``, prompt and
attachment files -- goes through :func:`read_bounded`: it opens without blocking, refuses anything
but a regular file (a FIFO would block the reader for ever, a device such as ``/dev/zero`` never
ends) and reads at most :data:`MAX_FILE_BYTES`. Standard input goes through :func:`read_stream`,
which stops after the same cap.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from lait_core.rules.files.file_too_large import CODE as CODE_TOO_LARGE
from lait_core.rules.files.not_text import CODE as CODE_NOT_TEXT
from lait_core.rules.files.unreadable_file import CODE as CODE_UNREADABLE
from lait_core.syntax.diagnostics import Diagnostic
from lait_core.syntax.positions import ZERO, Position, Range

MAX_FILE_BYTES = 16 * 1024 * 1024
"""Every file lait reads is capped at 16 MiB."""


class FileRefused(OSError):
    """A path lait will not read: not a regular file, or larger than the cap. ``str()`` is the
    reason, ready to show (it names the path)."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(reason)
        self.filename = os.fspath(path)
        self.reason = reason

    def __str__(self) -> str:
        return self.reason


class FileTooLarge(FileRefused):
    def __init__(self, path: str | os.PathLike[str], size: int | None, limit: int) -> None:
        shown = f"is {size / 1048576:.1f} MiB" if size is not None else "is larger than the limit"
        super().__init__(path, f"'{os.fspath(path)}' {shown}; lait reads files of at most {_mib(limit)}")
        self.size = size
        self.limit = limit


def _mib(limit: int) -> str:
    return f"{limit // 1048576} MiB" if limit % 1048576 == 0 else f"{limit} bytes"


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def file_kind(mode: int) -> str:
    """What a non-regular ``st_mode`` is, for messages: ``a FIFO (named pipe)``, ``a directory``..."""
    return _kind(mode)


def not_regular(path: str | os.PathLike[str], mode: int) -> FileRefused:
    kind = _kind(mode)
    if kind == "a directory":
        return FileRefused(path, f"'{os.fspath(path)}' is a directory, not a file")
    return FileRefused(
        path, f"'{os.fspath(path)}' is {kind}, not a regular file; lait reads only regular files"
    )


def open_regular(path: str | os.PathLike[str]) -> int:
    """An fd of ``path`` opened for reading without blocking (a FIFO with no writer would block a
    plain open), after checking it is a regular file. Raises :class:`FileRefused` or ``OSError``."""
    flags = (
        os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    )
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        if exc.errno != errno.ENXIO:
            raise
        # a socket (or a device with no driver) cannot be opened at all
        try:
            mode = os.stat(path).st_mode
        except OSError:
            raise exc from None
        raise not_regular(path, mode) from None
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise not_regular(path, mode)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_bounded(path: str | os.PathLike[str], limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``limit`` of them.

    Raises :class:`FileRefused` (not a regular file), :class:`FileTooLarge` (more than ``limit``
    bytes, also when the file grows while it is read) or ``OSError`` (missing, no permission).
    """
    fd = open_regular(path)
    with os.fdopen(fd, "rb") as fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise FileTooLarge(path, size, limit)
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise FileTooLarge(path, None, limit)
    return data


def read_head(path: str | os.PathLike[str], count: int) -> bytes:
    """The first ``count`` bytes of the regular file ``path`` (same refusals as :func:`read_bounded`)."""
    with os.fdopen(open_regular(path), "rb") as fh:
        return fh.read(count)


class StreamTooLarge(Exception):
    def __init__(self, limit: int) -> None:
        super().__init__(_mib(limit))
        self.limit = limit


def read_stream(stream: BinaryIO, limit: int = MAX_FILE_BYTES) -> bytes:
    """Read ``stream`` (standard input) to its end, but never more than ``limit`` bytes: beyond
    that, :class:`StreamTooLarge` (``lait hi < /dev/zero`` ends at once, with bounded memory)."""
    chunks: list[bytes] = []
    total = 0
    while True:
        chunk = stream.read(min(1 << 20, limit + 1 - total))
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
        if total > limit:
            raise StreamTooLarge(limit)


@dataclass(frozen=True, slots=True)
class Loaded:
    text: str | None
    problem: Diagnostic | None


def _too_large(size: int) -> Loaded:
    message = f"file is {size / 1048576:.1f} MiB; lait reads files of at most 16 MiB"
    return Loaded(None, Diagnostic(CODE_TOO_LARGE, message, ZERO))


def decode(data: bytes) -> Loaded:
    """UTF-8 text of ``data`` (a BOM is dropped), or the located reason it is not text."""
    if len(data) > MAX_FILE_BYTES:
        return _too_large(len(data))
    nul = data.find(b"\0", 0, 8192)
    if nul != -1:
        return Loaded(
            None, Diagnostic(CODE_NOT_TEXT, "binary file (it contains NUL bytes); expected UTF-8 text", ZERO)
        )
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return Loaded(data.decode("utf-8"), None)
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", errors="replace")
        line = prefix.count("\n")
        col = len(prefix) - (prefix.rfind("\n") + 1)
        return Loaded(
            None,
            Diagnostic(
                CODE_NOT_TEXT,
                f"invalid UTF-8 (byte 0x{data[exc.start]:02x}); save the file as UTF-8",
                Range(Position(line, col), Position(line, col + 1)),
            ),
        )


def read_source(path: Path) -> Loaded:
    """Read ``path`` as text. Missing, unreadable, non-regular, oversized and binary files are
    diagnostics."""
    try:
        data = read_bounded(path)
    except FileTooLarge as exc:
        return _too_large(exc.size) if exc.size is not None else _too_large(MAX_FILE_BYTES + 1)
    except FileRefused as exc:
        return Loaded(None, Diagnostic(CODE_UNREADABLE, exc.reason, ZERO))
    except FileNotFoundError:
        return Loaded(None, Diagnostic(CODE_UNREADABLE, f"no such file '{path}'", ZERO))
    except IsADirectoryError:
        return Loaded(None, Diagnostic(CODE_UNREADABLE, f"'{path}' is a directory, not a file", ZERO))
    except OSError as exc:
        return Loaded(None, Diagnostic(CODE_UNREADABLE, f"cannot read '{path}': {exc.strerror or exc}", ZERO))
    return decode(data)
