"""A ``tools/call`` result as the text of the ``tool`` message (docs/mcp.md).

Text blocks are taken as they are; any other block (image, audio, resource, resource link) is
compact JSON; ``structuredContent`` adds a part ``structuredContent:\\n<compact JSON>``; an
``isError: true`` part goes first. Parts are joined with a blank line; no parts give ``""``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lait_core.engine.llm.chat_types import compact_json


def render_result(content: Sequence[Mapping[str, Any]], structured: Any, is_error: bool) -> str:
    """``content``: the blocks as JSON objects (wire field names)."""
    parts: list[str] = []
    if is_error:
        parts.append("isError: true")
    for block in content:
        text = block.get("text")
        if block.get("type") == "text" and isinstance(text, str):
            parts.append(text)
        else:
            parts.append(compact_json(block))
    if structured is not None:
        parts.append("structuredContent:\n" + compact_json(structured))
    return "\n\n".join(parts)
