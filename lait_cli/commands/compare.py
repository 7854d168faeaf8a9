"""`lait compare --model A --model B [...] [PROMPT]` (docs/cli.md): the same prompt to each
model at once; time, usage, cost and answer side by side. On a terminal a table (rich); otherwise (or with ``--json`` / ``--markdown``) text. One failure does not
hide the others; any failure exits non-zero (by the error's type, as chat: 4 for a model API error).
"""

from __future__ import annotations

import dataclasses
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from lait_cli.support.common import GLOBALS, fail

if TYPE_CHECKING:
    from lait_cli.support.chat_turn import ChatOptions, Plan
    from lait_core.commands.model_compare import Outcome
    from lait_core.engine.run.run_session import RunSession

HELP = (
    "Send the same PROMPT (or stdin) to every --model at once and report time, usage, cost and the "
    "answers side by side (a table on a terminal; --json or --markdown otherwise)."
)


def register(app: typer.Typer) -> None:
    app.command(name="compare", help=HELP)(compare)


def compare(
    prompt: Annotated[
        str | None, typer.Argument(metavar="PROMPT", help="The prompt; '-' reads stdin.")
    ] = None,
    model: Annotated[
        list[str] | None, typer.Option("--model", metavar="NAME", help="A model alias or id (at least two).")
    ] = None,
    reasoning_effort: Annotated[
        str | None, typer.Option("--reasoning-effort", metavar="EFFORT", help="For every model.")
    ] = None,
    temperature: Annotated[float | None, typer.Option("--temperature", min=0.0, max=2.0, metavar="F")] = None,
    top_p: Annotated[float | None, typer.Option("--top-p", min=0.0, max=1.0, metavar="F")] = None,
    max_tokens: Annotated[int | None, typer.Option("--max-tokens", min=1, metavar="N")] = None,
    system: Annotated[str | None, typer.Option("--system", metavar="TEXT", help="System prompt.")] = None,
    system_file: Annotated[Path | None, typer.Option("--system-file", metavar="FILE")] = None,
    mcp: Annotated[list[str] | None, typer.Option("--mcp", metavar="NAME")] = None,
    subagent: Annotated[list[str] | None, typer.Option("--subagent", metavar="NAME")] = None,
    tool: Annotated[list[str] | None, typer.Option("--tool", metavar="NAME")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON array.")] = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="Print a Markdown report.")] = False,
) -> None:
    from lait_cli.support.chat_turn import ChatOptions, check_usage, load_chat_config, make_plan, read_prompt
    from lait_cli.support.options import check_effort
    from lait_core.engine.llm.chat_types import EngineError

    names = list(model or [])
    if len(names) < 2:
        raise fail("compare needs at least two --model options", 2)
    if as_json and markdown:
        raise fail("--json and --markdown cannot be used together", 2)
    check_effort(reasoning_effort)
    base = ChatOptions(
        reasoning_effort=reasoning_effort,
        temperature=temperature,
        top_p=top_p,
        max_tokens=max_tokens,
        system=system,
        system_file=system_file,
        mcp=list(mcp or []),
        subagents=list(subagent or []),
        tools=list(tool or []),
        config=GLOBALS.config,
        no_config=GLOBALS.no_config,
        approve_tools=GLOBALS.approve_tools,
        verbose=GLOBALS.verbose,
    )
    check_usage(base)
    text = read_prompt(prompt)
    config, config_dir = load_chat_config(base)
    plans: list[tuple[str, Plan]] = []
    for name in names:
        options = dataclasses.replace(base, model=name)
        try:
            plans.append((name, make_plan(options, config, config_dir, text)))
        except EngineError as exc:
            raise fail(f"--model {name}: {exc}", 1) from None
    outcomes, code = run_all(plans, base, config, config_dir)
    from lait_core.commands.model_compare import render_blocks, render_json, render_markdown

    if as_json:
        sys.stdout.write(render_json(outcomes))
    elif markdown:
        sys.stdout.write(render_markdown(outcomes))
    elif sys.stdout.isatty():
        render_table(outcomes)
    else:
        sys.stdout.write(render_blocks(outcomes))
    if code:
        from lait_cli.support.terminal import exit_now

        if code == 130:
            exit_now(code)
        raise typer.Exit(code)


def run_all(
    plans: list[tuple[str, Plan]], base: ChatOptions, config: object, config_dir: Path
) -> tuple[list[Outcome], int]:
    """Every model's conversation concurrently in one run session; (outcomes, exit code)."""
    import asyncio

    from lait_cli.support.errors import classify_chain
    from lait_cli.support.terminal import ChatTerminal, Interrupts, run_interruptible
    from lait_core.commands.model_compare import Outcome, cost
    from lait_core.engine.run.run_session import RunSession

    terminal = ChatTerminal(quiet=True, verbosity=base.verbose)
    interrupts = Interrupts()
    codes: list[int] = []

    async def one(session: RunSession, name: str, plan: Plan) -> Outcome:
        from lait_core.engine.llm.conversation import converse

        model_id = plan.settings.model.model_id
        start = time.perf_counter()
        try:
            reply = await converse(session, plan.settings, system=plan.system, user=plan.user)
        except Exception as exc:
            elapsed = int((time.perf_counter() - start) * 1000)
            try:
                code, message = classify_chain(exc, interrupts.sigint > 0)
            except Exception:
                code, message = 1, f"{type(exc).__name__}: {exc}"
            codes.append(code)
            return Outcome(name, model_id, elapsed, error=message)
        elapsed = int((time.perf_counter() - start) * 1000)
        u = reply.usage
        primary = plan.settings.model.primary
        pricing = primary.pricing if primary is not None else None
        seen = reply.loop.response.usage is not None
        return Outcome(
            name,
            model_id,
            elapsed,
            content=reply.text,
            prompt_tokens=u.prompt_tokens if seen else None,
            completion_tokens=u.completion_tokens if seen else None,
            total_tokens=u.total_tokens if seen else None,
            cost_usd=cost(u.prompt_tokens, u.completion_tokens, pricing.input_per_1m, pricing.output_per_1m)
            if pricing is not None and seen
            else None,
        )

    async def go() -> list[Outcome]:
        async with RunSession.open(
            config,  # type: ignore[arg-type]
            config_dir,
            terminal,
            approve_tools=base.approve_tools,
            on_spawn=interrupts.on_spawn,
        ) as session:
            return list(await asyncio.gather(*(one(session, name, plan) for name, plan in plans)))

    try:
        outcomes = run_interruptible(go(), interrupts)
    except BaseException as exc:
        if isinstance(exc, KeyboardInterrupt | SystemExit):
            raise
        code, message = classify_chain(exc, interrupts.sigint > 0)
        raise fail(message, code) from None
    if interrupts.sigint:
        return outcomes, 130
    return outcomes, (codes[0] if codes else 0)


def render_table(outcomes: list[Outcome]) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(show_lines=True)
    for column in ("model", "time", "usage", "cost", "answer"):
        table.add_column(column, justify="right" if column in ("time", "cost") else "left")
    for o in outcomes:
        usage = (
            "-" if o.total_tokens is None else f"{o.prompt_tokens} + {o.completion_tokens} = {o.total_tokens}"
        )
        cost_text = "-" if o.cost_usd is None else f"${o.cost_usd:.6f}"
        answer = (o.content or "") if o.ok else f"error: {o.error}"
        table.add_row(f"{o.model}\n({o.model_id})", f"{o.duration_ms} ms", usage, cost_text, answer)
    Console().print(table)
