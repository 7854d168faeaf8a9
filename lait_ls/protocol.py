"""The editor protocol: lait's custom LSP methods and the shapes of their messages.

Custom methods travel as plain JSON objects. pygls would turn the params and results of methods it
does not know into namedtuples, which renames keys that are not Python identifiers (``$schema``,
``my-field``) and sends a namedtuple result back as a JSON *array*; :func:`dict_converter` keeps them
as dicts instead. Every message is built and read here, in one place, so the wire names
(camelCase) never leak into the rest of the server.

Client -> server: ``lait/run`` ``{uri, kind?, prompt?, inputs?, dryRun?, runId?}`` ->
``{runId, status, output, error?}``. Server -> client requests (only when the client declared
``experimental.lait``): ``lait/approveToolCall``, ``lait/elicit``, ``lait/ask``. Server -> client
notification: ``lait/runEvent`` ``{runId, event: {type, ...}}``.
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lait_core.engine.run.interaction import (
    ApprovalDecision,
    ApprovalRequest,
    ElicitationRequest,
    ElicitationResult,
    Question,
)
from lait_core.language.run_targets import RunTarget

if TYPE_CHECKING:
    from cattrs import Converter

    from lait_core.engine.workflow.current import StepRef

RUN = "lait/run"
RUN_EVENT = "lait/runEvent"
APPROVE_TOOL_CALL = "lait/approveToolCall"
ELICIT = "lait/elicit"
ASK = "lait/ask"

COMMAND_RUN = "lait.server.run"
COMMAND_DRY_RUN = "lait.server.dryRun"
"""``workspace/executeCommand`` ids. They are not the lenses' command ids (``lait.runWorkflow``,
``lait.dryRun``): a client such as vscode-languageclient registers every server command under its id,
which would collide with the client's own handler that asks for inputs first."""
LENS_RUN_WORKFLOW = "lait.runWorkflow"
LENS_RUN_AGENT = "lait.runAgent"
LENS_DRY_RUN = "lait.dryRun"
LENS_RUN_TEST = "lait.runTest"
LENS_RUN_EVAL = "lait.runEval"
"""The lenses' commands: *client* commands (the client asks for the prompt and inputs, then sends
``lait/run``); their one argument is :func:`target_payload`."""

KINDS = ("workflow", "agent", "test", "eval")
APPROVE_SETTINGS = ("always", "never")


class ProtocolError(ValueError):
    """A malformed message from the client (reported as a JSON-RPC error, never a traceback)."""


# -- the converter -----------------------------------------------------------------------------
def dict_converter() -> Converter:
    """pygls' default converter, except that params and results of methods it has no types for stay
    plain dicts (LSP's own messages stay typed)."""
    from pygls.protocol import (
        JsonRPCNotification,
        JsonRPCRequestMessage,
        JsonRPCResponseMessage,
        default_converter,
    )

    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    for cls in (JsonRPCRequestMessage, JsonRPCResponseMessage, JsonRPCNotification):
        converter.register_structure_hook(cls, lambda obj, cls: cls(**obj))
    return converter


