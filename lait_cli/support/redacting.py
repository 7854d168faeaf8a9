"""The CLI's stderr, redacted: every message, note, progress line and log record lait writes there
passes through :func:`lait_core.support.redact.redact` (URL credentials and query values, remembered
secrets). stdout -- the answer -- is left alone. Standard library only."""

from __future__ import annotations

import io
import sys
from typing import Any, TextIO

from lait_core.support.redact import redact


class RedactingStream(io.TextIOBase):
    """A text stream that redacts what is written and passes it to ``inner``."""

    def __init__(self, inner: TextIO) -> None:
        super().__init__()
        self.inner = inner

    def write(self, text: str) -> int:
        self.inner.write(redact(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.inner.flush()

    def writable(self) -> bool:
        return True

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.inner.encoding

    @property
    def errors(self) -> str | None:  # type: ignore[override]
        return self.inner.errors

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def install() -> None:
    """Wrap ``sys.stderr`` (once)."""
    if not isinstance(sys.stderr, RedactingStream) and sys.stderr is not None:
        sys.stderr = RedactingStream(sys.stderr)  # type: ignore[assignment]
