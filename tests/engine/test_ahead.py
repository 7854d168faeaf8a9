"""A request sent ahead (lait_core.engine.llm.ahead) and its adoption by the HTTP client: the held answer
is used only for the very same request, and goes through the same status, retry and stream code as
any other answer. Real HTTP on 127.0.0.1 (the scripted server)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from typing import Any

import pytest

from lait_core.engine.llm import ahead
from lait_core.engine.llm.chat_types import LlmConnectionError, LlmHttpError
from lait_core.engine.llm.client import ChatClient
from lait_core.engine.llm.wire import RequestParts, request_parts
from tests.engine.conftest import FAST_RETRY
from tests.peers.openai_server import ScriptedOpenAIServer, drop, error, text


@pytest.fixture(autouse=True)
def _nothing_held() -> Iterator[None]:
    ahead.discard()
    yield
    ahead.discard()


def body(content: str = "hi", **extra: Any) -> dict[str, Any]:
    return {"model": "m", "messages": [{"role": "user", "content": content}], "stream": False, **extra}


def connections(server: ScriptedOpenAIServer) -> list[str | None]:
    return [r.headers.get("connection") for r in server.requests]


async def test_the_same_request_is_answered_from_the_held_connection(
    llm_server: ScriptedOpenAIServer,
) -> None:
    llm_server.push(text("held answer"), text("second answer"))
    assert ahead.send_ahead(request_parts(llm_server.url, None, body()))
    async with ChatClient(retry=FAST_RETRY) as client:
        first = await client.complete(llm_server.url, None, body())
        second = await client.complete(llm_server.url, None, body())
    assert (first.content, second.content) == ("held answer", "second answer")
    assert connections(llm_server) == ["close", "keep-alive"]  # one request each, the first sent ahead
    assert not ahead.held()


async def test_a_different_request_is_sent_and_the_held_one_dropped(llm_server: ScriptedOpenAIServer) -> None:
    llm_server.push(text("for the guess"), text("for the real request"))
    assert ahead.send_ahead(request_parts(llm_server.url, None, body("guess")))
    llm_server.wait_for_replies(1)  # the reply for the guess is taken before the real request goes
    async with ChatClient(retry=FAST_RETRY) as client:
        answer = await client.complete(llm_server.url, None, body("real"))
    assert answer.content == "for the real request"
    assert [r.body["messages"][0]["content"] for r in llm_server.requests] == ["guess", "real"]
    assert not ahead.held()


async def test_another_key_is_another_request(llm_server: ScriptedOpenAIServer) -> None:
    llm_server.push(text("a"), text("b"))
    assert ahead.send_ahead(request_parts(llm_server.url, "sk-one", body()))
    llm_server.wait_for_replies(1)  # the reply for the guess is taken before the real request goes
    async with ChatClient(retry=FAST_RETRY) as client:
        answer = await client.complete(llm_server.url, "sk-two", body())
    assert answer.content == "b"
    assert llm_server.requests[-1].headers["authorization"] == "Bearer sk-two"


async def test_a_held_server_error_goes_through_the_retry_policy(llm_server: ScriptedOpenAIServer) -> None:
    llm_server.push(error(503, "busy"), text("after the retry"))
    assert ahead.send_ahead(request_parts(llm_server.url, None, body()))
    async with ChatClient(retry=FAST_RETRY) as client:
        answer = await client.complete(llm_server.url, None, body())
    assert answer.content == "after the retry"
    assert connections(llm_server) == ["close", "keep-alive"]


async def test_a_held_client_error_is_reported_as_any_other(llm_server: ScriptedOpenAIServer) -> None:
    llm_server.push(error(401, "bad key"))
    assert ahead.send_ahead(request_parts(llm_server.url, None, body()))
    async with ChatClient(retry=FAST_RETRY) as client:
        with pytest.raises(LlmHttpError) as caught:
            await client.complete(llm_server.url, None, body())
    assert caught.value.status == 401 and "bad key" in str(caught.value)


async def test_a_held_connection_closed_without_an_answer_is_a_connection_error(
    llm_server: ScriptedOpenAIServer,
) -> None:
    llm_server.push(drop())
    assert ahead.send_ahead(request_parts(llm_server.url, None, body()))
    async with ChatClient(retry=FAST_RETRY) as client:
        with pytest.raises(LlmConnectionError, match="without sending a response"):
            await client.complete(llm_server.url, None, body())


async def test_a_held_stream_is_read_as_a_stream(llm_server: ScriptedOpenAIServer) -> None:
    usage = {"prompt_tokens": 4, "completion_tokens": 3, "total_tokens": 7}
    llm_server.push(text("streamed through the held socket", usage=usage))
    streamed = body(stream=True, stream_options={"include_usage": True})
    assert ahead.send_ahead(request_parts(llm_server.url, None, streamed))
    pieces: list[str] = []
    async with ChatClient(retry=FAST_RETRY) as client:
        opened = await client.open_stream(llm_server.url, None, streamed)
        answer = await opened.read(lambda kind, piece: pieces.append(piece))
    assert answer.content == "streamed through the held socket" == "".join(pieces)
    assert len(pieces) > 1
    assert answer.usage is not None and answer.usage.total_tokens == 7
    assert llm_server.requests[0].headers["accept"] == "text/event-stream"


def test_nothing_is_sent_ahead_when_nothing_listens() -> None:
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))  # held but not listening: connecting is refused, and no other
        port = bound.getsockname()[1]  # process can take the port while the test runs
        assert not ahead.send_ahead(request_parts(f"http://127.0.0.1:{port}/v1", None, body()))
    assert not ahead.held()


def test_nothing_is_sent_ahead_through_a_proxy_or_when_switched_off(
    llm_server: ScriptedOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    parts = request_parts(llm_server.url, None, body())
    monkeypatch.setenv("HTTP_PROXY", "http://127.0.0.1:9")
    assert not ahead.send_ahead(parts)
    monkeypatch.delenv("HTTP_PROXY")
    for off in ("0", "false", "OFF", "No"):
        monkeypatch.setenv("LAIT_SEND_AHEAD", off)
        assert not ahead.send_ahead(parts)
    assert llm_server.requests == []


@pytest.mark.parametrize(
    ("url", "target"),
    [
        ("http://127.0.0.1:1234/v1/chat/completions", ("127.0.0.1", 1234, "/v1/chat/completions")),
        ("http://localhost/v1/chat/completions", ("localhost", 80, "/v1/chat/completions")),
        ("http://localhost/v1/chat/completions?key=secret", None),
        ("http://127.0.0.1:8089/v1 /chat/completions", None),
        ("http://127.0.0.1:8089/v1/\u00e9/chat/completions", None),
        ("http://127.0.0.1:8089/v1\t/chat/completions", None),
        ("http://[::1]:8080/chat/completions", ("::1", 8080, "/chat/completions")),
        ("http://127.9.9.9:1/c", ("127.9.9.9", 1, "/c")),
        ("https://127.0.0.1:1234/v1/chat/completions", None),
        ("http://example.com/v1/chat/completions", None),
        ("http://10.0.0.1/v1/chat/completions", None),
        ("http://user:secret@127.0.0.1:1234/v1/chat/completions", None),
        ("http://127.0.0.1:99999/v1", None),
        ("http://localhost.example.com/v1", None),
    ],
)
def test_only_plain_loopback_urls_are_sent_ahead(url: str, target: tuple[str, int, str] | None) -> None:
    assert ahead.loopback_target(url) == target


def test_a_header_with_a_line_break_or_not_in_ascii_is_never_written(
    llm_server: ScriptedOpenAIServer,
) -> None:
    parts = request_parts(llm_server.url, None, body())
    for value in ("Bearer sk\r\nX-Injected: 1", "Bearer sk-\u00e9"):  # request_parts refuses such keys too
        assert not ahead.send_ahead(
            RequestParts(parts.url, {**parts.headers, "Authorization": value}, parts.content)
        )
    assert llm_server.requests == []
