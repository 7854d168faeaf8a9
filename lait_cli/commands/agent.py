"""`lait agent run FILE|NAME [INPUT]` and `lait agent list` (docs/workflows.md).

FILE is a path, else a name under ``agents:`` in lait.config.yml (an existing file wins, with a
note). INPUT follows the stdin rules of PROMPT and is parsed as JSON when it parses; it is checked
against the agent's ``input_schema`` before any model call, and sent raw as the user message. The
model and sampling come only from the frontmatter and the config's ``default:``.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lait_cli.support.common import fail
from lait_cli.support.options import (
    ApproveToolsOption,
    ConfigOption,
    JsonOption,
    NoConfigOption,
    NoHistoryOption,
    OutputOption,
    RecordOption,
    RenderOption,
    ReplayOption,
    ShowUsageOption,
    TraceFileOption,
    VerboseOption,
)
from lait_cli.support.record_flags import RecordFlags
from lait_cli.support.run_setup import Common, OutputOptions

if TYPE_CHECKING:
    from lait_core.documents.document_models import Config
    from lait_core.engine.run.agent_run import AgentDefinition

agent_app = typer.Typer(
    name="agent",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Run agent files; list the registered agents.",
)


def register(app: typer.Typer) -> None:
    app.add_typer(agent_app, name="agent", help="Run agent files; list the registered agents.")


@agent_app.command(name="run", help="Run an agent file (or a name from the config's 'agents:') on INPUT.")
def run(
    file: Annotated[str, typer.Argument(metavar="FILE", help="An agent Markdown file or an 'agents:' name.")],
    input_text: Annotated[
        str | None,
        typer.Argument(
            metavar="INPUT", help="The input (JSON when it parses); '-' reads stdin.", show_default=False
        ),
    ] = None,
    output: OutputOption = None,
    json_out: JsonOption = False,
    render: RenderOption = False,
    show_usage: ShowUsageOption = False,
    no_history: NoHistoryOption = False,
    record: RecordOption = None,
    replay: ReplayOption = None,
    trace_file: TraceFileOption = None,
    approve_tools: ApproveToolsOption = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
    verbose: VerboseOption = 0,
) -> None:
    from lait_cli.support.run_setup import finish

    common = Common(config, no_config, verbose, approve_tools).merged()
    options = OutputOptions(output, json_out, render and not json_out, show_usage)
    options.check_output_file()
    flags = RecordFlags(record, replay, trace_file, common.cache, no_history)
    finish(execute(file, input_text, common, options, flags))


def load_definition(file: str, config: Config) -> AgentDefinition:
    """The agent FILE or NAME stands for; a file with errors exits 3 with every error located."""
    from lait_cli.support.run_setup import fail_invalid, find_target
    from lait_core.engine.llm.chat_types import DocumentInvalid, EngineError
    from lait_core.engine.run.agent_run import agent_from_file

    path = find_target(file, config.agents, "agent")
    registered = file if not Path(file).expanduser().is_file() and file in config.agents else None
    try:
        return agent_from_file(path, key=registered)
    except DocumentInvalid as exc:
        fail_invalid(exc, path, "agent")
    except EngineError as exc:
        raise fail(str(exc)) from None


def execute(
    file: str,
    input_argument: str | None,
    common: Common,
    options: OutputOptions,
    flags: RecordFlags | None = None,
) -> int:
    from lait_cli.support.record_flags import build_records, finish
    from lait_cli.support.run_setup import (
        load_run_config,
        make_terminal,
        present,
        read_optional_prompt,
        run_guarded,
    )
    from lait_cli.support.terminal import Interrupts
    from lait_core.engine.llm.chat_types import EngineError
    from lait_core.engine.records.labels import labelled
    from lait_core.engine.run.agent_run import check_input, parse_input

    config, config_dir = load_run_config(common)
    agent = load_definition(file, config)
    text = read_optional_prompt(input_argument)
    if text is None:
        raise fail("an INPUT is required; provide one or pipe input via stdin", 2)
    value = parse_input(text)
    try:
        check_input(agent, value)
    except EngineError as exc:
        raise fail(str(exc)) from None
    flags = flags or RecordFlags()
    records = build_records(config, flags, "lait agent run FILE INPUT --record DIR")
    terminal = make_terminal(common)

    async def go(interrupts: Interrupts) -> Any:
        from lait_core.engine.run.agent_run import run_agent
        from lait_core.engine.run.run_session import RunSession

        async with RunSession.open(
            config,
            config_dir,
            terminal,
            approve_tools=common.approve_tools,
            keep_grants=True,
            on_spawn=interrupts.on_spawn,
            records=records,
        ) as session:
            with labelled(agent.label):
                return await run_agent(
                    session, agent, value, user_text=text, include_usage=options.show_usage
                )

    reply, code = run_guarded(go, terminal)
    if code != 0 or reply is None:
        return code
    render = options.render or bool(config.default.render)
    present(
        options,
        reply.text,
        reply.usage,
        usage_seen=terminal.usage_seen,
        render=render,
        cost=terminal.cost_text(),
    )
    finish(config, flags, records, "agent", agent_model(agent, config), text, reply.text, reply.usage)
    return 0


def agent_model(agent: AgentDefinition, config: Config) -> str | None:
    """The model the history names: the frontmatter's, else ``default.model``."""
    return agent.settings.model or config.default.model


@agent_app.command(name="list", help="List the agents registered under 'agents:' in lait.config.yml.")
def list_agents(
    config: Annotated[
        Path | None, typer.Option("--config", metavar="PATH", help="Use exactly this config file.")
    ] = None,
    no_config: Annotated[bool, typer.Option("--no-config", help="Read no config file at all.")] = False,
) -> None:
    from lait_cli.support.registry_lists import print_registry

    print_registry("agents", Common(config, no_config).merged())
