"""EditorInteraction: the engine's Interaction seam answered by the editor.

* ``approve`` -> ``lait/approveToolCall`` (``once`` / ``session`` / ``deny``); without
  ``experimental.lait`` a ``window/showMessageRequest`` with the same three buttons (dismissed = deny).
* ``elicit`` -> ``lait/elicit``; declined without a dialog when the server's ``allow_elicitation`` is
  false, and declined with a log message when the client did not declare ``experimental.lait``.
* ``ask`` -> ``lait/ask``; without ``experimental.lait`` a question with ``choices`` becomes a
  ``window/showMessageRequest``, other questions get their ``default:`` or fail.
* ``event`` -> ``lait/runEvent`` notifications (and whatever the run adds, e.g. ``$/progress``).

One :class:`DialogState` per server: its lock makes sure dialogs never overlap, across every run in
flight, and its grants ("allow for this session", keyed by the qualified tool name) live as long as
the server. ``tool_policy`` denials never get here: the tool loop applies the policy first.

When a run is cancelled while a dialog is open, the dialog's request is cancelled at the client too
(``$/cancelRequest``), so a late answer cannot land in the next dialog.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lsprotocol import types as lsp
from pygls.lsp.server import LanguageServer

from lait_core.engine.llm.chat_types import ApprovalError, EngineError, argv_text
from lait_core.engine.run.interaction import (
    DECLINE,
    ApprovalDecision,
    ApprovalRequest,
    AskError,
    ElicitationRequest,
    ElicitationResult,
    Event,
    Question,
)
from lait_ls import protocol

log = logging.getLogger("lait-ls")

ALLOW_ONCE = "Allow once"
ALLOW_SESSION = "Allow for this session"
DENY = "Deny"
_FALLBACK_DECISIONS = {
    ALLOW_ONCE: ApprovalDecision.ONCE,
    ALLOW_SESSION: ApprovalDecision.SESSION,
    DENY: ApprovalDecision.DENY,
}


@dataclass
class DialogState:
    """Shared by every run of one server."""

    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    grants: set[str] = field(default_factory=set)
    """Qualified tool names allowed "for this session" (the server's lifetime)."""


def client_speaks_lait(ls: LanguageServer) -> bool:
    """Did the client declare ``capabilities.experimental.lait`` (any value but false/null)?"""
    try:
        experimental = ls.client_capabilities.experimental
    except AttributeError:  # before initialize
        return False
    if isinstance(experimental, dict):
        value = experimental.get("lait")
    else:
        value = getattr(experimental, "lait", None)
    return value is not None and value is not False


class EditorInteraction:
    """The Interaction of one run started from the editor."""

    def __init__(
        self,
        ls: LanguageServer,
        run_id: str,
        state: DialogState,
        *,
        lait_client: bool,
        on_event: Callable[[Event, dict[str, Any]], None] | None = None,
    ) -> None:
        self.ls = ls
        self.run_id = run_id
        self.state = state
        self.lait_client = lait_client
        self.on_event = on_event

    # -- approvals
    async def approve(self, call: ApprovalRequest) -> ApprovalDecision:
        async with self.state.lock:
            if call.name in self.state.grants:
                return ApprovalDecision.ONCE
            if self.lait_client:
                from lait_core.engine.workflow.current import current_step

                params = protocol.approve_params(self.run_id, call)
                params.update(protocol.step_fields("approval", current_step()))
                answer = await self._request(protocol.APPROVE_TOOL_CALL, params)
                decision = protocol.parse_decision(answer)
            else:
                decision = await self._approve_by_message(call)
            if decision is ApprovalDecision.SESSION:
                self.state.grants.add(call.name)
            return decision

    async def _approve_by_message(self, call: ApprovalRequest) -> ApprovalDecision:
        where = f" of MCP server '{call.server}'" if call.server else ""
        lines = [f"lait: the model wants to call '{call.name}'{where}.", f"arguments: {call.arguments}"]
        if call.command is not None:
            lines.append(f"command: {argv_text(call.command)}")
        if call.hints:
            lines.append(f"the server says: {', '.join(call.hints)} (unverified)")
        chosen = await self._message_request("\n".join(lines), [ALLOW_ONCE, ALLOW_SESSION, DENY])
        return _FALLBACK_DECISIONS.get(chosen or DENY, ApprovalDecision.DENY)

    # -- elicitation
    async def elicit(self, request: ElicitationRequest) -> ElicitationResult:
        if not request.allowed:
            self._log(
                f"declined an elicitation from MCP server '{request.server}': "
                f"mcp_servers.{request.server}.allow_elicitation is false"
            )
            return DECLINE
        if not self.lait_client:
            self._log(
                f"declined an elicitation from MCP server '{request.server}' ({request.message}): "
                "this editor does not answer lait/elicit (no experimental.lait capability)"
            )
            return DECLINE
        if request.mode not in ("form", "url"):
            self._log(
                f"declined an elicitation of unknown mode '{request.mode}' from MCP server '{request.server}'"
            )
            return DECLINE
        async with self.state.lock:
            answer = await self._request(protocol.ELICIT, protocol.elicit_params(self.run_id, request))
        return protocol.parse_elicitation(answer)

    # -- MCP sign-in
    def sign_in_presenter(self) -> Any:
        """``window/showDocument`` plus progress (:mod:`lait_ls.signin`)."""
        from lait_ls.signin import EditorSignIn

        return EditorSignIn(self.ls)

    # -- ask
    async def ask(self, question: Question) -> str:
        async with self.state.lock:
            if self.lait_client:
                answer = protocol.parse_answer(
                    await self._request(protocol.ASK, protocol.ask_params(self.run_id, question))
                )
                if answer is None:
                    raise AskError("the question was dismissed in the editor")
                return answer
            if question.choices:
                chosen = await self._message_request(question.text, list(question.choices))
                if chosen is not None:
                    return chosen
                if question.default is not None:
                    return question.default
                raise AskError("the question was dismissed in the editor and no 'default:' is set")
        if question.default is not None:
            return question.default
        raise AskError(
            "this editor cannot answer free-text questions (no experimental.lait capability) and no "
            "'default:' is set for this 'ask:' step"
        )

    # -- events
    def event(self, e: Event) -> None:
        from lait_core.engine.workflow.current import current_step
        from lait_core.support.redact import redact_value

        payload = protocol.event_payload(e)
        payload.update(protocol.step_fields(payload["type"], current_step()))
        payload = redact_value(payload)
        self.ls.protocol.notify(protocol.RUN_EVENT, protocol.run_event(self.run_id, payload))
        if self.on_event is not None:
            self.on_event(e, payload)

    # -- plumbing
    async def _request(self, method: str, params: dict[str, Any]) -> Any:
        """Send a request to the client and wait; cancelled -> the client is told, too."""
        from pygls.exceptions import JsonRpcException

        msg_id = f"lait-{uuid.uuid4()}"
        future = self.ls.protocol.send_request(method, params, msg_id=msg_id)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            self.ls.protocol._request_futures.pop(msg_id, None)
            self.ls.protocol._result_types.pop(msg_id, None)
            self.ls.protocol.notify(lsp.CANCEL_REQUEST, lsp.CancelParams(id=msg_id))
            raise
        except JsonRpcException as exc:
            error = ApprovalError if method == protocol.APPROVE_TOOL_CALL else EngineError
            raise error(f"the editor failed to answer {method}: {exc}") from None

    async def _message_request(self, message: str, titles: list[str]) -> str | None:
        params = lsp.ShowMessageRequestParams(
            type=lsp.MessageType.Info,
            message=message,
            actions=[lsp.MessageActionItem(title=t) for t in titles],
        )
        answer = await self._request(lsp.WINDOW_SHOW_MESSAGE_REQUEST, params)  # type: ignore[arg-type]
        title = getattr(answer, "title", None)
        if title is None and isinstance(answer, dict):
            title = answer.get("title")
        return title if isinstance(title, str) and title in titles else None

    def _log(self, message: str) -> None:
        from lait_core.support.redact import redact

        message = redact(message)
        log.info("%s", message)
        self.ls.window_log_message(
            lsp.LogMessageParams(type=lsp.MessageType.Warning, message=f"lait: {message}")
        )
