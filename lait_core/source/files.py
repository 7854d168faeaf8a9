"""Reading a file's bytes into text, with every failure as a located diagnostic."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from lait_core.diagnostics import Diagnostic
from lait_core.source.positions import ZERO, Position, Range

MAX_FILE_BYTES = 16 * 1024 * 1024
"""Every file lait reads is capped at 16 MiB."""

CODE_UNREADABLE = "LAIT004"
CODE_NOT_TEXT = "LAIT005"
CODE_TOO_LARGE = "LAIT006"


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
    """Read ``path`` as text. Missing, unreadable, oversized and binary files are diagnostics."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            return _too_large(size)
        with path.open("rb") as fh:
            data = fh.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        return Loaded(None, Diagnostic(CODE_UNREADABLE, f"no such file '{path}'", ZERO))
    except IsADirectoryError:
        return Loaded(None, Diagnostic(CODE_UNREADABLE, f"'{path}' is a directory, not a file", ZERO))
    except OSError as exc:
        return Loaded(None, Diagnostic(CODE_UNREADABLE, f"cannot read '{path}': {exc.strerror or exc}", ZERO))
    return decode(data)
