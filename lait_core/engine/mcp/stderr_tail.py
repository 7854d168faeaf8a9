"""The last lines a stdio MCP server wrote to its stderr, kept so that a failure can say why.

A server that fails at start (``ModuleNotFoundError: No module named 'mcp'``, a missing API key)
usually says so on stderr and exits: the connection error alone ("Connection closed ... exit status:
1") names no cause. The stdio transport copies the server's stderr where it always went (lait's
stderr, the language server's log) and feeds it here; a failure message ends with this tail.

Bounded: the last :data:`MAX_LINES` lines, at most :data:`MAX_LINE_CHARS` characters each and
:data:`MAX_BYTES` bytes in all (an endless line is cut). Bytes that are not UTF-8 are replaced and
control characters shown as ``?``, so the tail is safe to print. Secrets are masked where the
message leaves the process (:mod:`lait_core.support.redact`), as for every other message.
"""

from __future__ import annotations

import re
from collections import deque

MAX_LINES = 20
MAX_LINE_CHARS = 300
MAX_BYTES = 4096
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


class StderrTail:
    def __init__(self, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> None:
        self.max_lines = max_lines
        self.max_bytes = max_bytes
        self._lines: deque[bytes] = deque()
        self._size = 0
        self._partial = bytearray()

    def feed(self, chunk: bytes) -> None:
        """More of the stream (any split: lines are put together here)."""
        self._partial += chunk
        while (end := self._partial.find(b"\n")) >= 0:
            self._push(bytes(self._partial[:end]))
            del self._partial[: end + 1]
        if len(self._partial) > self.max_bytes:  # an endless line: keep its end
            del self._partial[: len(self._partial) - self.max_bytes]

    def _push(self, line: bytes) -> None:
        line = line.rstrip(b"\r")[-self.max_bytes :]
        if not line.strip():
            return
        self._lines.append(line)
        self._size += len(line)
        while self._lines and (len(self._lines) > self.max_lines or self._size > self.max_bytes):
            self._size -= len(self._lines.popleft())

    def lines(self) -> list[str]:
        """The tail, oldest first, as printable text (an unfinished last line included)."""
        raw = list(self._lines)
        if self._partial.strip():
            raw.append(bytes(self._partial))
        out = []
        for line in raw[-self.max_lines :]:
            text = _CONTROL.sub("?", _ANSI.sub("", line.decode("utf-8", "replace"))).rstrip()
            if len(text) > MAX_LINE_CHARS:
                text = text[: MAX_LINE_CHARS - 1] + "…"
            out.append(text)
        return out

    def render(self, indent: str = "    ") -> str | None:
        """``its stderr ended with:`` and the lines, indented; None when the server wrote nothing."""
        lines = self.lines()
        if not lines:
            return None
        return "its stderr ended with:\n" + "\n".join(indent + line for line in lines)


__all__ = ["MAX_BYTES", "MAX_LINES", "MAX_LINE_CHARS", "StderrTail"]
