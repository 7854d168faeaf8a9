"""The content key of a model request (docs/workflows.md).

The key is the SHA-256 (lowercase hex) of the compact JSON of an object with these fields, in this
order: ``base_url``, ``model_id``, ``reasoning_effort``, ``temperature``, ``top_p``,
``max_tokens``, ``messages``, ``tools``, ``response_format`` -- the primary endpoint and model,
never the API key or any header.

Decision: Python cassettes are not byte-compatible with the Rust original's (that would mean
reproducing async-openai's serialization); the key is self-consistent: compact separators, keys of
lait's own messages in the order lait builds them, non-ASCII kept as UTF-8, ``temperature`` and
``top_p`` always as floats, an empty tool list as ``null``. Whether a request streams is not part
of the key, so a streamed and a plain request share an entry.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from lait_core.engine.llm.chat_types import ChatRequest

KEY_FIELDS = (
    "base_url",
    "model_id",
    "reasoning_effort",
    "temperature",
    "top_p",
    "max_tokens",
    "messages",
    "tools",
    "response_format",
)


def _float(value: float | None) -> float | None:
    return None if value is None else float(value)


def key_object(base_url: str, model_id: str, request: ChatRequest) -> dict[str, Any]:
    """The object whose compact JSON is hashed, fields in the original lait's order."""
    s = request.sampling
    effort = s.reasoning_effort.lower() if s.reasoning_effort is not None else None
    return {
        "base_url": base_url,
        "model_id": model_id,
        "reasoning_effort": effort,
        "temperature": _float(s.temperature),
        "top_p": _float(s.top_p),
        "max_tokens": s.max_tokens,
        "messages": request.messages,
        "tools": [t.wire() for t in request.tools] if request.tools else None,
        "response_format": request.response_format,
    }


def content_key(base_url: str, model_id: str, request: ChatRequest) -> str:
    """The key of ``request`` sent to ``model_id`` at ``base_url`` (the primary endpoint)."""
    text = json.dumps(
        key_object(base_url, model_id, request), ensure_ascii=False, separators=(",", ":"), allow_nan=False
    )
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
