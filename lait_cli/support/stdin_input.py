"""Standard input as a prompt's text: whether it is a terminal, and what was piped, read once.

Piped text is read at most once per ``sys.stdin`` object: the send-ahead path (:mod:`lait_cli.support.send_ahead`)
reads it at start-up to build the first request, and the chat command later gets the same text
instead of an empty stream. Standard library only (the send-ahead path imports this module).
"""

from __future__ import annotations

import sys

from lait_core.syntax.bounded_read import StreamTooLarge, read_stream


class StdinError(Exception):
    """Standard input cannot be a prompt (too large, not UTF-8); ``str()`` is the message."""


_read: tuple[object, str | StdinError | None] | None = None
"""(the ``sys.stdin`` it was read from, its piped text or the error it gave)."""


def stdin_is_tty() -> bool:
    try:
        return sys.stdin is not None and sys.stdin.isatty()
    except (AttributeError, ValueError, OSError):
        return False


def _read_piped() -> str | None:
    try:
        data = read_stream(sys.stdin.buffer) if sys.stdin is not None else b""
    except StreamTooLarge as exc:
        raise StdinError(f"standard input is larger than {exc}; lait reads at most that much") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise StdinError("standard input is not UTF-8 text") from None
    text = text.removeprefix("\ufeff").rstrip("\r\n")
    return text if text.strip() else None


def piped_text() -> str | None:
    """Standard input's text (a leading BOM and trailing ``\\r``/``\\n`` removed), None when it is
    empty or only whitespace; read on the first call for the current ``sys.stdin``, remembered after.
    Raises :class:`StdinError`."""
    global _read
    if _read is None or _read[0] is not sys.stdin:
        try:
            value: str | StdinError | None = _read_piped()
        except StdinError as exc:
            value = exc
        _read = (sys.stdin, value)
    found = _read[1]
    if isinstance(found, StdinError):
        raise found
    return found


class DashWithoutInput(StdinError):
    """PROMPT ``-`` with nothing piped (a usage error)."""


def prompt_text(argument: str | None) -> str | None:
    """PROMPT/INPUT after the stdin rules (docs/cli.md): ``-`` reads stdin only; piped stdin is read
    too and appended as ``"{PROMPT}\\n\\n{piped}"``; whitespace-only piped text counts as absent.
    None when there is neither. Raises :class:`StdinError` (:class:`DashWithoutInput` for ``-``)."""
    piped = piped_text() if argument == "-" or not stdin_is_tty() else None
    if argument == "-":
        if piped is None:
            raise DashWithoutInput(
                "a PROMPT is required; provide one or pipe input via stdin (stdin was empty)"
            )
        return piped
    if argument is not None:
        return argument if piped is None else f"{argument}\n\n{piped}"
    return piped
