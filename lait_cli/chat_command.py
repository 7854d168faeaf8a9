"""`lait chat`: the REPL (spec tools-mcp-cli 1.4) with the shared chat options only; the REPL
itself is :mod:`lait_cli.repl` (imported when it starts). Bare ``lait`` with no PROMPT on a
terminal starts the same REPL through the chat command."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

HELP = (
    "Chat in a REPL: every turn streams, tools included. /exit, /clear, /model NAME, /system TEXT, "
    "/help; Ctrl-R searches the history; Esc-Enter or a trailing \\ adds a line; Ctrl-C cancels a turn."
)


def register(app: typer.Typer) -> None:
    app.command(name="chat", help=HELP)(chat)


def chat(
    model: Annotated[
        str | None, typer.Option("--model", envvar="LLM_MODEL", metavar="NAME", help="A model alias or id.")
    ] = None,
    base_url: Annotated[
        str | None,
        typer.Option("--base-url", envvar="OPENAI_BASE_URL", metavar="URL", help="Base URL (pins it)."),
    ] = None,
    api_key: Annotated[
        str | None,
        typer.Option("--api-key", envvar="OPENAI_API_KEY", metavar="KEY", help="API key (pins it)."),
    ] = None,
    system: Annotated[str | None, typer.Option("--system", metavar="TEXT", help="System prompt.")] = None,
    system_file: Annotated[
        Path | None, typer.Option("--system-file", metavar="FILE", help="Read the system prompt from a file.")
    ] = None,
    show_reasoning: Annotated[
        bool, typer.Option("--show-reasoning", help="Show the model's reasoning.")
    ] = False,
    show_usage: Annotated[
        bool, typer.Option("--show-usage", help="Print usage (and cost) after each turn.")
    ] = False,
    no_history: Annotated[
        bool, typer.Option("--no-history", help="Do not add the turns to `lait history`.")
    ] = False,
    reasoning_effort: Annotated[
        str | None,
        typer.Option(
            "--reasoning-effort", envvar="LLM_REASONING_EFFORT", metavar="EFFORT", help="none..xhigh."
        ),
    ] = None,
    temperature: Annotated[
        float | None, typer.Option("--temperature", envvar="LLM_TEMPERATURE", min=0.0, max=2.0, metavar="F")
    ] = None,
    top_p: Annotated[
        float | None, typer.Option("--top-p", envvar="LLM_TOP_P", min=0.0, max=1.0, metavar="F")
    ] = None,
    max_tokens: Annotated[
        int | None, typer.Option("--max-tokens", envvar="LLM_MAX_TOKENS", min=1, metavar="N")
    ] = None,
    mcp: Annotated[
        list[str] | None, typer.Option("--mcp", metavar="NAME", help="Offer an MCP server.")
    ] = None,
    subagent: Annotated[
        list[str] | None, typer.Option("--subagent", metavar="NAME", help="Offer an agent as a tool.")
    ] = None,
    tool: Annotated[
        list[str] | None, typer.Option("--tool", metavar="NAME", help="Offer a shell tool.")
    ] = None,
    session: Annotated[
        str | None,
        typer.Option("--session", metavar="NAME", help="Keep the conversation in .lait/sessions/NAME.jsonl."),
    ] = None,
    render: Annotated[
        bool, typer.Option("--render", help="Show answers as Markdown (after they arrive).")
    ] = False,
) -> None:
    from lait_cli.chat import ChatOptions, _effort, check_usage
    from lait_cli.commands import stdin_is_tty
    from lait_cli.common import GLOBALS, fail
    from lait_cli.terminal import exit_now

    _effort(reasoning_effort)
    if not stdin_is_tty():
        raise fail('lait chat needs an interactive terminal; for one question use: lait "PROMPT"', 2)
    options = ChatOptions(
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
        tools=list(tool or []),
        mcp=list(mcp or []),
        subagents=list(subagent or []),
        render=render,
        approve_tools=GLOBALS.approve_tools,
        config=GLOBALS.config,
        no_config=GLOBALS.no_config,
        verbose=GLOBALS.verbose,
        session=session,
        no_history=no_history,
    )
    check_usage(options)
    from lait_cli.chat import execute

    code = execute(options)
    if code == 130:
        exit_now(code)
    raise typer.Exit(code)
