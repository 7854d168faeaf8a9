"""The Interaction seam: the engine never reads stdin or writes prompts itself; whenever a run
needs a person (or reports progress) it calls the :class:`Interaction` it was given.

* :class:`HeadlessInteraction` -- CI, ``lait serve``, tests: deterministic answers, never blocks.
* :class:`TerminalInteraction` -- the CLI: prompts on stderr, answers from stdin (one line),
  progress on stderr, streamed text on stdout. Prompts are serialised process-wide: every
  terminal interaction shares one approval lock (also used by ``ask``) and one separate
  elicitation lock. A read that is abandoned (the run was cancelled) keeps its lock until the
  read returns, so the next prompt can never receive an answer typed for the previous one.

The editor implementation lives in ``lait_ls`` and maps the same calls onto ``lait/*`` requests.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import TYPE_CHECKING, Any, Protocol, TextIO, TypeAlias, TypeVar

from lait_core.engine.models import ApprovalError, EngineError, Usage, argv_text
from lait_core.engine.threads import in_daemon_thread

if TYPE_CHECKING:
    from lait_core.engine.mcp.forms import FormField

_T = TypeVar("_T")


# -- requests and answers ----------------------------------------------------------------------
def shown_arguments(arguments: str) -> str:
    """A tool call's arguments as shown on the terminal: compact JSON (no spaces, the text form of
    workflow values), whatever spacing the model produced; text that is not JSON is shown as it is."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return arguments
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


class ApprovalDecision(Enum):
    ONCE = "once"
    SESSION = "session"
    """Allow, and allow this qualified tool name for the rest of the process without asking."""
    DENY = "deny"

    @property
    def allowed(self) -> bool:
        return self is not ApprovalDecision.DENY


@dataclass(frozen=True, slots=True)
class ApprovalRequest:
    """A tool call waiting for approval (``--approve-tools``)."""

    name: str
    """The qualified name (``server__tool``, ``agent__x``, ``tool__x``, ``skill__x``)."""
    arguments: str
    """The raw JSON text the model sent."""
    kind: str = "tool"
    server: str | None = None
    command: tuple[str, ...] | None = None
    """For shell tools: the rendered argv (None when it does not render)."""
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class ElicitationRequest:
    server: str
    mode: str
    """``form``, ``url`` or a future mode (always declined)."""
    message: str
    requested_schema: Mapping[str, Any] | None = None
    url: str | None = None
    allowed: bool = False
    """``mcp_servers.<name>.allow_elicitation``."""
    elicitation_id: str | None = None
    """URL mode: the id the server reports complete (``notifications/elicitation/complete``)."""
    required: bool = False
    """URL mode: a call failed with ``-32042`` and is retried once the server reports completion."""


@dataclass(frozen=True, slots=True)
class ElicitationResult:
    action: str
    """``accept``, ``decline`` or ``cancel``."""
    content: dict[str, Any] | None = None


DECLINE = ElicitationResult("decline")


@dataclass(frozen=True, slots=True)
class Question:
    """A workflow ``ask:`` step (choices are checked by the caller)."""

    text: str
    choices: tuple[str, ...] | None = None
    default: str | None = None
    multiline: bool = False


class AskError(EngineError):
    """No answer can be obtained for an ``ask:`` question."""


NOT_A_TTY_ASK = "stdin is not an interactive terminal and no 'default:' is set for this 'ask:' step"
NOT_A_TTY_APPROVAL = (
    "--approve-tools needs an interactive terminal, but stdin is not a TTY (there is no default answer: "
    "a closed pipe cannot be told apart from a slow human)"
)


# -- events ------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class WarningEvent:
    """Printed as `warning: <message>`."""

    message: str


@dataclass(frozen=True, slots=True)
class Note:
    message: str


@dataclass(frozen=True, slots=True)
class TextDelta:
    text: str


@dataclass(frozen=True, slots=True)
class ReasoningDelta:
    text: str


@dataclass(frozen=True, slots=True)
class StreamEnded:
    """A streamed round ended; ``final`` (no tool calls) is when a newline is written."""

    final: bool


@dataclass(frozen=True, slots=True)
class RoundStarted:
    round: int


@dataclass(frozen=True, slots=True)
class ToolCallStarted:
    call_id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class ToolCallFinished:
    call_id: str
    name: str
    result: str
    is_error: bool


@dataclass(frozen=True, slots=True)
class ToolCallDenied:
    call_id: str
    name: str
    reason: str


@dataclass(frozen=True, slots=True)
class UsageReported:
    usage: Usage
    round: int | None
    cost: float | None = None
    """USD for this response by the model's ``pricing`` (None: the model has no pricing)."""


@dataclass(frozen=True, slots=True)
class ModelAnswered:
    """A model request was answered: ``source`` is ``live``, ``cache`` or ``replay``; ``key`` is
    its content key (``-v`` prints answers that did not come from the model)."""

    label: str
    model: str
    source: str
    key: str


@dataclass(frozen=True, slots=True)
class Compacted:
    round: int
    messages_before: int
    messages_after: int


# -- workflow progress (docs/workflows.md) ----------------------------------------------
@dataclass(frozen=True, slots=True)
class WorkflowStarted:
    """A workflow file starts: `==> name: description` (top level) or `    -> name: description`
    (a child, ``depth`` > 0). Only sent for files that have a ``name``."""

    name: str
    description: str | None
    depth: int = 0
    prefix: str = ""
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class StepStarted:
    """`{prefix}[{number}] {label}`; ``label`` is the step's one name (its id, or `step-<n> (<kind>)`
    with ``n`` its place in the file: :func:`lait_core.documents.workflow.step_name`), ``number`` the
    run's progress counter."""

    label: str
    kind: str
    number: int
    prefix: str = ""
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class StepFinished:
    """``status`` is ``ok``, ``skipped`` (its `when` was falsy: `[n] label (skipped)`, and no
    StepStarted was sent) or ``failed``."""

    label: str
    kind: str
    number: int
    seconds: float
    status: str
    prefix: str = ""
    run_id: str | None = None
    error: str | None = None
    """For ``failed``: the error text (the step label is not repeated)."""


