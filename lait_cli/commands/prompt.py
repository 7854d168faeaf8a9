"""`lait prompt list` and `lait prompt run NAME [INPUT]`: the config's named prompts
(docs/cli.md). ``run`` is chat with ``-p NAME``: the model comes from ``prompts.NAME.model``, then ``default.model`` (no ``--model``); ``--var`` overrides ``vars:``."""

from __future__ import annotations

import json
import sys
from typing import Annotated

import typer

from lait_cli.support.options import (
    ConfigOption,
    JsonOption,
    NoConfigOption,
    NoHistoryOption,
    OutputOption,
    RenderOption,
    ShowUsageOption,
)
from lait_cli.support.run_setup import Common

prompt_app = typer.Typer(
    name="prompt",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="List and run the named prompts of lait.config.yml ('prompts:').",
)


def register(app: typer.Typer) -> None:
    app.add_typer(
        prompt_app, name="prompt", help="List and run the named prompts of lait.config.yml ('prompts:')."
    )


@prompt_app.command(name="list", help="List the prompts under 'prompts:' (name, model, first template line).")
def list_prompts(
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    from lait_cli.support.run_setup import load_run_config

    loaded, _folder = load_run_config(Common(config, no_config).merged())
    prompts = loaded.prompts
    if as_json:
        entries = [
            {"name": name, "model": p.model, "vars": p.vars, "template": p.template}
            for name, p in prompts.items()
        ]
        sys.stdout.write(json.dumps(entries, indent=2, ensure_ascii=False) + "\n")
        return
    if not prompts:
        sys.stderr.write("lait: no prompts are defined under 'prompts:' in lait.config.yml\n")
        return
    width = max(len(n) for n in prompts)
    model_width = max(len(p.model or "-") for p in prompts.values())
    for name, p in prompts.items():
        first = next((line.strip() for line in p.template.splitlines() if line.strip()), "")
        sys.stdout.write(f"{name:<{width}}  {p.model or '-':<{model_width}}  {first}".rstrip() + "\n")


@prompt_app.command(name="run", help="Run a named prompt with INPUT (or stdin) as {{ input }}.")
def run_prompt(
    name: Annotated[str, typer.Argument(metavar="NAME", help="A name under 'prompts:'.")],
    input_: Annotated[
        str | None,
        typer.Argument(metavar="INPUT", help="The {{ input }}; '-' reads stdin.", show_default=False),
    ] = None,
    var: Annotated[
        list[str] | None,
        typer.Option("--var", metavar="KEY=VALUE", help="Override one of the prompt's vars (repeatable)."),
    ] = None,
    output: OutputOption = None,
    json_out: JsonOption = False,
    render: RenderOption = False,
    show_usage: ShowUsageOption = False,
    no_history: NoHistoryOption = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
) -> None:
    from lait_cli.commands.single_shot import execute
    from lait_cli.support.chat_turn import ChatOptions
    from lait_cli.support.common import GLOBALS
    from lait_cli.support.terminal import exit_now, prompt_threads_alive

    common = Common(config, no_config).merged()
    options = ChatOptions(
        prompt=input_,
        prompt_name=name,
        vars=list(var or []),
        output=output,
        json=json_out,
        render=render,
        show_usage=show_usage,
        config=common.config,
        no_config=common.no_config,
        verbose=GLOBALS.verbose,
        approve_tools=GLOBALS.approve_tools,
        no_history=no_history,
    )
    code = execute(options)
    if code == 130 or prompt_threads_alive():
        exit_now(code)
    raise typer.Exit(code)
