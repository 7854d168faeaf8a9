"""What lait puts on the wire for a chat request (lait_core.engine.llm.wire), and the inputs no request
can carry: reported as configuration errors (``lait: <message>``, exit 1), never as internal errors."""

from __future__ import annotations

import json

import pytest

from lait_core.engine.llm.chat_types import ConfigurationError
from lait_core.engine.llm.client import ChatClient
from lait_core.engine.llm.wire import PLACEHOLDER_KEY, USER_AGENT, request_parts

BODY = {"model": "m", "messages": [{"role": "user", "content": "日本語 😀"}], "stream": False}


def test_the_parts_of_a_request() -> None:
    parts = request_parts("http://127.0.0.1:1/v1", None, BODY)
    assert parts.url == "http://127.0.0.1:1/v1/chat/completions"
    assert parts.headers == {
        "User-Agent": USER_AGENT,
        "Authorization": f"Bearer {PLACEHOLDER_KEY}",
        "Content-Type": "application/json",
        "Accept": "application/json",
    }
    assert json.loads(parts.content) == BODY and "日本語".encode() in parts.content
    streamed = request_parts("http://h/v1", "sk-1", {**BODY, "stream": True})
    assert streamed.headers["Accept"] == "text/event-stream"
    assert streamed.headers["Authorization"] == "Bearer sk-1"


@pytest.mark.parametrize("key", ["sk-\u00e9", "sk-1\n", "sk\t1", "sk-\x7f"])
def test_a_key_no_header_can_carry_is_a_configuration_error(key: str) -> None:
    with pytest.raises(ConfigurationError, match="API key") as caught:
        request_parts("http://h/v1", key, BODY)
    assert key not in str(caught.value)


def test_text_that_is_not_utf8_is_a_configuration_error() -> None:
    body = {**BODY, "messages": [{"role": "user", "content": "caf\udce9"}]}  # an undecodable argv byte
    with pytest.raises(ConfigurationError, match="not valid UTF-8"):
        request_parts("http://h/v1", None, body)


async def test_a_base_url_httpx_refuses_is_a_configuration_error() -> None:
    async with ChatClient() as client:
        with pytest.raises(ConfigurationError, match="is not a valid URL"):
            await client.complete("http://127.0.0.1:1/v1\t", None, BODY)
