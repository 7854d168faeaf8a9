"""JSON text read back from lait's own files (history, traces, checkpoints, the response cache,
cassettes, chat sessions), bounded in nesting depth.

Python's decoder recurses: a 100,000-deep ``[[[[...`` line raised ``RecursionError`` out of every
reader (``internal error: RecursionError``). :func:`loads` turns that, and any value nested deeper
than :data:`MAX_DEPTH`, into a ``ValueError`` like any other unreadable JSON, so each reader
handles it as it handles bad JSON: a located error, a cache miss, a skipped history line.
"""

from __future__ import annotations

import json
from typing import Any, Final

MAX_DEPTH: Final = 1024
"""Deepest nesting accepted (the same as a jq value's)."""


class TooDeep(ValueError):
    def __init__(self) -> None:
        super().__init__(f"nested deeper than {MAX_DEPTH} levels")
        self.msg = str(self)


def loads(text: str | bytes) -> Any:
    """``json.loads``; raises :class:`TooDeep` (a ``ValueError``) for nesting beyond MAX_DEPTH."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise TooDeep() from None
    if deeper_than(value, MAX_DEPTH):
        raise TooDeep()
    return value


def deeper_than(value: Any, limit: int) -> bool:
    """Whether ``value`` nests containers more than ``limit`` levels (iterative: no recursion)."""
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if not isinstance(item, dict | list):
            continue
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, dict | list))
    return False


__all__ = ["MAX_DEPTH", "TooDeep", "deeper_than", "loads"]