@dataclass(frozen=True, slots=True)
class StepRetrying:
    """`    -> attempt k/max failed: <error>; retrying in X.Xs`."""

    label: str
    attempt: int
    max_attempts: int
    error: str
    delay: float
    prefix: str = ""
    run_id: str | None = None


@dataclass(frozen=True, slots=True)
class StepProgress:
    """Any other progress line of a step: `    -> <message>` (`case 2 matched`, `item 1/3`,
    `iteration 2/5`, `step failed, running 'on_error': ...`)."""

    label: str
    message: str
    prefix: str = ""
    run_id: str | None = None


Event: TypeAlias = (
    WarningEvent
    | Note
    | TextDelta
    | ReasoningDelta
    | StreamEnded
    | RoundStarted
    | ToolCallStarted
    | ToolCallFinished
    | ToolCallDenied
    | UsageReported
    | ModelAnswered
    | Compacted
    | WorkflowStarted
    | StepStarted
    | StepFinished
    | StepRetrying
    | StepProgress
)


class Interaction(Protocol):
    """What the engine may ask of the person (or program) running it."""

    async def approve(self, call: ApprovalRequest) -> ApprovalDecision: ...

    async def elicit(self, request: ElicitationRequest) -> ElicitationResult: ...

    async def ask(self, question: Question) -> str: ...

    def event(self, e: Event) -> None: ...


# -- headless ----------------------------------------------------------------------------------
class HeadlessInteraction:
    """Deterministic answers; never blocks.

    ``approvals``: ``"error"`` (default; like a non-TTY terminal), ``"allow"`` or ``"deny"``, or a
    list of decisions consumed in order (for tests; running out is an error). ``answers`` maps
    question texts to answers; otherwise ``ask`` returns the default or fails. Elicitation is
    always declined. Events are appended to ``events`` and passed to ``on_event``.
    """

    def __init__(
        self,
        approvals: str | list[ApprovalDecision] = "error",
        *,
        answers: Mapping[str, str] | None = None,
        on_event: Callable[[Event], None] | None = None,
        record: bool = True,
    ) -> None:
        self._approvals = approvals
        self._answers = dict(answers or {})
        self._on_event = on_event
        self._record = record
        self.events: list[Event] = []
        self.approval_requests: list[ApprovalRequest] = []
        self.always: set[str] = set()

    async def approve(self, call: ApprovalRequest) -> ApprovalDecision:
        self.approval_requests.append(call)
        if call.name in self.always:
            return ApprovalDecision.ONCE
        mode = self._approvals
        if isinstance(mode, list):
            if not mode:
                raise ApprovalError("no scripted approval decision left")
            decision = mode.pop(0)
        elif mode == "allow":
            decision = ApprovalDecision.ONCE
        elif mode == "deny":
            decision = ApprovalDecision.DENY
        else:
            raise ApprovalError(NOT_A_TTY_APPROVAL)
        if decision is ApprovalDecision.SESSION:
            self.always.add(call.name)
        return decision

    async def elicit(self, request: ElicitationRequest) -> ElicitationResult:
        return DECLINE

    async def ask(self, question: Question) -> str:
        if question.text in self._answers:
            return self._answers[question.text]
        if question.default is not None:
            return question.default
        raise AskError(NOT_A_TTY_ASK)

    def event(self, e: Event) -> None:
        if self._record:
            self.events.append(e)
        if self._on_event is not None:
            self._on_event(e)

    def of_type(self, kind: type[_T]) -> list[_T]:
        return [e for e in self.events if isinstance(e, kind)]

    @property
    def text(self) -> str:
        """All streamed text so far."""
        return "".join(e.text for e in self.events if isinstance(e, TextDelta))


# -- terminal ----------------------------------------------------------------------------------
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
        from lait_core.redact import show_url

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

    # -- events
    def event(self, e: Event) -> None:
        if isinstance(e, TextDelta):
            if self._reasoning_open and not self.reasoning_to_stderr:
                self.stdout.write("\n\n")
                self._reasoning_open = False
            self._content_started = True
            self.stdout.write(e.text)
            self.stdout.flush()
        elif isinstance(e, ReasoningDelta):
            if not self.show_reasoning:
                return
            out = self.stderr if self.reasoning_to_stderr else self.stdout
            if not self._reasoning_open and not self._content_started:
                out.write("Reasoning:\n")
            self._reasoning_open = True
            out.write(e.text)
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


def progress_line(e: Event) -> str | None:
    """The stderr line of a workflow progress event (docs/workflows.md), or None when it prints nothing."""
    if isinstance(e, StepStarted):
        return f"{e.prefix}[{e.number}] {e.label}"
    if isinstance(e, StepFinished):
        return f"{e.prefix}[{e.number}] {e.label} (skipped)" if e.status == "skipped" else None
    if isinstance(e, StepRetrying):
        return (
            f"{e.prefix}    -> attempt {e.attempt}/{e.max_attempts} failed: {e.error}; "
            f"retrying in {e.delay:.1f}s"
        )
    if isinstance(e, StepProgress):
        return f"{e.prefix}    -> {e.message}"
    if isinstance(e, WorkflowStarted):
        about = f"{e.name}: {e.description}" if e.description else e.name
        return f"==> {about}" if e.depth == 0 else f"{e.prefix}-> {about}"
    return None


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
