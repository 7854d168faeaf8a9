"""How the chat and run commands print a model's answer, one way for single-shot chat, the REPL,
`lait run` and `lait agent run` (docs/cli.md): the text to stdout or ``-o PATH``, as terminal
Markdown with ``--render``, and the ``--show-usage`` line with its cost.

Top-level imports are the standard library only (rich is imported when Markdown is rendered).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from lait_cli.support.common import fail

if TYPE_CHECKING:
    from lait_core.engine.llm.chat_types import Usage


def write_output(path: Path | None, text: str) -> None:
    """``text`` to ``path`` (None: stdout); a file that cannot be written exits 1."""
    if path is None:
        if sys.stdout.isatty():  # a terminal gets no control sequence from the model
            from lait_core.support.printable_text import printable

            text = printable(text)
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        path.write_text(text, encoding="utf-8", newline="")
    except OSError as exc:
        raise fail(f"cannot write '{path}': {exc.strerror or exc}", 1) from None


def render_markdown(text: str) -> None:
    """``text`` as Markdown on the terminal (``--render``)."""
    from rich.console import Console
    from rich.markdown import Markdown

    Console().print(Markdown(text))


def cost_text(costs: Sequence[float | None]) -> str:
    """`` cost=$X`` for the responses' costs when every one was priced; when only some were, the
    known part as a lower bound; nothing when none was (an unknown cost is never 0)."""
    known = [c for c in costs if c is not None]
    if not known:
        return ""
    if len(known) < len(costs):
        return f" cost>=${sum(known):.6f} (some models have no pricing)"
    return f" cost=${sum(known):.6f}"


def usage_line(usage: Usage, cost: str = "") -> str:
    """``usage: prompt=N completion=N total=N`` and the :func:`cost_text` (``--show-usage``, ``-v``)."""
    return (
        f"usage: prompt={usage.prompt_tokens} completion={usage.completion_tokens} "
        f"total={usage.total_tokens}{cost}"
    )
