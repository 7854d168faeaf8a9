"""The OpenAI-compatible client against the scripted server: exact request bodies,
response parsing, streaming reassembly, retries and fallback (docs/config.md, "models:")."""

from __future__ import annotations

import asyncio
import shutil
import socket
import ssl
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from lait_core.documents.document_models import Config
from lait_core.engine.llm.chat_types import (
    ChatRequest,
    LlmConnectionError,
    LlmHttpError,
    LlmResponseError,
    LlmTimeoutError,
    Sampling,
    ToolDefinition,
    Usage,
    json_schema_format,
    user_message,
)
from lait_core.engine.llm.client import ChatClient, ModelCaller, StreamAssembler, no_ca_context
from lait_core.engine.llm.model_resolution import resolve_model
from lait_core.engine.run.interaction import HeadlessInteraction, ReasoningDelta, TextDelta, WarningEvent
from lait_core.support.httpx_import import httpx
from tests.engine.conftest import FAST_RETRY, caller_for
from tests.peers.openai_server import (
    ScriptedOpenAIServer,
    call,
    drop,
    empty_stream,
    error,
    text,
    tool_calls,
)

TOOL = ToolDefinition("tool__rg", "search", {"type": "object", "properties": {"pattern": {"type": "string"}}})
HELLO = [user_message("hello")]


def request(**kwargs: Any) -> ChatRequest:
    kwargs.setdefault("messages", HELLO)
    return ChatRequest(**kwargs)


