"""Served ``tools/call``: one run per call, in its own task, with a fresh run context (its own
usage and events) over the services the server shares (HTTP client, MCP connections, agent and
skill caches).

The run lives in a task of its own so that it can outlive one request: on a 2026-07-28
connection a question for the person ends the request with an ``input_required`` result, the run
waits (parked, for at most :data:`PARK_SECONDS`), and the client's next ``tools/call`` -- the same
tool, the answers in ``inputResponses`` and the sealed ``requestState`` -- resumes it. On a
2025-era connection the question is an ``elicitation/create`` request on the call's stream and
the request simply stays open. Either way a cancelled request (``notifications/cancelled``, a
closed stdio connection, an ended HTTP session, an HTTP stream dropped and not resumed within
:data:`RESUME_SECONDS`) cancels its run, and the run's processes are reaped before the handler
returns.
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import itertools
import json
import os
import secrets
import time
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from typing import Any

from lait_core.serve.call_interaction import Asker, ServedInteraction
from lait_core.serve.request_state import RunState, StateError, StateSeal
from lait_core.serve.served_tools import ServedTool

PARK_SECONDS = 600.0
"""How long a run waits for the answers of an ``input_required`` result (or a 2025-era client for
its answer to ``elicitation/create``) before it is cancelled; ``LAIT_SERVE_PARK_SECONDS`` (a positive
number) sets it for a server process."""


def configured_park_seconds(environ: Mapping[str, str] | None = None) -> float:
    """:data:`PARK_SECONDS`, or ``LAIT_SERVE_PARK_SECONDS`` when it is a positive number."""
    raw = (os.environ if environ is None else environ).get("LAIT_SERVE_PARK_SECONDS", "")
    try:
        value = float(raw)
    except ValueError:
        return PARK_SECONDS
    return value if 0 < value < float("inf") else PARK_SECONDS


RESUME_SECONDS = 10.0
"""HTTP: how long a run whose request stream the client dropped waits for a client to resume
that stream (``GET`` with ``Last-Event-ID``) before it is cancelled and its processes reaped."""


class CallError(Exception):
    """A protocol-level problem with a call (unknown tool, bad or stale ``requestState``)."""


@dataclass(slots=True)
class Question:
    message: str
    schema: dict[str, Any]
    answer: asyncio.Future[tuple[str, dict[str, Any] | None]]


@dataclass(frozen=True, slots=True)
class Finished:
    text: str
    is_error: bool
    cancelled: bool = False
    """The run was cancelled (not a failure of the run itself)."""


@dataclass(frozen=True, slots=True)
class NeedsInput:
    questions: dict[str, Question]
    state: str


Runner = Callable[[ServedInteraction], Coroutine[Any, Any, str]]
"""Runs the call with the given interaction and returns its text (raises on failure)."""


@dataclass(eq=False)
class ServedRun:
    id: str
    tool: ServedTool
    round: int = 0
    questions: dict[str, Question] = field(default_factory=dict)
    task: asyncio.Task[Finished] | None = None
    on_line: Callable[[str], None] | None = None
    """Where the current request wants progress lines (None between requests)."""
    changed: asyncio.Event = field(default_factory=asyncio.Event)
    expiry: asyncio.TimerHandle | None = None
    _serial: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def line(self, text: str) -> None:
        if self.on_line is not None:
            self.on_line(text)

    async def ask_parked(self, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        """The 2026-07-28 asker: publish the question and wait for a later request's answer."""
        key = f"q{next(self._serial)}"
        future: asyncio.Future[tuple[str, dict[str, Any] | None]] = asyncio.get_running_loop().create_future()
        self.questions[key] = Question(message, schema, future)
        self.changed.set()
        try:
            return await future
        finally:
            self.questions.pop(key, None)

    def open_questions(self) -> dict[str, Question]:
        return {k: q for k, q in self.questions.items() if not q.answer.done()}

    async def cancel(self) -> None:
        """Cancel the run and wait until it has cleaned up (processes reaped)."""
        if self.expiry is not None:
            self.expiry.cancel()
        task = self.task
        if task is not None and not task.done():
            task.cancel()
            with contextlib.suppress(BaseException):
                await asyncio.wait([task])


def _failure_text(exc: BaseException) -> str:
    from lait_core.engine.llm.chat_types import error_chain_text

    return error_chain_text(exc) or type(exc).__name__


async def _guarded(run: ServedRun, runner: Runner, interaction: ServedInteraction) -> Finished:
    try:
        return Finished(await runner(interaction), False)
    except asyncio.CancelledError:
        raise
    except Exception as exc:
        return Finished(_failure_text(exc), True)
    finally:
        run.changed.set()


