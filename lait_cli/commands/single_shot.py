"""`lait [OPTIONS] [PROMPT]`: single-shot chat (docs/cli.md).

Dispatch (:func:`lait_cli.dispatch.select`): when the first positional argument is a subcommand
name, the subcommand tree runs (a chat option before the subcommand is a usage error); otherwise
this module's command runs with the chat options flattened onto ``lait`` itself, so ``lait hello``,
``lait --model m hello``, ``lait hello --model m``, ``echo hi | lait`` and ``lait -- lint`` (the
prompt "lint") are chats.

A chat run: read the prompt (PROMPT, ``-``, piped stdin), load the config, attach ``--file`` and
``--image``, resolve the model and sampling, then run the engine's tool loop (the fast path when no
tools are offered) under the Ctrl-C protocol and print the answer. Exit codes follow docs/cli.md: 2
usage, 3 config files, 4 model API errors, 5 interruptions without SIGINT, 130 after SIGINT, 1
anything else, always reported as ``lait: <message>``.

Top-level imports are typer and the standard library only; the engine (httpx) is imported when a
chat actually runs, never for ``lait --version`` or ``lait lint``.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lait_cli.support.common import check_output_path, fail, print_version
from lait_cli.support.errors import classify_chain
from lait_cli.support.options import (
    ApiKeyOption,
    ApproveToolsOption,
    BaseUrlOption,
    CacheOption,
    ConfigOption,
    JsonOption,
    MaxTokensOption,
    McpNamesOption,
    ModelOption,
    NoCacheOption,
    NoConfigOption,
    NoHistoryOption,
    ReasoningEffortOption,
    RecordOption,
    ReplayOption,
    SessionOption,
    ShowReasoningOption,
    ShowUsageOption,
    SubagentNamesOption,
    SystemFileOption,
    SystemOption,
    TemperatureOption,
    ToolNamesOption,
    TopPOption,
)
from lait_cli.support.stdin_input import stdin_is_tty
from lait_cli.support.usage import LaitCommand

if TYPE_CHECKING:
    pass
from lait_cli.support.chat_turn import (
    ChatOptions,
    chat_options,
    check_usage,
    describe,
    load_chat_config,
    make_plan,
    named_prompt,
    present,
    read_prompt,
    record_flags,
    run_chat,
    save_turn,
    schema_name,
    session_history,
    usage_error,
)


# -- the command (dispatched by lait_cli.dispatch.select) -----------------------------------------
def chat_app(commands: dict[str, str]) -> typer.Typer:
    lines = ["\b", "Commands (lait COMMAND --help):"]
    width = max((len(n) for n in commands), default=0)
    lines.extend(f"  {name:<{width}}  {text}".rstrip() for name, text in commands.items())
    chat_typer = typer.Typer(add_completion=False, pretty_exceptions_enable=False, rich_markup_mode=None)
    chat_typer.command(name="lait", help=HELP, epilog="\n".join(lines), cls=LaitCommand)(chat)
    return chat_typer


HELP = (
    "Send PROMPT to a model and print the answer (single-shot chat). PROMPT '-' reads stdin; "
    "piped stdin is appended to PROMPT as context. Shell tools from the config's 'tools:' are "
    "offered with --tool (default: default.tools), MCP servers with --mcp (default: default.mcp), "
    "subagents with --subagent (default: default.subagents); default.skills are appended to the "
    "system prompt."
)


def chat(
    prompt: Annotated[
        str | None,
        typer.Argument(metavar="PROMPT", help="The user message; '-' reads stdin.", show_default=False),
    ] = None,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
    system: SystemOption = None,
    system_file: SystemFileOption = None,
    show_reasoning: ShowReasoningOption = False,
    show_usage: ShowUsageOption = False,
    reasoning_effort: ReasoningEffortOption = None,
    temperature: TemperatureOption = None,
    top_p: TopPOption = None,
    max_tokens: MaxTokensOption = None,
    tool: ToolNamesOption = None,
    mcp: McpNamesOption = None,
    subagent: SubagentNamesOption = None,
    output: Annotated[
        str | None,
        typer.Option("--output", "-o", metavar="PATH", help="Write the answer to a file ('-': stdout)."),
    ] = None,
    json_out: JsonOption = False,
    render: Annotated[bool, typer.Option("--render", help="Render the answer as terminal Markdown.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="Print only the answer.")] = False,
    stream: Annotated[bool, typer.Option("--stream", help="Stream the answer as it arrives.")] = False,
    json_schema: Annotated[
        Path | None,
        typer.Option("--json-schema", metavar="FILE", help="Structured Outputs: a JSON Schema file."),
    ] = None,
    schema_name: Annotated[
        str | None,
        typer.Option(
            "--schema-name", callback=schema_name, metavar="NAME", help="Default structured_output."
        ),
    ] = None,
    file: Annotated[
        list[str] | None,
        typer.Option("--file", metavar="PATH", help="Attach a file to the prompt (repeatable)."),
    ] = None,
    image: Annotated[
        list[str] | None,
        typer.Option(
            "--image", metavar="PATH_OR_URL", help="Attach an image file or http(s) URL (repeatable)."
        ),
    ] = None,
    session: SessionOption = None,
    prompt_name: Annotated[
        str | None,
        typer.Option(
            "--prompt-name",
            "-p",
            metavar="NAME",
            help="Render the config's prompts.NAME.template with PROMPT/stdin as {{ input }}.",
        ),
    ] = None,
    var: Annotated[
        list[str] | None,
        typer.Option("--var", metavar="KEY=VALUE", help="Override a named prompt's vars (repeatable)."),
    ] = None,
    approve_tools: ApproveToolsOption = False,
    record: RecordOption = None,
    replay: ReplayOption = None,
    no_history: NoHistoryOption = False,
    cache: CacheOption = False,
    no_cache: NoCacheOption = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
    no_env: Annotated[bool, typer.Option("--no-env", help="Do not read ./.env.")] = False,
    verbose: Annotated[
        int,
        typer.Option(
            "--verbose", "-v", count=True, show_default=False, help="Debug output on stderr (-vv: bodies)."
        ),
    ] = 0,
    version: Annotated[
        bool,
        typer.Option(
            "--version", "-V", callback=print_version, is_eager=True, help="Print the version and exit."
        ),
    ] = False,
) -> None:
    options = chat_options(
        prompt=prompt,
        model=model,
        base_url=base_url,
        api_key=api_key,
        system=system,
        system_file=system_file,
        show_reasoning=show_reasoning,
        show_usage=show_usage,
        reasoning_effort=reasoning_effort,
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        tool=tool,
        mcp=mcp,
        subagent=subagent,
        output=output,
        json=json_out,
        render=render,
        quiet=quiet,
        stream=stream,
        json_schema=json_schema,
        schema_name=schema_name,
        file=file,
        image=image,
        approve_tools=approve_tools,
        config=config,
        no_config=no_config,
        verbose=verbose,
        prompt_name=prompt_name,
        var=var,
        session=session,
        record=record,
        replay=replay,
        no_history=no_history,
        cache=True if cache else False if no_cache else None,
    )
    code = execute(options)
    from lait_cli.support.terminal import exit_now, prompt_threads_alive

    if code == 130 or prompt_threads_alive():
        # after Ctrl-C, skip the interpreter's shutdown (a second Ctrl-C there would kill the process
        # by the signal instead of exiting 130); an abandoned prompt thread may still block in a
        # read of stdin, holding a lock the shutdown would wait for
        exit_now(code)
    raise typer.Exit(code)


def execute(o: ChatOptions) -> int:
    """One chat; returns the exit code (usage and config errors exit through :func:`fail`)."""
    check_usage(o)
    if o.prompt_name is None and o.vars:
        usage_error("--var needs a named prompt (-p/--prompt-name NAME)")
    if o.session is not None:
        from lait_core.engine.records.saved_sessions import SessionError, check_name

        try:
            check_name(o.session)
        except SessionError as exc:
            usage_error(str(exc))
    if o.prompt is None and o.prompt_name is None and stdin_is_tty():
        from lait_cli.support.repl import run_repl

        return run_repl(o)  # no PROMPT on a terminal: the REPL (docs/cli.md)
    # before the config and any request: an answer that cannot be written is not asked for
    check_output_path(o.output_file, "the answer")
    if o.prompt_name is not None:
        from lait_cli.support.run_setup import read_optional_prompt

        prompt = read_optional_prompt(o.prompt) or ""
    else:
        prompt = read_prompt(o.prompt)
    config, config_dir = load_chat_config(o)
    if o.prompt_name is not None:
        prompt = named_prompt(o, config, prompt)

    from lait_cli.support.record_flags import build_records, finish
    from lait_cli.support.terminal import ChatTerminal, Interrupts, LazyFile, run_interruptible
    from lait_core.engine.llm.chat_types import EngineError

    try:
        plan = make_plan(o, config, config_dir, prompt)
    except EngineError as exc:
        raise fail(str(exc), 1) from None
    sink = LazyFile(o.output_file) if o.stream and o.output_file is not None else None
    terminal = ChatTerminal(
        quiet=o.quiet,
        verbosity=o.verbose,
        stdout=sink if sink is not None else sys.stdout,
        show_reasoning=o.show_reasoning and not o.quiet,
        reasoning_to_stderr=o.output_file is not None,
    )
    describe(plan, terminal)
    flags = record_flags(o)
    records = build_records(config, flags, "lait --record DIR PROMPT")
    interrupts = Interrupts()
    try:
        history = session_history(o)
        reply = run_interruptible(run_chat(plan, o, terminal, interrupts, history, records), interrupts)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        code, message = classify_chain(exc, interrupts.sigint > 0)
        sys.stderr.write(f"lait: {message}\n")
        return code
    finally:
        if sink is not None:
            sink.close()
    if interrupts.sigint:
        sys.stderr.write("lait: interrupted\n")
        return 130
    render = o.render or bool(config.default.render)
    save_turn(o, plan.user, reply.text)
    present(o, plan, reply.loop, terminal, render and not o.json and not o.stream)
    usage = reply.usage if terminal.usage_seen else None
    kind = "prompt" if o.prompt_name is not None else "chat"
    finish(config, flags, records, kind, plan.settings.model.name, prompt, reply.text, usage)
    return 0
