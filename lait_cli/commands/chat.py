"""`lait chat`: the REPL (docs/cli.md) with the shared chat options only (declared in
:mod:`lait_cli.support.options`, turned into :class:`~lait_cli.support.chat_turn.ChatOptions` by the same builder as
``lait [PROMPT]``); the REPL itself is :mod:`lait_cli.support.repl` (imported when it starts). Bare
``lait`` with no PROMPT on a terminal starts the same REPL through the chat command."""

from __future__ import annotations

from typing import Annotated

import typer

from lait_cli.support.options import (
    ApiKeyOption,
    BaseUrlOption,
    MaxTokensOption,
    McpNamesOption,
    ModelOption,
    ReasoningEffortOption,
    SessionOption,
    ShowReasoningOption,
    SubagentNamesOption,
    SystemFileOption,
    SystemOption,
    TemperatureOption,
    ToolNamesOption,
    TopPOption,
)

HELP = (
    "Chat in a REPL: every turn streams, tools included. /exit, /clear, /model NAME, /system TEXT, "
    "/help; Ctrl-R searches the history; Esc-Enter or a trailing \\ adds a line; Ctrl-C cancels a turn."
)


def register(app: typer.Typer) -> None:
    # extra arguments are accepted only to say that one question is `lait "PROMPT"` (see chat())
    app.command(name="chat", help=HELP, context_settings={"allow_extra_args": True})(chat)


def chat(
    ctx: typer.Context,
    model: ModelOption = None,
    base_url: BaseUrlOption = None,
    api_key: ApiKeyOption = None,
    system: SystemOption = None,
    system_file: SystemFileOption = None,
    show_reasoning: ShowReasoningOption = False,
    show_usage: Annotated[
        bool, typer.Option("--show-usage", help="Print usage (and cost) after each turn.")
    ] = False,
    no_history: Annotated[
        bool, typer.Option("--no-history", help="Do not add the turns to `lait history`.")
    ] = False,
    reasoning_effort: ReasoningEffortOption = None,
    temperature: TemperatureOption = None,
    top_p: TopPOption = None,
    max_tokens: MaxTokensOption = None,
    mcp: McpNamesOption = None,
    subagent: SubagentNamesOption = None,
    tool: ToolNamesOption = None,
    session: SessionOption = None,
    render: Annotated[
        bool, typer.Option("--render", help="Show answers as Markdown (after they arrive).")
    ] = False,
) -> None:
    from lait_cli.support.chat_turn import chat_options, check_usage
    from lait_cli.support.common import GLOBALS, fail
    from lait_cli.support.stdin_input import stdin_is_tty
    from lait_cli.support.terminal import exit_now

    if ctx.args:
        import shlex

        question = shlex.quote(" ".join(ctx.args))
        raise fail(
            f"lait chat takes no PROMPT (it starts the REPL); for one question use: lait {question}", 2
        )
    if not stdin_is_tty():
        raise fail('lait chat needs an interactive terminal; for one question use: lait "PROMPT"', 2)
    options = chat_options(
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
        render=render,
        approve_tools=GLOBALS.approve_tools,
        config=GLOBALS.config,
        no_config=GLOBALS.no_config,
        verbose=GLOBALS.verbose,
        session=session,
        no_history=no_history,
    )
    check_usage(options)
    from lait_cli.commands.single_shot import execute

    code = execute(options)
    if code == 130:
        exit_now(code)
    raise typer.Exit(code)