class Calls:
    """The runs of one server process (all connections), and the seal of their states."""

    def __init__(self, *, park_seconds: float | None = None, resume_seconds: float = RESUME_SECONDS) -> None:
        self.seal = StateSeal()
        self.park_seconds = park_seconds if park_seconds is not None else configured_park_seconds()
        self.resume_seconds = resume_seconds
        self.parked: dict[str, ServedRun] = {}
        self.running: set[ServedRun] = set()
        self.stop_reason: str | None = None
        """Set by :meth:`cancel_all`: why every run was cancelled (the requests still open then
        get a JSON-RPC error saying so instead of a result)."""

    # -- starting and resuming
    def start(
        self,
        tool: ServedTool,
        runner: Runner,
        *,
        asker: Asker | None,
        modern: bool,
        approvals: bool,
    ) -> ServedRun:
        """Start a run. ``asker`` is the 2025-era asker (None: the client cannot elicit); with
        ``modern`` and an asker, questions park the run instead."""
        run = ServedRun(secrets.token_hex(12), tool)
        chosen: Asker | None = asker
        if modern and asker is not None:
            chosen = run.ask_parked
        interaction = ServedInteraction(chosen, run.line, approvals=approvals)
        # an empty context: nothing of the first request's context leaks into the run
        run.task = asyncio.get_running_loop().create_task(
            _guarded(run, runner, interaction), context=contextvars.Context()
        )
        self.running.add(run)
        run.task.add_done_callback(lambda _t: self.running.discard(run))
        return run

    def resume(self, tool_name: str, state_text: str, responses: dict[str, Any]) -> ServedRun:
        """The parked run named by ``state_text``, with ``responses`` delivered."""
        try:
            state = self.seal.open(state_text)
        except StateError as exc:
            raise CallError(f"invalid requestState: {exc}") from None
        run = self.parked.get(state.run)
        if run is None or state.tool != tool_name:
            raise CallError(
                "the requestState names a run that has finished, was cancelled or expired; call the tool again"
            )
        if state.round != run.round:
            raise CallError("the requestState is stale: that round of questions was already answered")
        missing = [k for k in run.open_questions() if k not in responses]
        if missing:
            raise CallError(f"inputResponses has no answer for {', '.join(missing)}")
        run.round += 1
        del self.parked[run.id]
        if run.expiry is not None:
            run.expiry.cancel()
            run.expiry = None
        for key, question in run.open_questions().items():
            question.answer.set_result(_response(responses[key]))
        return run

    # -- waiting for the next outcome
    async def outcome(
        self,
        run: ServedRun,
        on_line: Callable[[str], None],
        *,
        dropped: asyncio.Event | None = None,
        resumed: asyncio.Event | None = None,
    ) -> Finished | NeedsInput:
        """Wait until the run finishes or has open questions. A cancellation of the caller cancels
        the run (and waits for its cleanup). Over HTTP, ``dropped`` is set when the client closed
        the request's stream: unless ``resumed`` is set within :attr:`resume_seconds`, the run
        is cancelled then (a client that went away does not leave its run going)."""
        assert run.task is not None
        run.on_line = on_line
        try:
            while True:
                if run.task.done():
                    if run.task.cancelled():
                        return Finished("the run was cancelled", True, cancelled=True)
                    return run.task.result()
                if run.open_questions():
                    break
                if dropped is not None and dropped.is_set() and not (resumed and resumed.is_set()):
                    if not await self._resumed_in_time(run, resumed):
                        await _shielded(run.cancel())
                        return Finished("the client went away; the run was cancelled", True, cancelled=True)
                    continue
                run.changed.clear()
                waiters = [asyncio.ensure_future(run.changed.wait())]
                if dropped is not None and not dropped.is_set():
                    waiters.append(asyncio.ensure_future(dropped.wait()))
                try:
                    await asyncio.wait([run.task, *waiters], return_when=asyncio.FIRST_COMPLETED)
                finally:
                    for waiter in waiters:
                        waiter.cancel()
        except BaseException:
            await _shielded(run.cancel())
            raise
        finally:
            run.on_line = None
        state = self.seal.seal(RunState(run.id, run.round, run.tool.name, time.time() + self.park_seconds))
        self.parked[run.id] = run
        run.expiry = asyncio.get_running_loop().call_later(self.park_seconds, self._expire, run)
        return NeedsInput(run.open_questions(), state)

    async def _resumed_in_time(self, run: ServedRun, resumed: asyncio.Event | None) -> bool:
        """After a dropped stream: True once a client resumed it (or the run ended meanwhile),
        False when :attr:`resume_seconds` passed first."""
        assert run.task is not None
        waiters: list[asyncio.Future[Any]] = [run.task]
        if resumed is not None:
            waiters.append(asyncio.ensure_future(resumed.wait()))
        try:
            done, _ = await asyncio.wait(
                waiters, timeout=self.resume_seconds, return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for waiter in waiters[1:]:
                waiter.cancel()
        return bool(done)

    def _expire(self, run: ServedRun) -> None:
        if self.parked.pop(run.id, None) is not None and run.task is not None:
            run.task.cancel()

    async def cancel_all(self, reason: str) -> None:
        """Cancel every run, recording ``reason`` for the requests that are still waiting."""
        self.stop_reason = reason
        await self.aclose()

    async def aclose(self) -> None:
        """Cancel every run (parked or running) and wait for them."""
        runs = list(self.running | set(self.parked.values()))
        self.parked.clear()
        await asyncio.gather(*(r.cancel() for r in runs), return_exceptions=True)


def _response(raw: Any) -> tuple[str, dict[str, Any] | None]:
    """An ``inputResponses`` entry (an ElicitResult, or its wire dict) as (action, content)."""
    data = raw.model_dump(by_alias=True, exclude_none=True) if hasattr(raw, "model_dump") else raw
    if not isinstance(data, dict):
        return ("decline", None)
    action = data.get("action")
    content = data.get("content")
    if action not in ("accept", "decline", "cancel"):
        return ("decline", None)
    return (str(action), content if isinstance(content, dict) else None)


async def _shielded(awaitable: Coroutine[Any, Any, None]) -> None:
    """Await to the end even if cancelled meanwhile (anyio re-delivers a cancellation at every
    await of a cancelled scope, so shield with a loop)."""
    task = asyncio.ensure_future(awaitable)
    while not task.done():
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.shield(task)


def compact(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


__all__ = ["CallError", "Calls", "Finished", "NeedsInput", "ServedRun", "compact"]
