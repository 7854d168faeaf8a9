"""The sender every model request of a run goes through when the run keeps records: it answers
from a cassette (``--replay``), else from the cache, else sends the request live -- then writes the
cassette entry (``--record``) and the cache entry, reports where the answer came from (a
:class:`~lait_core.engine.run.interaction.ModelAnswered` event; ``-v`` prints it) and adds a ``chat``
trace event.

While recording, the cache is written but not read, so every entry of the cassette comes from the
model. A streamed request whose answer comes from a cassette or the cache is replayed to the
stream's reader as deltas (reasoning first, then the content), so a caller cannot tell it from a
live stream except by its speed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from lait_core.engine.llm.chat_types import ChatRequest, ChatResponse, DeltaSink
from lait_core.engine.records.cassette import Cassette
from lait_core.engine.records.key import content_key
from lait_core.engine.records.labels import current_label
from lait_core.engine.records.response_cache import ResponseCache
from lait_core.engine.records.trace_events import TraceRecorder
from lait_core.engine.run.interaction import ModelAnswered, WarningEvent

if TYPE_CHECKING:
    from lait_core.engine.llm.client import ModelCaller
    from lait_core.engine.run.tool_loop import Sender

STREAM_PIECE = 64
"""Characters per delta when a stored answer is replayed as a stream."""


@dataclass(slots=True)
class RunRecords:
    """What one run keeps: all optional."""

    record: Cassette | None = None
    replay: Cassette | None = None
    cache: ResponseCache | None = None
    trace: TraceRecorder | None = None

    @property
    def active(self) -> bool:
        return any(x is not None for x in (self.record, self.replay, self.cache, self.trace))


def _replay_stream(response: ChatResponse, on_delta: DeltaSink | None) -> None:
    if on_delta is None:
        return
    for kind, text in (("reasoning", response.reasoning), ("content", response.content)):
        if not text:
            continue
        for start in range(0, len(text), STREAM_PIECE):
            on_delta(kind, text[start : start + STREAM_PIECE])  # type: ignore[arg-type]


class RecordsSender:
    """Wraps the live sender of one resolved model (see the module doc)."""

    def __init__(
        self,
        caller: ModelCaller,
        inner: Sender,
        records: RunRecords,
        environ: Mapping[str, str] | None = None,
    ) -> None:
        self.caller = caller
        self.inner = inner
        self.records = records
        self.environ = environ

    def _primary(self) -> tuple[str, str]:
        endpoint = self.caller.model.endpoints[0]
        return endpoint.base_url(self.environ), endpoint.model_id

    def _used_model_id(self, response: ChatResponse, primary: tuple[str, str]) -> str:
        for endpoint in self.caller.model.endpoints:
            if endpoint.base_url(self.environ) == response.base_url:
                return endpoint.model_id
        return primary[1]

    async def complete(self, request: ChatRequest) -> ChatResponse:
        return await self._send(request, None, stream=False)

    async def stream(self, request: ChatRequest, on_delta: DeltaSink | None = None) -> ChatResponse:
        return await self._send(request, on_delta, stream=True)

    async def _send(self, request: ChatRequest, on_delta: DeltaSink | None, *, stream: bool) -> ChatResponse:
        records = self.records
        label = current_label()
        base_url, model_id = self._primary()
        key = content_key(base_url, model_id, request)
        span = records.trace.span() if records.trace is not None else None
        response: ChatResponse | None = None
        source = "live"
        if records.replay is not None:
            response = records.replay.read(key, self.caller.model.name, label, base_url)
            source = "replay"
        elif records.cache is not None:
            response = records.cache.get(key, base_url)
            if response is not None:
                source = "cache"
        if response is not None:
            if stream:
                _replay_stream(response, on_delta)
        else:
            if stream:
                response = await self.inner.stream(request, on_delta)
            else:
                response = await self.inner.complete(request)
            if records.record is not None:
                used = response.base_url or base_url
                records.record.write(
                    key, used, self._used_model_id(response, (base_url, model_id)), request, response
                )
            if records.cache is not None:
                try:
                    records.cache.put(key, response)
                except OSError as exc:
                    self._warn(f"could not write the response cache entry {key}: {exc.strerror or exc}")
        self._event(ModelAnswered(label, self.caller.model.name, source, key))
        if span is not None:
            span.done("chat", label, self._attributes(model_id, source, key, response, stream))
        return response

    def _attributes(
        self, model_id: str, source: str, key: str, response: ChatResponse, stream: bool
    ) -> dict[str, Any]:
        attrs: dict[str, Any] = {
            "gen_ai.request.model": model_id,
            "lait.source": source,
            "lait.request.key": key,
        }
        if response.model is not None:
            attrs["gen_ai.response.model"] = response.model
        if stream:
            attrs["lait.stream"] = True
        usage = response.usage
        if usage is not None:
            attrs["gen_ai.usage.input_tokens"] = usage.prompt_tokens
            attrs["gen_ai.usage.output_tokens"] = usage.completion_tokens
            primary = self.caller.model.primary
            pricing = primary.pricing if primary is not None else None
            if pricing is not None:
                attrs["lait.cost_usd"] = (
                    usage.prompt_tokens * pricing.input_per_1m
                    + usage.completion_tokens * pricing.output_per_1m
                ) / 1e6
        return attrs

    def _event(self, e: ModelAnswered | WarningEvent) -> None:
        if self.caller.interaction is not None:
            self.caller.interaction.event(e)

    def _warn(self, message: str) -> None:
        self._event(WarningEvent(message))
