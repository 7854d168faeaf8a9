"""The send-ahead path: a single-shot chat's first request, sent before typer, pydantic, asyncio and
httpx are imported (docs/decisions.md, "Command line").

:func:`send_ahead_if_chat` runs first in the ``lait`` console script. It reads argv with a small
table of the chat options whose effect on the first request it can compute from argv, the
environment and the config files, and sends that request to the model server ahead of everything else
(:mod:`lait_core.engine.llm.ahead`). Then the normal path runs in full -- typer parses argv, the config
is loaded, the engine builds its request -- and the engine uses the held answer only when its own
request is byte for byte the one sent ahead. So this module decides nothing about the run: a wrong
guess here costs a discarded local request, never a different answer.

It sends nothing (and the normal path does everything, as before) unless all of these hold:

- argv is a chat: one prompt (or piped stdin), no subcommand, only the options
  :data:`lait_cli.dispatch.CHAT_OPTIONS` marks for this module (read with the one argv scanner,
  :func:`lait_cli.dispatch.scan`), every value one that typer accepts;
- no config file is in effect (``--no-config``, or neither a project ``lait.config.yml`` nor the
  global file exists), or every key of the files in effect that can change a plain chat's first
  request is one :mod:`lait_core.engine.llm.ahead_config` reads fully (the alias, endpoint, key,
  sampling defaults and system prompt; no tools, MCP servers, subagents, skills or response cache).
  Nothing is stored anywhere (docs/decisions.md, "Command line");
- the model is not the embedded one, and the endpoint is plain ``http://`` on this machine
  (:func:`lait_core.engine.llm.ahead.send_ahead` checks that, and ``LAIT_SEND_AHEAD=0``).

Standard library only (and lait's standard-library-only modules; with a config file, lait's YAML
reader): this is what the 250 ms budget pays for.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_cli.command_table import COMMANDS, REFERENCE_COMMANDS
from lait_cli.dispatch import CHAT_OPTIONS, Token, chat_arity, scan

if TYPE_CHECKING:
    from lait_core.engine.llm.chat_types import Sampling


EMBEDDED_ALIAS = "embedded"
"""The built-in model (``lait_core.engine.embedded.locate.BUILTIN_ALIAS``; a test keeps them equal):
answered in-process, never sent ahead."""


VALUE_OPTIONS: dict[str, tuple[str, str | None]] = {
    option: (spec.ahead, spec.envvar) for option, spec in CHAT_OPTIONS.items() if spec.ahead and spec.values
}
"""Option -> (field, environment variable typer reads when the option is absent)."""

FLAGS: dict[str, str] = {
    option: spec.ahead
    for option, spec in CHAT_OPTIONS.items()
    if spec.ahead and not spec.values and option.startswith("--")
}
"""Flags that leave the request alone or that this module accounts for (``--stream``,
``--show-usage``, ``--quiet``); ``-v``/``-vv`` count as ``--verbose``."""


class NotQuick(Exception):
    """argv or the environment is outside what this module handles: send nothing ahead."""


@dataclass(slots=True)
class QuickChat:
    prompt: str | None = None
    values: dict[str, str] = field(default_factory=dict)
    flags: set[str] = field(default_factory=set)


def parse(argv: list[str]) -> QuickChat:
    """argv as a chat, or :class:`NotQuick`."""
    chat = QuickChat()
    positionals: list[Token] = []
    for token in scan(argv, chat_arity):
        if token.kind == "positional":
            positionals.append(token)
        elif token.kind == "option":
            spec = CHAT_OPTIONS.get(token.name)
            if spec is None and len(token.name) > 2 and set(token.name[1:]) == {"v"}:
                spec = CHAT_OPTIONS["-v"]  # -vv
            if spec is None or spec.ahead is None:
                raise NotQuick(token.name)
            if spec.values:
                value = token.inline if token.inline is not None else next(iter(token.values), None)
                if value is None or (token.inline is None and value.startswith("-") and value != "-"):
                    raise NotQuick(token.name)
                chat.values[spec.ahead] = value  # the last one wins, as in click
            elif token.inline is not None:
                raise NotQuick(token.name)
            else:
                chat.flags.add(spec.ahead)
    if len(positionals) > 1:
        raise NotQuick("more than one positional argument")
    if positionals:
        word = positionals[0]
        if not word.after_dashdash and (word.name in COMMANDS or word.name in REFERENCE_COMMANDS):
            raise NotQuick("a subcommand")  # `lait lint --` too: "--" after it ends lint's options
        chat.prompt = word.name
    return chat


def _value(chat: QuickChat, name: str) -> str | None:
    """The option's value, else its environment variable's (an empty one counts as unset)."""
    if name in chat.values:
        return chat.values[name]
    variable = next(env for field_name, env in VALUE_OPTIONS.values() if field_name == name)
    return (os.environ.get(variable) or None) if variable else None


NUMBER = re.compile(r"[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?")
"""The numbers read here: plain ASCII decimals (Python's ``float``/``int`` also take other digits,
``_`` and spaces, which typer's validation refuses; anything else is left to the normal path)."""


def _number(text: str | None, low: float, high: float) -> float | None:
    if text is None:
        return None
    if NUMBER.fullmatch(text) is None:
        raise NotQuick(text)
    number = float(text)
    if not (math.isfinite(number) and low <= number <= high):
        raise NotQuick(text)
    return number


def _count(text: str | None) -> int | None:
    if text is None:
        return None
    from lait_core.engine.llm.chat_types import U32_MAX

    if not text.isascii() or not text.isdigit():
        raise NotQuick(text)
    number = int(text)
    if not 1 <= number <= U32_MAX:
        raise NotQuick(text)
    return number


def _config_files(chat: QuickChat) -> list[Path]:
    """The config files the normal path will read, lowest first: the global file, then the
    project's (none with ``--no-config``)."""
    if "no_config" in chat.flags:
        return []
    from lait_core.documents.config_discovery import ConfigError, find_project_config, global_config_path

    try:
        found = [global_config_path(), find_project_config(Path.cwd())]
        return [path for path in found if path is not None and path.is_file()]
    except (ConfigError, OSError):
        raise NotQuick("config discovery failed") from None


def _sampling(chat: QuickChat) -> Sampling:
    """The sampling options, each checked as typer checks it (a bad one sends nothing)."""
    from lait_core.engine.llm.chat_types import REASONING_EFFORTS, Sampling

    effort = _value(chat, "reasoning_effort")
    if effort is not None and effort not in REASONING_EFFORTS:
        raise NotQuick(effort)
    return Sampling(
        effort,
        _number(_value(chat, "temperature"), 0.0, 2.0),
        _number(_value(chat, "top_p"), 0.0, 1.0),
        _count(_value(chat, "max_tokens")),
    )


def _prompt(chat: QuickChat) -> str:
    from lait_cli.support.stdin_input import StdinError, prompt_text

    try:
        prompt = prompt_text(chat.prompt)  # read once: the chat command gets the same text
    except StdinError:
        raise NotQuick("standard input") from None
    if prompt is None:
        raise NotQuick("no prompt")
    return prompt


Request = tuple[str, str | None, dict[str, Any]]
"""(base URL, API key or None, body) of a chat's first request."""


def first_request(chat: QuickChat) -> Request:
    """The chat's first request, or :class:`NotQuick`."""
    files = _config_files(chat)
    model = _value(chat, "model")
    if model is not None and (not model.strip() or model == EMBEDDED_ALIAS):
        raise NotQuick("an empty model name, or the embedded model")
    sampling = _sampling(chat)
    from lait_core.engine.llm.ahead_config import NotUnderstood, read_chat_config, resolve

    try:  # with no file in effect, the empty config: argv and the environment alone
        target = resolve(
            read_chat_config(files),
            model=model,
            base_url=_value(chat, "base_url"),
            api_key=_value(chat, "api_key"),
            sampling=sampling,
            system=chat.values.get("system"),
            system_given="system" in chat.values,
        )
    except NotUnderstood as exc:
        raise NotQuick(f"the config: {exc}") from None
    from lait_core.engine.llm.chat_types import ChatRequest, system_message, user_message

    prompt = _prompt(chat)
    messages = [system_message(target.system)] if target.system else []
    messages.append(user_message(prompt))
    stream = "stream" in chat.flags
    include_usage = "show_usage" in chat.flags and "quiet" not in chat.flags
    request = ChatRequest(messages, sampling=target.sampling, stream=stream, include_usage=include_usage)
    return target.base_url, target.api_key, request.body(target.model_id)


def send_ahead_if_chat(argv: list[str]) -> bool:
    """Send the first request of the chat ``argv`` describes ahead, when this module can tell what it
    is; True when a request is now held for the engine. Never raises, never prints: whatever happens
    here, the normal path runs next and reports every problem itself."""
    try:
        chat = parse(argv)  # a subcommand, --help, any option not in the table: nothing more to do
        from lait_core.engine.llm import ahead

        if not ahead.enabled():
            return False
        from lait_cli.support.environment import load_env

        load_env(argv)
        base_url, api_key, body = first_request(chat)
        from lait_core.engine.llm.wire import request_parts

        return ahead.send_ahead(request_parts(base_url, api_key, body))
    except Exception:  # NotQuick, a bad .env, anything: the normal path decides and reports
        return False
