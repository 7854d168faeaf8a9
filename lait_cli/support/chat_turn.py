"""What every chat command shares (bare ``lait [PROMPT]``, ``lait chat`` and its REPL, ``lait prompt
run``, ``lait compare``): the chat options, the config and the plan of one turn, the request, how the
answer is shown, and the saved session."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from lait_cli.support.common import fail
from lait_cli.support.record_flags import RecordFlags
from lait_cli.support.stdin_input import stdin_is_tty

if TYPE_CHECKING:
    from lait_cli.support.terminal import ChatTerminal, Interrupts
    from lait_core.documents.document_models import Config, LlmKeys
    from lait_core.engine.llm.chat_types import (
        ChatRequest,
        ChatResponse,
        DeltaSink,
        JsonObject,
    )
    from lait_core.engine.llm.client import ModelCaller
    from lait_core.engine.llm.conversation import Reply
    from lait_core.engine.llm.llm_settings import LlmSettings
    from lait_core.engine.records.sender import RunRecords
    from lait_core.engine.run.tool_loop import LoopResult


# -- options -------------------------------------------------------------------------------------
SCHEMA_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")


DEFAULT_SCHEMA_NAME = "structured_output"


def schema_name(value: str | None) -> str | None:
    if value is not None and SCHEMA_NAME.fullmatch(value) is None:
        raise typer.BadParameter(f"'{value}' must be 1-64 characters of [A-Za-z0-9_-]")
    return value


@dataclass(slots=True)
class ChatOptions:
    prompt: str | None = None
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    system: str | None = None
    system_file: Path | None = None
    show_reasoning: bool = False
    show_usage: bool = False
    reasoning_effort: str | None = None
    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int | None = None
    tools: list[str] = field(default_factory=list)
    mcp: list[str] = field(default_factory=list)
    subagents: list[str] = field(default_factory=list)
    output: str | None = None
    json: bool = False
    render: bool = False
    quiet: bool = False
    stream: bool = False
    json_schema: Path | None = None
    schema_name: str | None = None
    files: list[str] = field(default_factory=list)
    images: list[str] = field(default_factory=list)
    approve_tools: bool = False
    config: Path | None = None
    no_config: bool = False
    verbose: int = 0
    prompt_name: str | None = None
    """``-p NAME``: render ``prompts.NAME.template`` with PROMPT/stdin as ``{{ input }}``."""
    vars: list[str] = field(default_factory=list)
    """``--var KEY=VALUE`` options (a named prompt's ``vars:`` overrides)."""
    session: str | None = None
    """``--session NAME``: the conversation in ``.lait/sessions/NAME.jsonl``."""
    record: Path | None = None
    replay: Path | None = None
    no_history: bool = False
    cache: bool | None = None

    @property
    def output_file(self) -> Path | None:
        """``-o PATH`` (``-o -`` is stdout, so None)."""
        return Path(self.output) if self.output not in (None, "-") else None


def chat_options(
    *,
    tool: list[str] | None = None,
    mcp: list[str] | None = None,
    subagent: list[str] | None = None,
    file: list[str] | None = None,
    image: list[str] | None = None,
    var: list[str] | None = None,
    **values: Any,
) -> ChatOptions:
    """The :class:`ChatOptions` of a command's parsed options (``lait [PROMPT]``, ``lait chat``): the
    repeatable options arrive as None or a list, under their option names."""
    return ChatOptions(
        tools=list(tool or []),
        mcp=list(mcp or []),
        subagents=list(subagent or []),
        files=list(file or []),
        images=list(image or []),
        vars=list(var or []),
        **values,
    )


# -- the run -------------------------------------------------------------------------------------
def usage_error(message: str) -> NoReturn:
    raise fail(message, 2)


def check_usage(o: ChatOptions) -> None:
    if o.config is not None and o.no_config:
        usage_error("--config and --no-config cannot be used together")
    if o.system is not None and o.system_file is not None:
        usage_error("--system and --system-file cannot be used together")
    if o.json and o.stream:
        usage_error("--json and --stream cannot be used together")
    if o.schema_name is not None and o.json_schema is None:
        usage_error("--schema-name requires --json-schema")


def read_prompt(prompt: str | None) -> str:
    """The prompt text after the stdin rules: ``-`` reads stdin; piped stdin is read too (appended
    after PROMPT as ``"{PROMPT}\\n\\n{piped}"``); whitespace-only piped text counts as absent and
    trailing ``\\r``/``\\n`` are stripped."""
    from lait_cli.support.run_setup import read_optional_prompt

    text = read_optional_prompt(prompt)
    if text is not None:
        return text
    if stdin_is_tty():
        usage_error(
            "a PROMPT is required; provide one or pipe input via stdin (the interactive REPL is not "
            "available in this version)"
        )
    usage_error("a PROMPT is required; provide one or pipe input via stdin (stdin was empty)")


def load_chat_config(o: ChatOptions) -> tuple[Config, Path]:
    """The merged config and the folder of the project config in use (else the working directory)."""
    from lait_cli.support.run_setup import load_cli_config

    return load_cli_config(o.config, o.no_config)


def _read_text(path: Path, what: str) -> str:
    from lait_core.engine.llm.attachments import AttachmentError, read_text

    try:
        return read_text(path, what)
    except AttachmentError as exc:
        raise fail(str(exc), 1) from None


def user_content(text: str, files: list[str], images: list[str]) -> str | list[JsonObject]:
    from lait_core.engine.llm.attachments import AttachmentError
    from lait_core.engine.llm.attachments import user_content as build

    try:
        return build(text, files, images, file_flag="--file", image_flag="--image")
    except AttachmentError as exc:
        raise fail(str(exc), 1) from None


def system_prompt(o: ChatOptions, config: Config) -> str | None:
    if o.system is not None:
        return o.system
    if o.system_file is not None:
        return _read_text(o.system_file, "--system-file")
    return config.default.system


def output_schema(o: ChatOptions) -> JsonObject | None:
    """The ``--json-schema`` file's schema (Structured Outputs), or None."""
    if o.json_schema is None:
        return None
    text = _read_text(o.json_schema, "--json-schema")
    try:
        schema = json.loads(text)
    except ValueError as exc:
        raise fail(f"--json-schema '{o.json_schema}' is not valid JSON: {exc}", 1) from None
    if not isinstance(schema, dict):
        raise fail(f"--json-schema '{o.json_schema}' must hold a JSON object (a JSON Schema)", 1)
    return schema


@dataclass(slots=True)
class Plan:
    """Everything one chat run needs, resolved before any request is sent."""

    config: Config
    config_dir: Path
    settings: LlmSettings
    system: str | None
    user: str | list[JsonObject]
    schema: JsonObject | None
    schema_name: str
    stream: bool
    include_usage: bool


def _cli_layer(o: ChatOptions) -> LlmKeys:
    """The chat flags as the first settings layer; an absent list flag (empty) falls back."""
    from lait_core.documents.document_models import LlmKeys

    fields: dict[str, Any] = {
        "model": o.model,
        "reasoning_effort": o.reasoning_effort,
        "temperature": o.temperature,
        "top_p": o.top_p,
        "max_tokens": o.max_tokens,
        "mcp": list(o.mcp) or None,
        "tools": list(o.tools) or None,
        "subagents": list(o.subagents) or None,
    }
    return LlmKeys.model_construct(**fields)


def make_plan(o: ChatOptions, config: Config, config_dir: Path, prompt: str) -> Plan:
    """Resolve the settings (model, sampling, tools, MCP servers, subagents, skills) and the
    messages (ConfigurationError on bad values)."""
    from lait_core.engine.llm.llm_settings import resolve_llm_settings

    if not (o.model or config.default.model):
        raise fail(
            "no model given; pass --model NAME, set LLM_MODEL, or set 'default.model' in lait.config.yml", 1
        )
    settings = resolve_llm_settings(
        "chat",
        [_cli_layer(o)],
        config,
        base_url_override=o.base_url,
        api_key_override=o.api_key,
    )
    return Plan(
        config=config,
        config_dir=config_dir,
        settings=settings,
        system=system_prompt(o, config),
        user=user_content(prompt, o.files, o.images),
        schema=output_schema(o),
        schema_name=o.schema_name or DEFAULT_SCHEMA_NAME,
        stream=o.stream,
        include_usage=o.show_usage and not o.quiet,
    )


def describe(plan: Plan, terminal: ChatTerminal) -> None:
    """The ``-v`` lines: model, endpoint, key source (never the key), sampling, tools."""
    if terminal.verbosity < 1:
        return
    m = plan.settings.model
    endpoint = m.endpoints[0]
    try:
        base_url = endpoint.base_url()
    except Exception as exc:  # reported properly when the request is made
        base_url = f"<{exc}>"
    alias = f" (alias '{m.alias}')" if m.alias else ""
    terminal.debug(f"model: {m.model_id}{alias} at {base_url}; api key: {endpoint.key.log_kind}")
    if len(m.endpoints) > 1:
        terminal.debug(f"fallbacks: {', '.join(e.model_id for e in m.endpoints[1:])}")
    s = plan.settings.sampling
    terminal.debug(
        f"sampling: reasoning_effort={s.reasoning_effort} temperature={s.temperature} top_p={s.top_p} "
        f"max_tokens={s.max_tokens}"
    )
    st = plan.settings
    for what, names in (
        ("mcp", st.mcp),
        ("subagents", st.subagents),
        ("tools", st.tools),
        ("skills", st.skills),
    ):
        if names:
            terminal.debug(f"{what}: {', '.join(names)}")
    if st.uses_tools:
        terminal.debug(f"max_tool_rounds: {st.max_tool_rounds}")


class TracingSender:
    """``-vv``: every request body and response on stderr, around the real sender."""

    def __init__(self, inner: ModelCaller, terminal: ChatTerminal) -> None:
        self.inner = inner
        self.terminal = terminal

    def _request(self, request: ChatRequest) -> None:
        body = request.body(self.inner.model.model_id)
        self.terminal.debug("request: " + json.dumps(body, ensure_ascii=False))

    def _response(self, response: ChatResponse) -> None:
        shown = {
            "content": response.content,
            "reasoning": response.reasoning,
            "tool_calls": [c.wire() for c in response.tool_calls],
            "usage": response.usage.as_dict() if response.usage else None,
            "model": response.model,
        }
        self.terminal.debug("response: " + json.dumps(shown, ensure_ascii=False))

    async def complete(self, request: ChatRequest) -> ChatResponse:
        self._request(request)
        response = await self.inner.complete(request)
        self._response(response)
        return response

    async def stream(self, request: ChatRequest, on_delta: DeltaSink | None = None) -> ChatResponse:
        self._request(request)
        response = await self.inner.stream(request, on_delta)
        self._response(response)
        return response


async def run_chat(
    plan: Plan,
    o: ChatOptions,
    terminal: ChatTerminal,
    interrupts: Interrupts,
    history: list[JsonObject] | None = None,
    records: RunRecords | None = None,
) -> Reply:
    """One conversation in a run session; MCP servers and the HTTP client are closed in every case."""
    from lait_core.engine.llm.conversation import converse
    from lait_core.engine.run.run_session import RunSession

    def tracing(caller: ModelCaller) -> TracingSender:
        return TracingSender(caller, terminal)

    async with RunSession.open(
        plan.config,
        plan.config_dir,
        terminal,
        approve_tools=o.approve_tools,
        keep_grants=True,
        on_spawn=interrupts.on_spawn,
        wrap_sender=tracing if terminal.verbosity >= 2 else None,
        records=records,
    ) as session:
        return await converse(
            session,
            plan.settings,
            system=plan.system,
            user=plan.user,
            output_schema=plan.schema,
            schema_name=plan.schema_name,
            parse_output=False,
            stream=plan.stream,
            include_usage=plan.include_usage,
            history=history or (),
        )


def present(o: ChatOptions, plan: Plan, result: LoopResult, terminal: ChatTerminal, render: bool) -> None:
    """Print (or write) the answer of a successful run."""
    from lait_cli.support.answer_output import render_markdown, usage_line, write_output

    response = result.response
    content = response.content or ""
    reasoning = response.reasoning
    if o.json:
        usage = result.usage.as_dict() if terminal.usage_seen else None
        payload = {"content": content, "reasoning": reasoning, "usage": usage}
        write_output(o.output_file, json.dumps(payload, ensure_ascii=False, indent=2) + "\n")
    elif not o.stream:
        if o.show_reasoning and not o.quiet and reasoning:
            if o.output_file is not None:
                sys.stderr.write(f"Reasoning:\n{reasoning}\n")
            else:
                sys.stdout.write(f"Reasoning:\n{reasoning}\n\n")
        if render and o.output_file is None and sys.stdout.isatty():
            render_markdown(content)
        else:
            write_output(o.output_file, content + "\n")
    if o.show_usage and not o.quiet:
        sys.stderr.write(usage_line(result.usage, terminal.cost_text()) + "\n")


def named_prompt(o: ChatOptions, config: Config, text: str) -> str:
    """``-p NAME``: the rendered template; the prompt's ``model`` fills in for a missing ``--model``."""
    from lait_core.documents.named_prompts import UsageError, find_prompt, parse_vars, render_prompt
    from lait_core.engine.llm.chat_types import EngineError

    assert o.prompt_name is not None
    try:
        overrides = parse_vars(o.vars)
    except UsageError as exc:
        usage_error(str(exc))
    try:
        definition = find_prompt(config, o.prompt_name)
        rendered = render_prompt(o.prompt_name, definition, text, overrides)
    except EngineError as exc:
        raise fail(str(exc), 1) from None
    if o.model is None:
        o.model = definition.model
    return rendered


def session_history(o: ChatOptions) -> list[JsonObject]:
    """The stored turns of ``--session NAME`` (none without it)."""
    if o.session is None:
        return []
    from lait_core.engine.records.saved_sessions import SessionError, load, session_path

    try:
        loaded = load(session_path(o.session))
    except SessionError as exc:
        raise fail(str(exc), 1) from None
    if loaded.skipped:
        sys.stderr.write(f"lait: session '{o.session}': skipped {loaded.skipped} unreadable line(s)\n")
    return loaded.messages


def save_turn(o: ChatOptions, user: str | list[JsonObject], answer: str) -> None:
    """Append a successful turn to ``--session NAME``."""
    if o.session is None:
        return
    from lait_core.engine.records.saved_sessions import append, session_path

    try:
        append(
            session_path(o.session),
            [{"role": "user", "content": user}, {"role": "assistant", "content": answer}],
        )
    except OSError as exc:
        sys.stderr.write(f"lait: cannot save session '{o.session}': {exc.strerror or exc}\n")


def record_flags(o: ChatOptions) -> RecordFlags:
    from lait_cli.support.run_setup import global_cache

    cache = o.cache if o.cache is not None else global_cache()
    return RecordFlags(o.record, o.replay, None, cache, o.no_history)
