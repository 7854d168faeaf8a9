"""`lait run FILE|NAME [PROMPT]`: run a workflow (docs/workflows.md).

FILE is a path, else a name under ``workflows:`` in lait.config.yml (an existing file wins, with a
note). The whole file is validated first: a file with errors prints them as
``file:line:col: CODE error: message`` and exits 3 before anything runs. ``--dry-run`` prints the
plan (nothing is called); otherwise the run's progress goes to stderr and its result alone to
stdout (or ``-o``), as text or, with ``--json``, as ``{"content", "reasoning", "usage"}``.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
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
    from lait_core.documents.workflow_file import WorkflowDocument
    from lait_core.engine.records.checkpoint import Checkpointer

HELP = (
    "Run a workflow (a file, or a name from the config's 'workflows:').\n\n"
    "PROMPT is the initial value; '-' reads stdin, and piped stdin is appended to PROMPT. "
    "Progress goes to stderr, the result to stdout."
)


def register(app: typer.Typer) -> None:
    app.command(name="run", help=HELP)(run)


def run(
    file: Annotated[str, typer.Argument(metavar="FILE", help="A workflow file or a 'workflows:' name.")],
    prompt: Annotated[
        str | None,
        typer.Argument(metavar="PROMPT", help="The initial value; '-' reads stdin.", show_default=False),
    ] = None,
    input_: Annotated[
        list[str] | None,
        typer.Option("--input", metavar="KEY=VALUE", help="Bind a declared input (repeatable; later wins)."),
    ] = None,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Print the execution plan; call nothing.")
    ] = False,
    checkpoint: Annotated[
        bool,
        typer.Option(
            "--checkpoint", help="Save the run's state to .lait/runs/<id>.json after each top-level step."
        ),
    ] = False,
    resume: Annotated[
        str | None,
        typer.Option(
            "--resume", metavar="RUN_ID", help="Continue a checkpointed run after its last completed step."
        ),
    ] = None,
    record: RecordOption = None,
    replay: ReplayOption = None,
    trace_file: TraceFileOption = None,
    output: OutputOption = None,
    json_out: JsonOption = False,
    render: RenderOption = False,
    show_usage: ShowUsageOption = False,
    no_history: NoHistoryOption = False,
    approve_tools: ApproveToolsOption = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
    verbose: VerboseOption = 0,
) -> None:
    from lait_cli.support.run_setup import finish, usage_error

    if resume is not None and dry_run:
        usage_error("--resume cannot be used with --dry-run")
    common = Common(config, no_config, verbose, approve_tools).merged()
    options = OutputOptions(output, json_out, render and not json_out, show_usage)
    options.check_output_file()
    flags = RecordFlags(record, replay, trace_file, common.cache, no_history)
    run_options = RunOptions(flags, checkpoint or resume is not None, resume)
    finish(execute(file, prompt, list(input_ or []), dry_run, common, options, run_options))


@dataclass(slots=True)
class RunOptions:
    records: RecordFlags = field(default_factory=RecordFlags)
    checkpoint: bool = False
    resume: str | None = None


def load_workflow(path: Path, common: Common | None = None) -> WorkflowDocument:
    """The validated document, or exit 3 with the file's findings located, as `lait lint` (with the
    same ``--config``/``--no-config``) prints and counts them."""
    from lait_cli.support.run_setup import fail_invalid
    from lait_core.engine.workflow.loader import load_document
    from lait_core.engine.workflow.workflow_errors import WorkflowLoadError

    try:
        return load_document(None, path)
    except WorkflowLoadError as exc:
        fail_invalid(exc, path, "workflow", common)


def execute(
    file: str,
    prompt_argument: str | None,
    input_options: list[str],
    plan_only: bool,
    common: Common,
    options: OutputOptions,
    run_options: RunOptions | None = None,
) -> int:
    from lait_cli.support.run_setup import find_target, load_run_config, read_optional_prompt, usage_error
    from lait_core.engine.llm.chat_types import EngineError
    from lait_core.engine.workflow.inputs import InputError, parse_input_options

    config, config_dir = load_run_config(common)
    path = find_target(file, config.workflows, "workflow")
    try:
        cli_inputs = parse_input_options(input_options)
    except InputError as exc:
        usage_error(str(exc))
    doc = load_workflow(path, common)
    assert doc.model is not None
    run_options = run_options or RunOptions()
    if run_options.resume is not None:
        resumed = resume_checkpointer(run_options.resume, path, doc, cli_inputs if input_options else None)
        return run_for_real(path, config, config_dir, None, {}, common, options, run_options, resumed)
    prompt = read_optional_prompt(prompt_argument)
    if prompt is None and doc.model.inputs is None:
        from lait_core.engine.workflow import PROMPT_REQUIRED

        usage_error(PROMPT_REQUIRED)
    if plan_only:
        from lait_cli.support.run_setup import write_output
        from lait_core.engine.run.dry_run import dry_run

        try:
            text = dry_run(doc, path, config, prompt, cli_inputs)
        except EngineError as exc:
            raise fail(str(exc)) from None
        write_output(options, text)
        return 0
    checkpointer: Checkpointer | None = None
    if run_options.checkpoint:
        from lait_core.engine.records.checkpoint import Checkpointer, CheckpointStore, new_run_id

        checkpointer = Checkpointer.fresh(CheckpointStore(runs_folder()), new_run_id())
    return run_for_real(
        path, config, config_dir, prompt, cli_inputs, common, options, run_options, checkpointer
    )


def runs_folder() -> Path:
    from lait_core.engine.records.checkpoint import RUNS_DIR

    return (Path.cwd() / RUNS_DIR).absolute()


def resume_checkpointer(
    run_id: str, path: Path, doc: WorkflowDocument, cli_inputs: dict[str, str] | None
) -> Checkpointer:
    """The checkpointer of ``--resume RUN_ID``, or exit 2 with why the run cannot continue."""
    from lait_core.engine.llm.chat_types import EngineError
    from lait_core.engine.records.checkpoint import Checkpointer, CheckpointStore, ResumeRefused, check_resume
    from lait_core.engine.workflow.inputs import bind_inputs
    from lait_core.engine.workflow.loader import canonical

    store = CheckpointStore(runs_folder())
    assert doc.model is not None
    try:
        saved = store.load(run_id)
        bound = bind_inputs(doc.model.inputs, cli_inputs, from_text=True) if cli_inputs is not None else None
        warnings = check_resume(saved, str(canonical(path)), doc.steps, bound)
    except ResumeRefused as exc:
        raise fail(str(exc), 2) from None
    except EngineError as exc:
        raise fail(str(exc)) from None
    return Checkpointer.resume(store, saved, warnings)


def run_for_real(
    path: Path,
    config: Config,
    config_dir: Path,
    prompt: str | None,
    inputs: dict[str, str],
    common: Common,
    options: OutputOptions,
    run_options: RunOptions | None = None,
    checkpointer: Checkpointer | None = None,
) -> int:
    from lait_cli.support.record_flags import build_records, finish
    from lait_cli.support.run_setup import make_terminal, present, run_guarded
    from lait_cli.support.terminal import Interrupts

    run_options = run_options or RunOptions()
    flags = run_options.records
    records = build_records(config, flags, "lait run FILE --record DIR")
    terminal = make_terminal(common)

    async def go(interrupts: Interrupts) -> Any:
        from lait_core.engine.run.run_session import RunSession
        from lait_core.engine.workflow import run_workflow

        async with RunSession.open(
            config,
            config_dir,
            terminal,
            approve_tools=common.approve_tools,
            keep_grants=True,
            on_spawn=interrupts.on_spawn,
            records=records,
        ) as session:
            return await run_workflow(session, path, prompt=prompt, inputs=inputs, checkpointer=checkpointer)

    result, code = run_guarded(go, terminal)
    if code != 0 or result is None:
        if checkpointer is not None and checkpointer.state.workflow_path:
            run_id = checkpointer.state.run_id
            sys.stderr.write(
                f"run checkpointed as '{run_id}'; resume with `lait run {path} --resume {run_id}`\n"
            )
        return code
    render = options.render or bool(config.default.render)
    present(
        options,
        result.text,
        result.usage,
        usage_seen=terminal.usage_seen,
        render=render,
        cost=terminal.cost_text(),
    )
    finish(config, flags, records, "workflow", None, prompt or "", result.text, result.usage)
    return 0
