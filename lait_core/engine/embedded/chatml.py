"""From an OpenAI-shaped chat-completion body to a ChatML prompt and a generation plan.

The embedded format (lait's own; the model's GGUF template knows no tools):

* the system message lists the offered tools as ``functions.<name>: <description>`` with their
  JSON Schema, and says how to call one (``functions.<name>:`` then the JSON arguments on the
  next line) or to answer (``message:`` then the text);
* an assistant turn that called tools is rendered in that same form; a ``tool`` message becomes a
  user turn ``Result of <name>:``, the result and :data:`RESULT_NOTE`, so the model reads what its
  call returned and is asked to use it;
* with ``tool_choice: "auto"`` (also when it is omitted, as with OpenAI) the model chooses between
  a call and a message by a grammar-constrained first step. After a tool result that follows the
  last user message, ``auto`` means *answer*: a small model otherwise repeats its call forever,
  so the embedded model makes at most one tool round per user turn. ``"required"`` and a named
  tool always produce a call; ``"none"`` always an answer.

Sampling: ``temperature`` defaults to 0 (greedy, so runs repeat exactly), ``max_tokens`` (or
``max_completion_tokens``) to :data:`DEFAULT_MAX_TOKENS`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from lait_core.engine.llm.chat_types import JsonObject, LlmError

DEFAULT_MAX_TOKENS = 1024
"""Answer length when the request sets none (a small model can ramble until its context ends)."""
MESSAGE_PREFIX = "message:"
CALL_PREFIX = "functions."
END = "<|im_end|>"
DEFAULT_SYSTEM = "You are a helpful assistant."
RESULT_NOTE = "Answer my request using this result."

Mode = Literal["answer", "choose", "required", "forced"]


class EmbeddedRequestError(LlmError):
    """A request the embedded model cannot serve (the in-process counterpart of an HTTP 400)."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str
    parameters: JsonObject


@dataclass(frozen=True, slots=True)
class Sampling:
    temperature: float
    top_p: float
    max_tokens: int
    seed: int | None
    stop: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Plan:
    """What to generate for one request."""

    prompt: str
    """The ChatML text up to and including the assistant turn's opening."""
    mode: Mode
    tools: tuple[ToolSpec, ...]
    """The tools the model may call in this request (empty in ``answer`` mode)."""
    forced: str | None
    """The tool a named ``tool_choice`` forces."""
    answer_schema: JsonObject | None
    """The JSON Schema a text answer must follow (``response_format: json_schema``)."""
    answer_json: bool
    """The text answer must be JSON (``response_format`` ``json_object`` or ``json_schema``)."""
    sampling: Sampling


def plan_request(body: Mapping[str, Any]) -> Plan:
    """Read a chat-completion body; :class:`EmbeddedRequestError` for what cannot be served."""
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        raise EmbeddedRequestError("the request has no 'messages'")
    tools = _tools(body.get("tools"))
    mode, forced = _mode(tools, body.get("tool_choice", "auto"), messages)
    offered = tools if mode != "answer" else ()
    answer_schema, answer_json = _response_format(body.get("response_format"))
    prompt = render(messages, offered)
    return Plan(prompt, mode, offered, forced, answer_schema, answer_json, _sampling(body))


def _tools(raw: Any) -> tuple[ToolSpec, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        raise EmbeddedRequestError("'tools' must be a list")
    out: list[ToolSpec] = []
    for item in raw:
        function = item.get("function") if isinstance(item, dict) else None
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(function, dict) or not isinstance(name, str) or not name:
            raise EmbeddedRequestError("every entry of 'tools' must be a function with a 'name'")
        description = function.get("description")
        parameters = function.get("parameters")
        out.append(
            ToolSpec(
                name,
                description if isinstance(description, str) else "",
                parameters if isinstance(parameters, dict) else {"type": "object"},
            )
        )
    return tuple(out)


def _after_tool_result(messages: list[Any]) -> bool:
    """A tool result follows the last user message."""
    for message in reversed(messages):
        role = message.get("role") if isinstance(message, dict) else None
        if role == "tool":
            return True
        if role == "user":
            return False
    return False


def _mode(tools: tuple[ToolSpec, ...], choice: Any, messages: list[Any]) -> tuple[Mode, str | None]:
    if not tools or choice == "none":
        return "answer", None
    if choice == "required":
        return "required", None
    if isinstance(choice, dict):
        function = choice.get("function")
        name = function.get("name") if isinstance(function, dict) else None
        if not isinstance(name, str) or name not in {t.name for t in tools}:
            raise EmbeddedRequestError(f"'tool_choice' names a tool that is not in 'tools': {name!r}")
        return "forced", name
    if choice != "auto":
        raise EmbeddedRequestError(f"unsupported 'tool_choice': {choice!r}")
    return ("answer", None) if _after_tool_result(messages) else ("choose", None)


def _response_format(raw: Any) -> tuple[JsonObject | None, bool]:
    if raw is None:
        return None, False
    kind = raw.get("type") if isinstance(raw, dict) else None
    if kind == "text":
        return None, False
    if kind == "json_object":
        assert isinstance(raw, dict)
        schema = raw.get("schema")
        return (schema if isinstance(schema, dict) else None), True
    if kind == "json_schema":
        assert isinstance(raw, dict)
        spec = raw.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, dict) else None
        if not isinstance(schema, dict):
            raise EmbeddedRequestError("'response_format.json_schema.schema' must be a JSON object")
        return schema, True
    raise EmbeddedRequestError(f"unsupported 'response_format' type: {kind!r}")