# -- lait/run ----------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RunParams:
    uri: str
    kind: str | None = None
    """``workflow`` or ``agent``; None: decided from the file."""
    prompt: str | None = None
    inputs: dict[str, Any] = field(default_factory=dict)
    dry_run: bool = False
    run_id: str | None = None
    record: str | None = None
    """A cassette folder to record into (``--record``); relative: to the config's folder."""
    replay: str | None = None
    """A cassette folder to answer from (``--replay``)."""
    cache: bool | None = None
    """``--cache`` (true) / ``--no-cache`` (false); absent: ``default.cache``."""
    trace_file: str | None = None
    """``--trace-file``; relative: to the config's folder."""
    history: bool = True
    """False: like ``--no-history``."""
    repeat: int = 1
    """An eval file's runs per case (``lait eval --repeat``)."""

    @classmethod
    def parse(cls, obj: Any) -> RunParams:
        if isinstance(obj, str):  # a bare URI (executeCommand arguments)
            obj = {"uri": obj}
        if not isinstance(obj, Mapping):
            raise ProtocolError(f"{RUN}: params must be an object with 'uri', got {_kind(obj)}")
        uri = obj.get("uri")
        if not isinstance(uri, str) or not uri:
            raise ProtocolError(f"{RUN}: 'uri' must be a non-empty string")
        kind = obj.get("kind")
        if kind is not None and kind not in KINDS:
            raise ProtocolError(
                f"{RUN}: 'kind' must be 'workflow', 'agent', 'test' or 'eval', got {json.dumps(kind)}"
            )
        prompt = obj.get("prompt")
        if prompt is not None and not isinstance(prompt, str):
            raise ProtocolError(f"{RUN}: 'prompt' must be a string")
        inputs = obj.get("inputs")
        if inputs is None:
            inputs = {}
        if not isinstance(inputs, Mapping) or not all(isinstance(k, str) for k in inputs):
            raise ProtocolError(f"{RUN}: 'inputs' must be an object")
        dry_run = obj.get("dryRun", False)
        if not isinstance(dry_run, bool):
            raise ProtocolError(f"{RUN}: 'dryRun' must be a boolean")
        run_id = obj.get("runId")
        if run_id is not None and (not isinstance(run_id, str) or not run_id):
            raise ProtocolError(f"{RUN}: 'runId' must be a non-empty string")
        texts: dict[str, str | None] = {}
        for key in ("record", "replay", "traceFile"):
            value = obj.get(key)
            if value is not None and (not isinstance(value, str) or not value):
                raise ProtocolError(f"{RUN}: '{key}' must be a non-empty string (a path)")
            texts[key] = value
        if texts["record"] is not None and texts["replay"] is not None:
            raise ProtocolError(f"{RUN}: 'record' and 'replay' cannot be used together")
        cache = obj.get("cache")
        if cache is not None and not isinstance(cache, bool):
            raise ProtocolError(f"{RUN}: 'cache' must be a boolean")
        history = obj.get("history", True)
        if not isinstance(history, bool):
            raise ProtocolError(f"{RUN}: 'history' must be a boolean")
        repeat = obj.get("repeat", 1)
        if isinstance(repeat, bool) or not isinstance(repeat, int) or not 1 <= repeat <= 1000:
            raise ProtocolError(f"{RUN}: 'repeat' must be an integer from 1 to 1000")
        return cls(
            uri,
            kind,
            prompt,
            dict(inputs),
            dry_run,
            run_id,
            texts["record"],
            texts["replay"],
            cache,
            texts["traceFile"],
            history,
            repeat,
        )


def run_result(run_id: str, status: str, output: str, error: str | None = None) -> dict[str, Any]:
    """``status``: ``ok`` or ``failed`` (a cancelled request ends with the JSON-RPC error -32800)."""
    result: dict[str, Any] = {"runId": run_id, "status": status, "output": output}
    if error is not None:
        result["error"] = error
    return result


def target_payload(uri: str, target: RunTarget) -> dict[str, Any]:
    """A lens argument (``RunTarget`` in editors/vscode/PROTOCOL.md)."""
    payload: dict[str, Any] = {"uri": uri, "kind": target.kind, "prompt": target.prompt}
    if target.kind in ("test", "eval"):
        return {"uri": uri, "kind": target.kind, "prompt": "none", "inputs": []}
    if target.name is not None:
        payload["name"] = target.name
    if target.kind == "workflow":
        payload["inputs"] = [
            {"name": spec.name, "schema": _plain(spec.schema), "required": spec.required}
            for spec in target.inputs
        ]
    return payload


# -- server -> client requests ----------------------------------------------------------------
def approve_params(run_id: str, call: ApprovalRequest) -> dict[str, Any]:
    """``arguments`` is the raw JSON text the model sent; ``command`` the argv a shell tool would run."""
    params: dict[str, Any] = {
        "runId": run_id,
        "tool": call.name,
        "kind": call.kind,
        "arguments": call.arguments,
    }
    if call.server is not None:
        params["server"] = call.server
    if call.command is not None:
        params["command"] = list(call.command)
    if call.hints:
        params["hints"] = list(call.hints)  # the server's annotations: untrusted
    return params


def parse_decision(obj: Any) -> ApprovalDecision:
    """``{decision: "once"|"session"|"deny"}``; anything else (null, a dismissed dialog) denies."""
    value = obj.get("decision") if isinstance(obj, Mapping) else None
    try:
        return ApprovalDecision(value)
    except ValueError:
        return ApprovalDecision.DENY


def elicit_params(run_id: str, request: ElicitationRequest) -> dict[str, Any]:
    params: dict[str, Any] = {
        "runId": run_id,
        "server": request.server,
        "mode": request.mode,
        "message": request.message,
    }
    if request.requested_schema is not None:
        params["requestedSchema"] = _plain(request.requested_schema)
        properties = request.requested_schema.get("properties")
        if isinstance(properties, Mapping):
            # JSON objects have no order for every client (Lua tables): the schema's order, spelled out
            params["propertyOrder"] = [str(k) for k in properties]
    if request.url is not None:
        params["url"] = request.url
    if request.elicitation_id is not None:
        params["elicitationId"] = request.elicitation_id
    if request.required:
        params["retriesCall"] = True
    return params


