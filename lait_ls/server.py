"""`lait-ls`: start the language server over stdio.

This module stays light (the standard library only) so that ``initialize`` can be answered before
pygls, lsprotocol and lait_core are imported (:mod:`lait_ls.early_initialize`); the server itself is
:mod:`lait_ls.language_server`, whose names this module still offers (``from lait_ls.server import
build``).
"""

from __future__ import annotations

import logging
import os
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lait_ls.language_server import LaitServer as LaitServer
    from lait_ls.language_server import build as build


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    from lait_ls import language_server

    return getattr(language_server, name)


class ClientErrorsWithoutTraceback(logging.Filter):
    """pygls logs every JSON-RPC error a handler raises with a full traceback. Invalid params are
    the client's mistake, answered as such: one line in the log, no traceback. A ``$/cancelRequest``
    for a request already answered (VS Code sends many) is ordinary: a debug line, not a warning in
    the editor's output channel, where the server's stderr goes."""

    def filter(self, record: logging.LogRecord) -> bool:
        from pygls.exceptions import JsonRpcInvalidParams

        if record.levelno == logging.WARNING and str(record.msg).startswith(
            "Cancel notification for unknown"
        ):
            record.levelno, record.levelname = logging.DEBUG, "DEBUG"
            return logging.getLogger(record.name).isEnabledFor(logging.DEBUG)

        exc = record.exc_info[1] if record.exc_info else None
        if isinstance(exc, JsonRpcInvalidParams):
            record.msg, record.args = "invalid params from the client: %s", (exc.message,)
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.INFO, "INFO"
            return logging.getLogger(record.name).isEnabledFor(logging.INFO)
        return True


class RedactingFormatter(logging.Formatter):
    """The log, tracebacks included, without URL credentials or configured secrets."""

    def __init__(self, inner: logging.Formatter | None) -> None:
        super().__init__()
        self.inner = inner or logging.Formatter(logging.BASIC_FORMAT)

    def format(self, record: logging.LogRecord) -> str:
        from lait_core.support.redact import redact

        return redact(self.inner.format(record))


def main() -> None:
    """Start over stdio; fd 1 is kept for the protocol only (children and prints go to stderr)."""
    logging.basicConfig(level=os.environ.get("LAIT_LOG", "WARNING").upper(), stream=sys.stderr)
    logging.getLogger("pygls.protocol.json_rpc").addFilter(ClientErrorsWithoutTraceback())
    for handler in logging.getLogger().handlers:
        handler.setFormatter(RedactingFormatter(handler.formatter))
    lsp_out = os.fdopen(os.dup(1), "wb", buffering=0)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    from lait_ls.early_initialize import answer_early

    early = answer_early(sys.stdin.buffer, lsp_out)
    from lait_ls.language_server import build
    from lait_ls.transport import serve_stdio

    serve_stdio(build(), sys.stdin.buffer, lsp_out, early=early)


if __name__ == "__main__":
    main()