# -- request shape ----------------------------------------------------------------------------
async def test_plain_request_body_is_minimal(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(text("hi"))
    response = await caller_for(llm_server, client).complete(request())
    assert response.content == "hi"
    assert llm_server.bodies == [
        {"model": "test-model", "messages": [{"role": "user", "content": "hello"}], "stream": False}
    ]
    headers = llm_server.requests[0].headers
    assert headers["authorization"] == "Bearer lm-studio"
    assert headers["content-type"] == "application/json"
    assert llm_server.requests[0].path == "/v1/chat/completions"


async def test_full_request_body(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(text("{}"))
    rf = json_schema_format({"type": "object"}, "answer")
    sampling = Sampling(reasoning_effort="low", temperature=0.5, top_p=0.9, max_tokens=100)
    await caller_for(llm_server, client).complete(
        request(tools=(TOOL,), response_format=rf, sampling=sampling)
    )
    body = llm_server.bodies[0]
    assert list(body) == [
        "model",
        "messages",
        "stream",
        "reasoning_effort",
        "temperature",
        "top_p",
        "max_completion_tokens",
        "response_format",
        "tools",
        "tool_choice",
    ]
    assert body["max_completion_tokens"] == 100 and "max_tokens" not in body
    assert body["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": {"type": "object"}, "strict": True},
    }
    assert body["tools"] == [
        {
            "type": "function",
            "function": {
                "name": "tool__rg",
                "description": "search",
                "parameters": {"type": "object", "properties": {"pattern": {"type": "string"}}},
            },
        }
    ]
    # tool_choice "auto" is sent explicitly whenever tools are offered (llama-cpp-python ignores
    # tools without it); strict and parallel_tool_calls never are.
    assert body["tool_choice"] == "auto"
    assert "parallel_tool_calls" not in body
    assert "strict" not in body["tools"][0]["function"]


async def test_tools_key_omitted_when_empty(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(text("x"))
    await caller_for(llm_server, client).complete(request(tools=()))
    assert "tools" not in llm_server.bodies[0] and "tool_choice" not in llm_server.bodies[0]


async def test_api_key_is_sent_as_bearer(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(text("x"))
    model = resolve_model("m", Config.model_validate({"base_url": llm_server.url + "///", "api_key": "sk-1"}))
    await ModelCaller(model, client).complete(request())
    assert llm_server.requests[0].headers["authorization"] == "Bearer sk-1"
    assert llm_server.requests[0].path == "/v1/chat/completions"


# -- response parsing -------------------------------------------------------------------------
async def test_reasoning_usage_and_tool_calls_are_parsed(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    usage = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    llm_server.push(
        {"message": {"content": "answer", "reasoning": "thought"}, "usage": usage},
        {"message": {"content": "answer", "reasoning_content": "legacy"}},
        tool_calls(call("tool__rg", {"pattern": "x"}), call("tool__rg", "{bad"), content=""),
    )
    caller = caller_for(llm_server, client)
    first = await caller.complete(request())
    assert (first.content, first.reasoning, first.usage) == ("answer", "thought", Usage(7, 3, 10))
    assert (await caller.complete(request())).reasoning == "legacy"
    third = await caller.complete(request())
    assert third.content is None
    assert [(c.id, c.name, c.arguments) for c in third.tool_calls] == [
        ("call_0", "tool__rg", '{"pattern":"x"}'),
        ("call_1", "tool__rg", "{bad"),
    ]


async def test_no_content_and_no_choices_are_errors(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    llm_server.push(text(""), {"body": {"choices": []}}, {"body": "not json"})
    caller = caller_for(llm_server, client)
    with pytest.raises(LlmResponseError, match="API response contained no content in its first choice"):
        await caller.complete(request())
    with pytest.raises(LlmResponseError, match="API response contained no choices"):
        await caller.complete(request())
    with pytest.raises(LlmResponseError, match="is not JSON"):
        await caller.complete(request())


# -- streaming --------------------------------------------------------------------------------
async def test_stream_text_and_reasoning_deltas(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    usage = {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    llm_server.push({"message": {"content": "Hello world", "reasoning": "hmm"}, "usage": usage})
    deltas: list[tuple[str, str]] = []
    response = await caller_for(llm_server, client).stream(
        request(stream=True, include_usage=True), lambda k, t: deltas.append((k, t))
    )
    assert response.content == "Hello world" and response.reasoning == "hmm"
    assert response.usage == Usage(5, 2, 7)
    assert "".join(t for k, t in deltas if k == "content") == "Hello world"
    assert len([d for d in deltas if d[0] == "content"]) > 1  # really incremental
    assert llm_server.bodies[0]["stream"] is True
    assert llm_server.bodies[0]["stream_options"] == {"include_usage": True}


async def test_stream_options_only_when_usage_requested(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    llm_server.push(text("x"))
    await caller_for(llm_server, client).stream(request(stream=True))
    assert "stream_options" not in llm_server.bodies[0]


@pytest.mark.parametrize("style", ["repeat", "first"])
@pytest.mark.parametrize("interleave", [False, True])
async def test_stream_tool_call_fragments_merge_by_index(
    llm_server: ScriptedOpenAIServer, client: ChatClient, style: str, interleave: bool
) -> None:
    """llama-cpp-python repeats id and name in every chunk: they must not be duplicated."""
    calls = tool_calls(
        call("tool__rg", {"pattern": "a long pattern value"}),
        call("srv__read_file", {"path": "/tmp/x"}),
        stream_style=style,
        interleave=interleave,
        chunk_size=3,
    )
    llm_server.push(calls)
    response = await caller_for(llm_server, client).stream(request(stream=True, tools=(TOOL,)))
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("call_0", "tool__rg", '{"pattern":"a long pattern value"}'),
        ("call_1", "srv__read_file", '{"path":"/tmp/x"}'),
    ]


def test_assembler_last_id_and_name_win_and_indexes_sort() -> None:
    a = StreamAssembler("http://x")

    def chunk(*frags: dict[str, Any]) -> dict[str, Any]:
        return {"choices": [{"index": 0, "delta": {"tool_calls": list(frags)}}]}

    a.feed(chunk({"index": 1, "id": "b", "function": {"name": "second", "arguments": "{"}}))
    a.feed(chunk({"index": 0, "id": "a", "function": {"name": "first", "arguments": "["}}))
    a.feed(chunk({"index": 1, "id": "b2", "function": {"name": "second2", "arguments": "}"}}))
    a.feed(chunk({"index": 0, "function": {"arguments": "]"}}))
    response = a.finish()
    assert [(c.id, c.name, c.arguments) for c in response.tool_calls] == [
        ("a", "first", "[]"),
        ("b2", "second2", "{}"),
    ]


@pytest.mark.parametrize(
    ("fragment", "message"),
    [
        ({"index": 0, "function": {"name": "x", "arguments": "{}"}}, "never received an 'id'"),
        ({"index": 0, "id": "c", "function": {"arguments": "{}"}}, "never received a 'name'"),
    ],
)
def test_assembler_missing_id_or_name(fragment: dict[str, Any], message: str) -> None:
    a = StreamAssembler("http://x")
    a.feed({"choices": [{"index": 0, "delta": {"tool_calls": [fragment]}}]})
    with pytest.raises(LlmResponseError, match=message):
        a.finish()


async def test_empty_stream_names_the_server(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    """llama-cpp-python answers stream + tool_choice auto with HTTP 200 and an empty body."""
    llm_server.push(empty_stream())
    with pytest.raises(LlmResponseError) as info:
        await caller_for(llm_server, client).stream(request(stream=True, tools=(TOOL,)))
    assert f"the server at {llm_server.url} sent an empty stream" in str(info.value)
    assert len(llm_server.requests) == 1


async def test_broken_streams(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(
        {"sse": ['{"choices": [{"index": 0, "delta": {"content": "par', "[DONE]"]},
        {"sse": [{"error": {"message": "model crashed"}}]},
        {"sse": [{"choices": [{"index": 0, "delta": {}}]}]},
        {"message": {"content": "cut short"}, "truncate": 3, "chunk_size": 3},
    )
    caller = caller_for(llm_server, client)
    with pytest.raises(LlmResponseError, match="malformed stream chunk"):
        await caller.stream(request(stream=True))
    with pytest.raises(LlmResponseError, match=r"stream error from .*: model crashed"):
        await caller.stream(request(stream=True))
    with pytest.raises(LlmResponseError, match="no content in its first choice"):
        await caller.stream(request(stream=True))
    # a stream that ends without [DONE] keeps what arrived
    assert (await caller.stream(request(stream=True))).content == "cut sh"


# -- retries ----------------------------------------------------------------------------------
async def test_retries_5xx_then_succeeds(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(error(500), error(503), error(502), text("ok"))
    assert (await caller_for(llm_server, client).complete(request())).content == "ok"
    assert len(llm_server.requests) == 4


async def test_gives_up_after_three_retries(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(*[error(500, "boom")] * 5)
    with pytest.raises(LlmHttpError) as info:
        await caller_for(llm_server, client).complete(request())
    assert info.value.status == 500 and "HTTP 500: boom" in str(info.value)
    assert len(llm_server.requests) == 4 and llm_server.remaining == 1


async def test_retry_after_is_honoured(llm_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    llm_server.push(error(429, retry_after=0.3), text("ok"))
    started = time.monotonic()
    assert (await caller_for(llm_server, client).complete(request())).content == "ok"
    assert time.monotonic() - started >= 0.3


@pytest.mark.parametrize(
    "item",
    [
        error(400, "bad request"),
        error(408),
        {"status": 429, "body": {"error": {"message": "quota", "code": "insufficient_quota"}}},
    ],
)
async def test_not_retried(
    llm_server: ScriptedOpenAIServer, client: ChatClient, item: dict[str, Any]
) -> None:
    llm_server.push(item, text("never"))
    with pytest.raises(LlmHttpError):
        await caller_for(llm_server, client).complete(request())
    assert len(llm_server.requests) == 1


async def test_timeout_is_per_attempt_and_not_retried(llm_server: ScriptedOpenAIServer) -> None:
    llm_server.push(text("slow", delay=1.0), text("never"))
    async with ChatClient(timeout=0.3, retry=FAST_RETRY) as quick:
        with pytest.raises(LlmTimeoutError, match=r"timed out after 0\.3s"):
            await caller_for(llm_server, quick).complete(request())
    assert len(llm_server.requests) == 1


async def test_connection_refused_is_a_connection_error(client: ChatClient) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    model = resolve_model("m", Config.model_validate({"base_url": f"http://127.0.0.1:{port}/v1"}))
    with pytest.raises(LlmConnectionError) as info:
        await ModelCaller(model, client).complete(request())
    assert info.value.fallback_eligible


# -- fallback ---------------------------------------------------------------------------------
def alias_config(*servers: ScriptedOpenAIServer | str, **extra: Any) -> Config:
    entries = []
    for i, s in enumerate(servers):
        url = s if isinstance(s, str) else s.url
        entries.append(
            {
                "provider": {"base_url": url},
                "model_id": f"model-{i}",
                **({"default_temperature": 0.25} if i == 0 else {"default_temperature": 1.5}),
            }
        )
    return Config.model_validate({"models": {"smart": entries}, **extra})


async def test_fallback_on_5xx_after_retries(
    llm_server: ScriptedOpenAIServer, second_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    llm_server.push(*[error(500, "down")] * 4)
    second_server.push(text("from backup"))
    interaction = HeadlessInteraction()
    model = resolve_model("smart", alias_config(llm_server, second_server))
    caller = ModelCaller(model, client, interaction=interaction)
    response = await caller.complete(request(sampling=model.defaults()))
    assert response.content == "from backup" and response.base_url == second_server.url
    assert len(llm_server.requests) == 4
    # the candidate uses its own model_id but the primary's sampling defaults
    assert second_server.bodies[0]["model"] == "model-1"
    assert second_server.bodies[0]["temperature"] == 0.25
    assert interaction.of_type(WarningEvent) == [
        WarningEvent(
            f"request to {llm_server.url} failed (HTTP 500: down); falling back to model definition's next "
            "entry ('model-1')"
        )
    ]


@pytest.mark.parametrize("item", [error(408), error(429, "slow down"), drop()])
async def test_fallback_eligible(
    llm_server: ScriptedOpenAIServer,
    second_server: ScriptedOpenAIServer,
    client: ChatClient,
    item: dict[str, Any],
) -> None:
    llm_server.push(*[item] * 4)
    second_server.push(text("backup"))
    model = resolve_model("smart", alias_config(llm_server, second_server))
    assert (await ModelCaller(model, client).complete(request())).content == "backup"


async def test_connect_failure_falls_back(second_server: ScriptedOpenAIServer, client: ChatClient) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{s.getsockname()[1]}/v1"
    second_server.push(text("backup"))
    interaction = HeadlessInteraction()
    model = resolve_model("smart", alias_config(dead, second_server))
    assert (await ModelCaller(model, client, interaction=interaction).complete(request())).content == "backup"
    assert interaction.of_type(WarningEvent)[0].message.startswith(
        f"request to {dead} failed (connection failed"
    )


async def test_timeout_falls_back(
    llm_server: ScriptedOpenAIServer, second_server: ScriptedOpenAIServer
) -> None:
    llm_server.push(text("slow", delay=1.0))
    second_server.push(text("backup"))
    model = resolve_model("smart", alias_config(llm_server, second_server))
    async with ChatClient(timeout=0.3, retry=FAST_RETRY) as quick:
        assert (await ModelCaller(model, quick).complete(request())).content == "backup"


@pytest.mark.parametrize("item", [error(400), error(401), error(404), {"body": "garbage"}])
async def test_not_fallback_eligible(
    llm_server: ScriptedOpenAIServer,
    second_server: ScriptedOpenAIServer,
    client: ChatClient,
    item: dict[str, Any],
) -> None:
    llm_server.push(item)
    second_server.push(text("never"))
    model = resolve_model("smart", alias_config(llm_server, second_server))
    with pytest.raises((LlmHttpError, LlmResponseError)):
        await ModelCaller(model, client).complete(request())
    assert second_server.requests == []


@pytest.mark.parametrize("override", ["base_url", "api_key"])
async def test_overrides_disable_fallback(
    llm_server: ScriptedOpenAIServer, second_server: ScriptedOpenAIServer, client: ChatClient, override: str
) -> None:
    llm_server.push(*[error(500)] * 4)
    second_server.push(text("never"))
    config = alias_config(llm_server, second_server)
    if override == "base_url":
        model = resolve_model("smart", config, base_url_override=llm_server.url)
    else:
        model = resolve_model("smart", config, api_key_override="k")
    assert not model.fallback_enabled
    with pytest.raises(LlmHttpError):
        await ModelCaller(model, client).complete(request())
    assert second_server.requests == []


async def test_stream_falls_back_only_before_it_starts(
    llm_server: ScriptedOpenAIServer, second_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    model = resolve_model("smart", alias_config(llm_server, second_server))
    caller = ModelCaller(model, client)
    # opening fails -> fallback
    llm_server.push(*[error(503)] * 4)
    second_server.push(text("backup stream"))
    assert (await caller.stream(request(stream=True))).content == "backup stream"
    # established, then broken -> no fallback
    llm_server.push({"sse": ['{"choices": [{"index": 0, "delta": {"content": "pa']})
    second_server.push(text("never"))
    with pytest.raises(LlmResponseError):
        await caller.stream(request(stream=True))
    assert len(second_server.requests) == 1
    # an empty stream has started too: no fallback
    llm_server.push(empty_stream())
    with pytest.raises(LlmResponseError, match="empty stream"):
        await caller.stream(request(stream=True))
    assert len(second_server.requests) == 1


async def test_candidate_key_command_runs_only_when_tried(
    llm_server: ScriptedOpenAIServer, second_server: ScriptedOpenAIServer, client: ChatClient, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    config = Config.model_validate(
        {
            "models": {
                "smart": [
                    {"provider": {"base_url": llm_server.url, "api_key": "primary-key"}, "model_id": "a"},
                    {
                        "provider": {
                            "base_url": second_server.url,
                            "api_key_cmd": f"echo x >> {marker}; echo backup-key",
                        },
                        "model_id": "b",
                    },
                ]
            }
        }
    )
    caller = ModelCaller(resolve_model("smart", config), client)
    llm_server.push(text("fine"))
    await caller.complete(request())
    assert not marker.exists()
    llm_server.push(*[error(500)] * 4)
    second_server.push(text("backup"))
    await caller.complete(request())
    assert marker.read_text() == "x\n"
    assert second_server.requests[0].headers["authorization"] == "Bearer backup-key"
    assert llm_server.requests[0].headers["authorization"] == "Bearer primary-key"


async def test_responses_api_is_reported_as_unsupported(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    config = Config.model_validate(
        {"models": {"r": [{"provider": {"base_url": llm_server.url}, "model_id": "x", "api": "responses"}]}}
    )
    with pytest.raises(Exception, match="api: responses"):
        await ModelCaller(resolve_model("r", config), client).complete(request())
    assert llm_server.requests == []


async def test_cancelling_a_request_returns_promptly(llm_server: ScriptedOpenAIServer) -> None:
    llm_server.push(text("slow", delay=60))
    async with ChatClient(timeout=120, retry=FAST_RETRY) as client:
        task = asyncio.create_task(caller_for(llm_server, client).complete(request()))
        deadline = time.monotonic() + 30
        while not llm_server.requests:  # the request is in flight: the server holds its answer
            assert time.monotonic() < deadline, "the request never reached the server"
            await asyncio.sleep(0.01)
        started = time.monotonic()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        assert time.monotonic() - started < 10  # not the 60 s the answer (or the 120 s timeout) would take


async def test_stream_deltas_become_events_through_a_sink(
    llm_server: ScriptedOpenAIServer, client: ChatClient
) -> None:
    llm_server.push({"message": {"content": "abcdef", "reasoning_content": "why"}})
    interaction = HeadlessInteraction()

    def sink(kind: str, value: str) -> None:
        interaction.event(TextDelta(value) if kind == "content" else ReasoningDelta(value))

    await caller_for(llm_server, client).stream(request(stream=True), sink)
    assert interaction.text == "abcdef"
    assert "".join(e.text for e in interaction.of_type(ReasoningDelta)) == "why"


# -- one HTTP client per scheme (issue 17: only https loads the CA bundle) ----------------------
async def test_one_client_per_scheme_made_when_first_needed() -> None:
    client = ChatClient()
    assert client._clients == {}
    plain = client._http("http://127.0.0.1:1/v1/chat/completions")
    assert client._http("HTTP://localhost:1234/v1/chat/completions") is plain
    assert list(client._clients) == [False]
    tls = client._http("https://api.example.invalid/v1/chat/completions")
    assert tls is not plain and client._http("https://other.example.invalid/v1") is tls
    await client.aclose()
    assert client._clients == {}
    given = ChatClient(http=plain)
    assert given._http("https://api.example.invalid/v1") is plain


@pytest.mark.parametrize("name", ["HTTP_PROXY", "all_proxy"])
async def test_plain_http_through_an_https_proxy_uses_the_checking_client(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The proxy's TLS handshake needs the CA bundle: the plain client would fail it."""
    for var in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setenv(name, "https://proxy.example.invalid:3128")
    client = ChatClient()
    client._http("http://127.0.0.1:1/v1/chat/completions")
    assert list(client._clients) == [True]
    await client.aclose()
    monkeypatch.setenv(name, "http://proxy.example.invalid:3128")
    client = ChatClient()
    client._http("http://127.0.0.1:1/v1/chat/completions")
    assert list(client._clients) == [False]
    await client.aclose()


def test_the_plain_clients_tls_context_checks_everything_and_trusts_no_one() -> None:
    context = no_ca_context()
    assert context.verify_mode == ssl.CERT_REQUIRED and context.check_hostname
    assert context.cert_store_stats()["x509_ca"] == 0


async def test_a_tls_connection_through_the_plain_client_fails_its_certificate_check(tmp_path: Path) -> None:
    """Were an https URL ever sent through the plain-http client, the handshake would fail."""
    openssl = shutil.which("openssl")
    if openssl is None:
        pytest.skip("no openssl to make a certificate")
    key, cert = tmp_path / "key.pem", tmp_path / "cert.pem"
    subprocess.run(
        [openssl, "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
         "-keyout", str(key), "-out", str(cert), "-days", "1", "-subj", "/CN=127.0.0.1",
         "-addext", "subjectAltName=IP:127.0.0.1"],
        check=True, capture_output=True, timeout=30,
    )  # fmt: skip
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    server_context.load_cert_chain(cert, key)

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0, ssl=server_context)
    port = server.sockets[0].getsockname()[1]
    client = ChatClient(timeout=10.0)
    try:
        plain = client._http("http://127.0.0.1/")
        with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
            await plain.get(f"https://127.0.0.1:{port}/")
        trusting = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        trusting.load_verify_locations(cert)  # the control: the same server with its CA trusted
        async with httpx.AsyncClient(verify=trusting) as control:
            with pytest.raises(httpx.RemoteProtocolError):  # the handshake passed; the server hung up
                await control.get(f"https://127.0.0.1:{port}/")
    finally:
        await client.aclose()
        server.close()
        await server.wait_closed()
