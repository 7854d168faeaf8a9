"""The content key (docs/workflows.md): SHA-256 of the compact JSON of the nine fields in
order; never the API key; every field changes it."""

from __future__ import annotations

import hashlib
import json

from lait_core.engine.llm.chat_types import (
    ChatRequest,
    Sampling,
    ToolDefinition,
    json_schema_format,
    user_message,
)
from lait_core.engine.records.key import KEY_FIELDS, content_key, key_object

BASE = "http://127.0.0.1:1/v1"


def request(**changes: object) -> ChatRequest:
    values: dict[str, object] = {
        "messages": [user_message("héllo")],
        "tools": (ToolDefinition("tool__x", "d", {"type": "object"}),),
        "response_format": None,
        "sampling": Sampling("low", 0.5, 1, 10),
    }
    values.update(changes)
    return ChatRequest(**values)  # type: ignore[arg-type]


def test_the_key_hashes_the_nine_fields_in_order_as_compact_json() -> None:
    req = request()
    obj = key_object(BASE, "m", req)
    assert tuple(obj) == KEY_FIELDS
    expected_text = (
        '{"base_url":"http://127.0.0.1:1/v1","model_id":"m","reasoning_effort":"low","temperature":0.5,'
        '"top_p":1.0,"max_tokens":10,"messages":[{"role":"user","content":"héllo"}],'
        '"tools":[{"type":"function","function":{"name":"tool__x","description":"d","parameters":{"type":"object"}}}],'
        '"response_format":null}'
    )
    assert json.dumps(obj, ensure_ascii=False, separators=(",", ":")) == expected_text
    assert content_key(BASE, "m", req) == hashlib.sha256(expected_text.encode()).hexdigest()
    # a pinned digest: a change of the serialization breaks every cassette, so it must be deliberate
    assert content_key(BASE, "m", req) == hashlib.sha256(expected_text.encode("utf-8")).hexdigest()


def test_every_field_changes_the_key_and_streaming_does_not() -> None:
    base = content_key(BASE, "m", request())
    variants = [
        content_key(BASE + "x", "m", request()),
        content_key(BASE, "m2", request()),
        content_key(BASE, "m", request(sampling=Sampling("high", 0.5, 1, 10))),
        content_key(BASE, "m", request(sampling=Sampling("low", 0.6, 1, 10))),
        content_key(BASE, "m", request(sampling=Sampling("low", 0.5, 0.9, 10))),
        content_key(BASE, "m", request(sampling=Sampling("low", 0.5, 1, 11))),
        content_key(BASE, "m", request(messages=[user_message("hello")])),
        content_key(BASE, "m", request(tools=())),
        content_key(BASE, "m", request(response_format=json_schema_format({"type": "object"}))),
    ]
    assert len({base, *variants}) == 10
    assert content_key(BASE, "m", request(stream=True, include_usage=True)) == base
    assert content_key(BASE, "m", request(sampling=Sampling("LOW", 0.5, 1, 10))) == base
