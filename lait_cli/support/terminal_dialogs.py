"""The CLI's :class:`~lait_core.engine.run.interaction.Interaction`: prompts on stderr, answers from
stdin (one line), progress on stderr, streamed text on stdout.

Prompts are serialised process-wide: every terminal interaction shares one approval lock (also
used by ``ask``) and one separate elicitation lock. A read that is abandoned (the run was
cancelled) keeps its lock until the read returns, so the next prompt can never receive an answer
typed for the previous one.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TextIO, TypeVar

from lait_core.engine.llm.chat_types import ApprovalError, argv_text
from lait_core.engine.run.interaction import (
    DECLINE,
    NOT_A_TTY_APPROVAL,
    NOT_A_TTY_ASK,
    ApprovalDecision,
    ApprovalRequest,
    AskError,
    Compacted,
    ElicitationRequest,
    ElicitationResult,
    Event,
    ModelAnswered,
    Note,
    Question,
    ReasoningDelta,
    StepFinished,
    StepProgress,
    StepRetrying,
    StepStarted,
    StreamEnded,
    TextDelta,
    ToolCallDenied,
    ToolCallFinished,
    ToolCallStarted,
    WarningEvent,
    WorkflowStarted,
    progress_line,
    shown_arguments,
)
from lait_core.support.daemon_threads import in_daemon_thread

if TYPE_CHECKING:
    from lait_core.engine.mcp.forms import FormField

_T = TypeVar("_T")


@dataclass
class PromptState:
    """Process-wide prompt serialisation and the approval "always" set."""

    approval_lock: threading.Lock = field(default_factory=threading.Lock)
    elicitation_lock: threading.Lock = field(default_factory=threading.Lock)
    always: set[str] = field(default_factory=set)


PROCESS_PROMPTS = PromptState()
"""Shared by every :class:`TerminalInteraction` of the process unless one is given."""

APPROVAL_PROMPT = "allow this call? [y(es)/n(o)/a(lways for this tool)] "
ELICIT_PROMPT = (
    "answer with one line of JSON (an object), or 'decline' / 'cancel', or press Enter to fill in the form: "
)
URL_PROMPT = "continue? [Y(es: I open it)/n(o: decline)/c(ancel)] "
SEND_PROMPT = "send this answer? [Y(es)/n(o: decline)/c(ancel)] "


class _Abandoned(Exception):
    """The waiting coroutine was cancelled before the prompt was shown."""


class TerminalInteraction:
    """Prompts on stderr, one line answers from stdin; streamed text to stdout."""

    def __init__(
        self,
        *,
        stdin: TextIO | None = None,
        stdout: TextIO | None = None,
        stderr: TextIO | None = None,
        show_reasoning: bool = False,
        reasoning_to_stderr: bool = False,
        verbose: bool = False,
        state: PromptState | None = None,
    ) -> None:
        self.stdin = stdin if stdin is not None else sys.stdin
        self.stdout = stdout if stdout is not None else sys.stdout
        self.stderr = stderr if stderr is not None else sys.stderr
        self.show_reasoning = show_reasoning
        self.reasoning_to_stderr = reasoning_to_stderr
        self.verbose = verbose
        self.state = state or PROCESS_PROMPTS
        self._reasoning_open = False
        self._content_started = False

    # -- helpers
    def _is_tty(self) -> bool:
        try:
            return bool(self.stdin.isatty())
        except (AttributeError, ValueError, OSError):
            return False

    def _say(self, text: str) -> None:
        self.stderr.write(text)
        self.stderr.flush()

    async def _in_thread(self, fn: Callable[[threading.Event], _T]) -> _T:
        """Run a blocking prompt in its own daemon thread.

        If the caller is cancelled, the thread is told so: before it got the lock it gives up; once
        it is reading it keeps the lock until the read returns and its answer is discarded.
        """
        return await in_daemon_thread(fn, name="lait-prompt")

    @staticmethod
    def _acquire(lock: threading.Lock, abandoned: threading.Event) -> None:
        while not lock.acquire(timeout=0.05):
            if abandoned.is_set():
                raise _Abandoned
        if abandoned.is_set():
            lock.release()
            raise _Abandoned

    # -- MCP sign-in (lait_core.engine.mcp.oauth.signin)
    def sign_in_presenter(self) -> Any:
        """Prints the authorization URL and waits, when a person is at this terminal; else None
        (a needed sign-in fails at once with "sign in with `lait mcp login NAME`")."""
        from lait_core.engine.mcp.oauth.signin import terminal_presenter

        return terminal_presenter(self.stdin, self.stderr)

    # -- approvals
    async def approve(self, call: ApprovalRequest) -> ApprovalDecision:
        state = self.state

        def prompt(abandoned: threading.Event) -> ApprovalDecision:
            self._acquire(state.approval_lock, abandoned)
            try:
                if call.name in state.always:
                    return ApprovalDecision.ONCE
                if not self._is_tty():
                    raise ApprovalError(NOT_A_TTY_APPROVAL)
                lines = [f"tool call: {call.name}", f"arguments: {shown_arguments(call.arguments)}"]
                if call.command is not None:
                    lines.append(f"command: {argv_text(call.command)}")
                if call.hints:
                    lines.append(f"server says: {', '.join(call.hints)} (unverified)")
                self._say("\n".join(lines) + "\n" + APPROVAL_PROMPT)
                line = self.stdin.readline()
                if abandoned.is_set():
                    raise _Abandoned
                answer = line.strip()
                if answer in ("y", "Y"):
                    return ApprovalDecision.ONCE
                if answer in ("n", "N"):
                    return ApprovalDecision.DENY
                if answer in ("a", "A"):
                    state.always.add(call.name)
                    return ApprovalDecision.SESSION
                if line == "":
                    raise ApprovalError("no answer to the approval prompt: stdin was closed")
                raise ApprovalError(f"invalid answer {answer!r} to the approval prompt; expected y, n or a")
            finally:
                state.approval_lock.release()

        return await self._in_thread(prompt)

    # -- elicitation (docs/mcp.md)
    async def elicit(self, request: ElicitationRequest) -> ElicitationResult:
        if not request.allowed or not self._is_tty():
            return DECLINE
        state = self.state
        if request.mode == "url":

            def url_prompt(abandoned: threading.Event) -> ElicitationResult:
                self._acquire(state.elicitation_lock, abandoned)
                try:
                    return self._url(request, abandoned)
                except OSError:
                    self._say("note: could not read the answer; declining\n")
                    return DECLINE
                finally:
                    state.elicitation_lock.release()

            return await self._in_thread(url_prompt)
        if request.mode != "form":
            return DECLINE

        def prompt(abandoned: threading.Event) -> ElicitationResult:
            self._acquire(state.elicitation_lock, abandoned)
            try:
                return self._form(request, abandoned)
            except OSError:
                self._say("note: could not read the answer; declining\n")
                return DECLINE
            finally:
                state.elicitation_lock.release()

        return await self._in_thread(prompt)

    def _read(self, abandoned: threading.Event) -> str | None:
        """One answer line without its newline; None at end of input."""
        line = self.stdin.readline()
        if abandoned.is_set():
            raise _Abandoned
        return None if line == "" else line.rstrip("\r\n")

    def _form_say(self, text: str) -> None:
        """Text of the form prompts (:meth:`_form`); a line editor may override it with
        :meth:`_form_read` (the text since the last read ends with the prompt of the next read)."""
        self._say(text)

    def _form_read(self, abandoned: threading.Event) -> str | None:
        """One answer line of the form prompts, without its newline; None at end of input."""
        return self._read(abandoned)

    def _form(self, request: ElicitationRequest, abandoned: threading.Event) -> ElicitationResult:
        """The form prompt (docs/mcp.md): one line of JSON, ``decline``/``cancel``, or Enter
        to answer field by field (Enter on a field keeps its default)."""
        from lait_core.engine.mcp.forms import form_fields

        fields = form_fields(request.requested_schema)
        lines = [f"mcp_servers.{request.server}: {request.message}"]
        lines.extend(_schema_lines(request.requested_schema))
        lines.append(ELICIT_PROMPT)
        self._form_say("\n".join(lines))
        line = self._form_read(abandoned)
        answer = (line or "").strip()
        if line is None:
            self._form_say("\nnote: no answer (end of input); declining\n")
            return DECLINE
        if answer.lower() in ("decline", "cancel"):
            return ElicitationResult(answer.lower())
        if not answer:
            return self._field_by_field(fields, abandoned)
        try:
            value = json.loads(answer)
        except ValueError:
            value = None
        if isinstance(value, dict):
            return ElicitationResult("accept", value)
        self._form_say("note: the answer is not a JSON object; declining\n")
        return DECLINE

    def _url(self, request: ElicitationRequest, abandoned: threading.Event) -> ElicitationResult:
        """URL mode: the message and the URL (printed, never opened by lait); accepting means the
        person opens it themselves."""
        from lait_core.support.redact import show_url

        url = request.url or ""
        show_url(url)
        after = (
            "when you are done there, the server tells lait and the call is retried"
            if request.required
            else "the server continues when you are done there"
        )
        self._say(
            f"mcp_servers.{request.server}: {request.message}\n"
            f"  open this URL in your browser (lait does not open it): {url}\n"
            f"  {after}\n{URL_PROMPT}"
        )
        line = self._read(abandoned)
        choice = (line or "").strip().lower()
        if line is None:
            self._say("\nnote: no answer (end of input); declining\n")
            return DECLINE
        if choice in ("", "y", "yes"):
            if request.required:
                self._say("waiting for the server to report that you are done (Ctrl-C stops)\n")
            return ElicitationResult("accept")
        if choice in ("c", "cancel"):
            return ElicitationResult("cancel")
        return DECLINE

    def _field_by_field(self, fields: list[FormField], abandoned: threading.Event) -> ElicitationResult:
        from lait_core.engine.mcp.forms import FormInputError, parse_value

        content: dict[str, Any] = {}
        for item in fields:
            if item.choices:
                self._form_say("".join(f"    {i}) {c.label}\n" for i, c in enumerate(item.choices, 1)))
            hint = " (numbers or values, separated by commas)" if item.kind == "multi" else ""
            if item.kind == "boolean":
                hint = " (yes/no)"
            default = f" [{item.default_text()}]" if item.has_default else ""
            required = " (required)" if item.required else ""
            for attempt in range(3):
                self._form_say(f"  {item.name}{required}{hint}{default}: ")
                line = self._form_read(abandoned)
                if line is None:
                    self._form_say("\nnote: no answer (end of input); cancelling\n")
                    return ElicitationResult("cancel")
                if not line.strip():
                    if item.has_default:
                        content[item.name] = item.default
                        break
                    if not item.required:
                        break
                    problem = "this field is required"
                else:
                    try:
                        content[item.name] = parse_value(item, line)
                        break
                    except FormInputError as exc:
                        problem = str(exc)
                if attempt == 2:
                    self._form_say(f"  {problem}; declining\n")
                    return DECLINE
                self._form_say(f"  {problem}\n")
        self._form_say(f"  answer: {json.dumps(content, ensure_ascii=False)}\n{SEND_PROMPT}")
        line = self._form_read(abandoned)
        choice = (line or "").strip().lower()
        if line is None or choice in ("c", "cancel"):
            return ElicitationResult("cancel")
        if choice in ("", "y", "yes"):
            return ElicitationResult("accept", content)
        return DECLINE

    # -- ask
    async def ask(self, question: Question) -> str:
        if not self._is_tty():
            if question.default is not None:
                return question.default
            raise AskError(NOT_A_TTY_ASK)
        state = self.state

        def prompt(abandoned: threading.Event) -> str:
            self._acquire(state.approval_lock, abandoned)
            try:
                text = question.text if question.text.endswith("\n") else question.text + "\n"
                if question.choices:
                    text += f"choices: {', '.join(question.choices)}\n"
                self._say(text)
                answer = self.stdin.read() if question.multiline else self.stdin.readline()
                if abandoned.is_set():
                    raise _Abandoned
                if answer.endswith("\r\n"):
                    return answer[:-2]
                return answer[:-1] if answer.endswith("\n") else answer
            finally:
                state.approval_lock.release()

        return await self._in_thread(prompt)

    @staticmethod
    def _shown(text: str, out: Any) -> str:
        """A model's text as written to ``out``: on a terminal without control sequences."""
        if not text.isprintable() and out.isatty():
            from lait_core.support.printable_text import printable

            return printable(text)
        return text

    # -- events
    def event(self, e: Event) -> None:
        if isinstance(e, TextDelta):
            if self._reasoning_open and not self.reasoning_to_stderr:
                self.stdout.write("\n\n")
                self._reasoning_open = False
            self._content_started = True
            self.stdout.write(self._shown(e.text, self.stdout))
            self.stdout.flush()
        elif isinstance(e, ReasoningDelta):
            if not self.show_reasoning:
                return
            out = self.stderr if self.reasoning_to_stderr else self.stdout
            if not self._reasoning_open and not self._content_started:
                out.write("Reasoning:\n")
            self._reasoning_open = True
            out.write(self._shown(e.text, out))
            out.flush()
        elif isinstance(e, StreamEnded):
            if e.final:
                self.stdout.write("\n")
                self.stdout.flush()
            self._reasoning_open = False
        elif isinstance(e, WarningEvent):
            self._say(f"warning: {e.message}\n")
        elif isinstance(e, Note):
            self._say(f"{e.message}\n")
        elif isinstance(e, StepStarted | StepFinished | StepRetrying | StepProgress | WorkflowStarted):
            line = progress_line(e)
            if line is not None:
                self._say(line + "\n")
        elif self.verbose:
            if isinstance(e, ToolCallStarted):
                self._say(f"tool call: {e.name} {shown_arguments(e.arguments)}\n")
            elif isinstance(e, ToolCallDenied):
                self._say(f"tool call denied: {e.name}: {e.reason}\n")
            elif isinstance(e, ToolCallFinished):
                self._say(f"tool result: {e.name} ({len(e.result)} chars{', error' if e.is_error else ''})\n")
            elif isinstance(e, ModelAnswered) and e.source != "live":
                where = "response cache" if e.source == "cache" else "cassette"
                self._say(f"cache hit: answer for {e.label} from the {where} ({e.model}, key {e.key})\n")
            elif isinstance(e, Compacted):
                self._say(
                    f"compacted the conversation before round {e.round}: {e.messages_before} -> "
                    f"{e.messages_after} messages\n"
                )


def _schema_lines(schema: Mapping[str, Any] | None) -> list[str]:
    """``  - <field> (required): <type> — <description or title>`` per field, then its default."""
    from lait_core.engine.mcp.forms import form_fields

    lines = []
    for item in form_fields(schema):
        marker = " (required)" if item.required else ""
        line = f"  - {item.name}{marker}: {item.type_text} — {item.about}".rstrip(" —")
        if item.has_default:
            line += f" (default: {json.dumps(item.default, ensure_ascii=False)})"
        lines.append(line)
    return lines
