"""The Interaction of a served call: whatever the run needs from a person goes to the MCP client
that called the tool (issue 15), and its progress goes back as MCP progress and log messages.

* ``ask:`` steps become a form elicitation with one ``answer`` string (its ``enum`` the step's
  ``choices``, its ``default`` the step's ``default``). *accept* answers the question; *decline*
  and *cancel* fail the step with a clear error. A client without the elicitation capability gets
  the reference's headless behaviour (the ``default:``, else an error) -- but such a client is
  never offered a workflow with an ``ask:`` step in the first place.
* Inner MCP servers' elicitation (``allow_elicitation: true`` servers only) is forwarded as is
  (form mode); URL mode and a client without elicitation are declined.
* Tool approvals reach the person only with ``serve.approvals: elicit``; the form has one
  ``decision`` field (``once``, ``session``, ``deny``).

How a question reaches the person depends on the protocol era of the call, which
:class:`Asker` hides: a 2025-era session sends ``elicitation/create`` on the call's own stream;
a 2026-07-28 call ends with an ``input_required`` result and the run waits for the client to call
again with the answers (see :mod:`lait_core.serve.calls`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol

from lait_core.engine.llm.chat_types import ApprovalError
from lait_core.engine.run.interaction import (
    DECLINE,
    NOT_A_TTY_ASK,
    ApprovalDecision,
    ApprovalRequest,
    AskError,
    ElicitationRequest,
    ElicitationResult,
    Event,
    Note,
    Question,
    StepFinished,
    StepProgress,
    StepRetrying,
    StepStarted,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallStarted,
    WarningEvent,
    WorkflowStarted,
    progress_line,
)

APPROVAL_CHOICES = ("once", "session", "deny")


class Asker(Protocol):
    """Puts one form to the person at the client; returns ``(action, content)``."""

    async def __call__(self, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]: ...


def question_schema(choices: tuple[str, ...] | None, default: str | None, multiline: bool) -> dict[str, Any]:
    answer: dict[str, Any] = {"type": "string", "title": "Answer"}
    if choices:
        answer["enum"] = list(choices)
    if default is not None:
        answer["default"] = default
    if multiline:
        answer["description"] = "Several lines are fine."
    return {"type": "object", "properties": {"answer": answer}, "required": ["answer"]}


def approval_schema() -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {
            "decision": {
                "type": "string",
                "title": "Decision",
                "enum": list(APPROVAL_CHOICES),
                "description": "once: allow this call; session: allow this tool for the rest of the run; deny",
            }
        },
        "required": ["decision"],
    }


def event_text(e: Event) -> str | None:
    """The progress/log line of an event, or None for events that are not reported."""
    if isinstance(e, StepStarted | StepFinished | StepRetrying | StepProgress | WorkflowStarted):
        if isinstance(e, StepFinished) and e.status != "skipped":
            return f"{e.prefix}[{e.number}] {e.label} ({e.status}{f': {e.error}' if e.error else ''})"
        return progress_line(e)
    if isinstance(e, ToolCallStarted):
        return f"tool call: {e.name}"
    if isinstance(e, ToolCallFinished):
        return f"tool result: {e.name} ({len(e.result)} chars{', error' if e.is_error else ''})"
    if isinstance(e, ToolCallDenied):
        return f"tool call denied: {e.name}: {e.reason}"
    if isinstance(e, WarningEvent):
        return f"warning: {e.message}"
    if isinstance(e, Note):
        return e.message
    return None


class ServedInteraction:
    """One served call's interaction. ``asker`` is None when the client cannot elicit."""

    def __init__(
        self,
        asker: Asker | None,
        on_line: Callable[[str], None],
        *,
        approvals: bool = False,
    ) -> None:
        self._asker = asker
        self._on_line = on_line
        self._approvals = approvals
        self._lock = asyncio.Lock()
        """One question at a time per call (parallel branches queue up)."""
        self.always: set[str] = set()

    async def _ask(self, message: str, schema: dict[str, Any]) -> tuple[str, dict[str, Any] | None]:
        assert self._asker is not None
        async with self._lock:
            return await self._asker(message, schema)

    async def approve(self, call: ApprovalRequest) -> ApprovalDecision:
        if call.name in self.always:
            return ApprovalDecision.ONCE
        if not self._approvals or self._asker is None:
            raise ApprovalError(
                "this served call cannot ask for approval (the client does not support elicitation)"
            )
        lines = [f"Allow the tool call {call.name}?", f"arguments: {call.arguments}"]
        if call.command is not None:
            lines.append("command: " + " ".join(call.command))
        action, content = await self._ask("\n".join(lines), approval_schema())
        if action != "accept" or not isinstance(content, dict):
            return ApprovalDecision.DENY
        decision = content.get("decision")
        if decision == "session":
            self.always.add(call.name)
            return ApprovalDecision.SESSION
        return ApprovalDecision.ONCE if decision == "once" else ApprovalDecision.DENY

    async def elicit(self, request: ElicitationRequest) -> ElicitationResult:
        if not request.allowed or self._asker is None or request.mode != "form":
            return DECLINE
        schema = dict(request.requested_schema or {"type": "object", "properties": {}})
        action, content = await self._ask(request.message, schema)
        if action == "accept":
            return ElicitationResult("accept", content or {})
        return ElicitationResult("cancel" if action == "cancel" else "decline")

    async def ask(self, question: Question) -> str:
        if self._asker is None:
            if question.default is not None:
                return question.default
            raise AskError(
                NOT_A_TTY_ASK.replace("stdin is not an interactive terminal", "the client cannot elicit")
            )
        schema = question_schema(question.choices, question.default, question.multiline)
        action, content = await self._ask(question.text, schema)
        if action == "accept":
            answer = (content or {}).get("answer")
            if isinstance(answer, str):
                return answer
            if answer is None and question.default is not None:
                return question.default
            raise AskError(f"the client's answer to {question.text!r} has no 'answer' text")
        what = "cancelled" if action == "cancel" else "declined"
        raise AskError(f"the person {what} the question {question.text!r}")

    def event(self, e: Event) -> None:
        line = event_text(e)
        if line is not None:
            self._on_line(line.strip())


__all__ = ["Asker", "ServedInteraction", "approval_schema", "event_text", "question_schema"]