def parse_elicitation(obj: Any) -> ElicitationResult:
    """``{action: "accept"|"decline"|"cancel", content?}``; a malformed answer or an ``accept``
    without an object declines; null (the dialog was dismissed) cancels."""
    if obj is None:
        return ElicitationResult("cancel")
    if not isinstance(obj, Mapping):
        return ElicitationResult("decline")
    action = obj.get("action")
    if action == "accept":
        content = obj.get("content")
        if content is None:
            content = {}
        if not isinstance(content, Mapping):
            return ElicitationResult("decline")
        return ElicitationResult("accept", dict(content))
    if action in ("decline", "cancel"):
        return ElicitationResult(action)
    return ElicitationResult("decline")


def ask_params(run_id: str, question: Question) -> dict[str, Any]:
    params: dict[str, Any] = {"runId": run_id, "question": question.text, "multiline": question.multiline}
    if question.choices is not None:
        params["choices"] = list(question.choices)
    if question.default is not None:
        params["default"] = question.default
    return params


def parse_answer(obj: Any) -> str | None:
    """``{answer: string}``; null (or no string) means the question was dismissed."""
    if isinstance(obj, Mapping) and isinstance(obj.get("answer"), str):
        return str(obj["answer"])
    return None


# -- lait/runEvent -----------------------------------------------------------------------------
EVENT_TYPES = {
    "RoundStarted": "round",
    "ToolCallStarted": "toolCall",
    "ToolCallFinished": "toolResult",
    "ToolCallDenied": "toolDenied",
    "TextDelta": "text",
    "ReasoningDelta": "reasoning",
    "UsageReported": "usage",
    "WarningEvent": "warning",
}
"""Engine event class -> ``event.type``; any other class gets its name in lowerCamelCase
(``StepStarted`` -> ``stepStarted``)."""
FIELD_NAMES = {"number": "n", "delay": "delaySeconds"}
DROPPED_FIELDS = {"run_id"}


def event_payload(event: object) -> dict[str, Any]:
    """An engine event as ``{type, ...fields}`` (editors/vscode/PROTOCOL.md section 5): fields
    camelCased, values JSON-safe, ``usage`` flattened into the event."""
    name = type(event).__name__
    payload: dict[str, Any] = {"type": EVENT_TYPES.get(name, name[:1].lower() + name[1:])}
    if not dataclasses.is_dataclass(event) or isinstance(event, type):
        return payload
    for f in dataclasses.fields(event):
        if f.name in DROPPED_FIELDS:
            continue
        value = _plain(getattr(event, f.name))
        if f.name == "usage" and isinstance(value, dict):
            payload.update(value)
        elif value is not None or f.name != "round":
            payload[FIELD_NAMES.get(f.name, _camel(f.name))] = value
    return payload


STEP_EVENTS = ("stepStarted", "stepFinished")


def step_fields(event_type: str, step: StepRef | None) -> dict[str, Any]:
    """Where an event belongs (PROTOCOL.md section 5, "Step fields"): ``stepId`` of the step running
    when it was sent; ``stepStarted``/``stepFinished`` also name the step's parent
    (``parentStepId``, null at the top) and its place (``uri``, LSP ``range``)."""
    if step is None:
        return {}
    fields: dict[str, Any] = {"stepId": step.id}
    if event_type in STEP_EVENTS:
        sl, sc, el, ec = step.lines
        fields["parentStepId"] = step.parent.id if step.parent is not None else None
        fields["uri"] = step.path.as_uri()
        fields["range"] = {
            "start": {"line": sl, "character": sc},
            "end": {"line": el, "character": ec},
        }
    return fields


def run_event(run_id: str, event: Mapping[str, Any]) -> dict[str, Any]:
    return {"runId": run_id, "event": dict(event)}


# -- helpers ------------------------------------------------------------------------------------
def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _plain(value: Any) -> Any:
    """A JSON-safe copy: dataclasses become camelCased objects, enums their values, paths strings."""
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if isinstance(value, enum.Enum):
        return _plain(value.value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {_camel(f.name): _plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [_plain(v) for v in value]
    return str(value)


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list | tuple):
        return "an array"
    return f"a {type(value).__name__}"
