"""The Interaction seam: the engine never reads stdin or writes prompts itself; whenever a run
needs a person (or reports progress) it calls the :class:`Interaction` it was given.

* :class:`HeadlessInteraction` -- CI, ``lait serve``, tests: deterministic answers, never blocks.
* The CLI's terminal dialogs (prompts on stderr, answers from stdin) are
  :class:`lait_cli.support.terminal_dialogs.TerminalInteraction`; the editor's live in ``lait_ls`` and map
  the same calls onto ``lait/*`` requests; ``lait serve`` forwards them to its MCP client.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, TypeAlias, TypeVar

from lait_core.engine.llm.chat_types import ApprovalError, EngineError, Usage

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
    hints: tuple[str, ...] = ()
    """For MCP tools: what the server's annotations claim (``read-only``, ``destructive``...),
    untrusted: shown to the person, never a reason to run alone."""


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
    with ``n`` its place in the file: :func:`lait_core.documents.workflow_file.step_name`), ``number`` the
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