def _number(body: Mapping[str, Any], key: str, default: float) -> float:
    value = body.get(key)
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise EmbeddedRequestError(f"'{key}' must be a number")
    return float(value)


def _sampling(body: Mapping[str, Any]) -> Sampling:
    max_tokens = body.get("max_completion_tokens", body.get("max_tokens"))
    if max_tokens is None:
        max_tokens = DEFAULT_MAX_TOKENS
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise EmbeddedRequestError("'max_tokens' must be a positive integer")
    seed = body.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise EmbeddedRequestError("'seed' must be an integer")
    stop = body.get("stop")
    stops: tuple[str, ...] = ()
    if isinstance(stop, str):
        stops = (stop,)
    elif isinstance(stop, list) and all(isinstance(s, str) for s in stop):
        stops = tuple(stop)
    elif stop is not None:
        raise EmbeddedRequestError("'stop' must be a string or a list of strings")
    return Sampling(_number(body, "temperature", 0.0), _number(body, "top_p", 1.0), max_tokens, seed, stops)


# -- rendering -----------------------------------------------------------------------------------
def _text(content: Any, role: str) -> str:
    """The text of a message's ``content`` (a string or a list of parts)."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts: list[str] = []
        for part in content:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            else:
                raise EmbeddedRequestError(
                    f"the embedded model reads text only; a {role} message has a part of type "
                    f"'{kind or 'unknown'}' (images and files other than text need a model served with "
                    "vision support)"
                )
        return "\n\n".join(texts)
    raise EmbeddedRequestError(f"a {role} message has a 'content' that is neither text nor a list of parts")


def tools_section(tools: tuple[ToolSpec, ...]) -> str:
    lines = ["You can call these functions:", ""]
    for tool in tools:
        lines.append(f"{CALL_PREFIX}{tool.name}: {tool.description}".rstrip())
        lines.append("Parameters (JSON Schema): " + json.dumps(tool.parameters, ensure_ascii=False))
        lines.append("")
    lines.append(
        f"To call a function, reply with '{CALL_PREFIX}<name>:' and its JSON arguments on the next line. "
        f"To reply to the user, begin with '{MESSAGE_PREFIX}'."
    )
    return "\n".join(lines)


def _turn(role: str, text: str) -> str:
    return f"<|im_start|>{role}\n{text}{END}\n"


def call_text(name: str, arguments: str) -> str:
    return f"{CALL_PREFIX}{name}:\n{arguments}"


def render(messages: list[Any], tools: tuple[ToolSpec, ...]) -> str:
    """The ChatML prompt: system (with the tools), the conversation, the assistant's opening."""
    system: list[str] = []
    turns: list[str] = []
    names: dict[str, str] = {}
    for message in messages:
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise EmbeddedRequestError("every message must be an object with a 'role'")
        role = message["role"]
        if role in ("system", "developer"):
            system.append(_text(message.get("content"), role))
        elif role == "user":
            turns.append(_turn("user", _text(message.get("content"), role)))
        elif role == "assistant":
            parts = [t for t in [_text(message.get("content"), role)] if t]
            for call in message.get("tool_calls") or ():
                function = call.get("function") if isinstance(call, dict) else None
                if not isinstance(function, dict) or not isinstance(function.get("name"), str):
                    raise EmbeddedRequestError("an assistant tool call has no function 'name'")
                if isinstance(call.get("id"), str):
                    names[call["id"]] = function["name"]
                arguments = function.get("arguments")
                parts.append(call_text(function["name"], arguments if isinstance(arguments, str) else "{}"))
            turns.append(_turn("assistant", "\n".join(parts)))
        elif role == "tool":
            name = names.get(str(message.get("tool_call_id")), "the function")
            turns.append(
                _turn("user", f"Result of {name}:\n{_text(message.get('content'), role)}\n\n{RESULT_NOTE}")
            )
        else:
            raise EmbeddedRequestError(f"unsupported message role '{role}'")
    system_text = "\n\n".join(s for s in system if s) or DEFAULT_SYSTEM
    if tools:
        system_text += "\n\n" + tools_section(tools)
    return _turn("system", system_text) + "".join(turns) + "<|im_start|>assistant\n"
