"""The in-process transport: chat-completion bodies in, :class:`ChatResponse` out, with the same
``complete``/``open_stream`` methods as :class:`~lait_core.engine.llm.client.ChatClient`, so
:class:`~lait_core.engine.llm.client.ModelCaller` sends to a GGUF file as it sends to a server.

Generation runs in a worker thread, so the event loop stays responsive (tool calls, MCP servers,
other loops and the UI keep running). Cancelling the waiting coroutine stops the generation at the
next token and frees the model for the next request; concurrent requests to one model wait for
each other in turn.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lait_core.engine.embedded.chatml import plan_request
from lait_core.engine.embedded.generate import Served, serve
from lait_core.engine.embedded.runtime import LocalModel, load_model
from lait_core.engine.llm.chat_types import ChatResponse, DeltaSink, LlmResponseError, Usage
from lait_core.support.daemon_threads import in_daemon_thread

_THREAD_NAME = "lait-embedded-model"


def _post(loop: asyncio.AbstractEventLoop, callback: Callable[..., None], *args: Any) -> None:
    with contextlib.suppress(RuntimeError):  # a closed loop: nobody is waiting any more
        loop.call_soon_threadsafe(callback, *args)


class EmbeddedTransport:
    """Chat completions served by the GGUF model at ``path`` (loaded on first use)."""

    def __init__(self, path: Path, *, threads: int | None = None) -> None:
        self.path = path
        self.threads = threads

    async def model(self) -> LocalModel:
        """The loaded model (loading takes a fraction of a second for the built-in model)."""
        return await in_daemon_thread(
            lambda _stop: load_model(self.path, threads=self.threads), name=_THREAD_NAME
        )

    async def _serve(self, base_url: str, body: dict[str, Any], on_delta: DeltaSink | None) -> ChatResponse:
        plan = plan_request(body)
        model = await self.model()
        cancel = threading.Event()
        loop = asyncio.get_running_loop()
        on_text: Callable[[str], None] | None = None
        if on_delta is not None:
            sink = on_delta

            def on_text(piece: str) -> None:
                if not cancel.is_set():
                    _post(loop, sink, "content", piece)

        served = await in_daemon_thread(
            lambda _stop: serve(model, plan, cancel, on_text), name=_THREAD_NAME, stop=cancel
        )
        return _response(served, body, base_url)

    async def complete(self, base_url: str, api_key: str | None, body: dict[str, Any]) -> ChatResponse:
        """One request (``api_key`` is ignored: nothing leaves the process)."""
        return await self._serve(base_url, body, None)

    async def open_stream(self, base_url: str, api_key: str | None, body: dict[str, Any]) -> EmbeddedStream:
        """Load the model (so a load failure happens while opening, as a connection failure does for
        HTTP); the generation runs in :meth:`EmbeddedStream.read`."""
        plan_request(body)
        await self.model()
        return EmbeddedStream(self, base_url, body)


class EmbeddedStream:
    """An opened stream: the text of an answer arrives through ``on_delta`` as it is generated."""

    def __init__(self, transport: EmbeddedTransport, base_url: str, body: dict[str, Any]) -> None:
        self._transport = transport
        self.base_url = base_url
        self._body = body

    async def read(self, on_delta: DeltaSink | None = None) -> ChatResponse:
        return await self._transport._serve(self.base_url, self._body, on_delta)

    async def aclose(self) -> None:
        return None


def _response(served: Served, body: dict[str, Any], base_url: str) -> ChatResponse:
    if served.content is None and not served.calls:
        raise LlmResponseError(
            f"the embedded model ({base_url}) produced an empty answer (finish reason "
            f"'{served.finish_reason}'); raise 'max_tokens' or rephrase the prompt"
        )
    usage = Usage(
        served.prompt_tokens, served.completion_tokens, served.prompt_tokens + served.completion_tokens
    )
    model = body.get("model")
    return ChatResponse(
        served.content, None, served.calls, usage, model if isinstance(model, str) else None, base_url
    )
