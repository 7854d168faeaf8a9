"""Text that came from elsewhere (a model's answer, a server's error body, an OAuth
``error_description``) made safe to print: control characters other than newline and tab are
shown as ``\\xNN`` instead of reaching the terminal, where an escape sequence could retitle the
window, clear the screen, hide text or fake lait's own output. Standard library only."""

from __future__ import annotations

import re

_CONTROLS = re.compile(r"\r(?=\n)|[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with each control character but ``\\n`` and ``\\t`` shown as ``\\xNN`` (a ``\\r``
    just before a ``\\n`` is dropped)."""
    if text.isprintable():
        return text
    return _CONTROLS.sub(lambda m: "" if m.group() == "\r" else f"\\x{ord(m.group()):02x}", text)


__all__ = ["printable"]
