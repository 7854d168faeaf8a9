"""`lait eval FILE`: run an eval file's cases ``--repeat N`` times against the live model and
report each case's pass rate (docs/testing.md). The work is in ``lait_core.testing.eval_run``;
this layer parses options, shows progress on stderr (a rich progress bar on a terminal, else one
plain line per finished case), prints the report to stdout and exits 1 when a case is below 100%
or the eval file cannot be read (docs/cli.md: a general error, as for `lait test`, `lait
run`), 2 for a bad option, 3 for an eval file that does not validate."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lait_cli.support.common import fail
from lait_cli.support.options import (
    ApproveToolsOption,
    ConfigOption,
    NoConfigOption,
    ReportFormatOption,
    VerboseOption,
    check_report_format,
)
from lait_cli.support.run_setup import Common

if TYPE_CHECKING:
    from lait_core.testing.eval_run import CaseResult

HELP = (
    "Run an eval file's cases against the live model (each --repeat N times) and report the pass "
    "rate of each case."
)


def register(app: typer.Typer) -> None:
    app.command(name="eval", help=HELP)(eval_command)


class _Progress:
    """Progress on stderr: a rich bar on a terminal, else a line per finished case."""

    def __init__(self, total: int, repeat: int) -> None:
        self.repeat = repeat
        self.bar: Any = None
        if sys.stderr.isatty():
            from rich.console import Console
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

            self.bar = Progress(
                TextColumn("eval"),
                BarColumn(),
                MofNCompleteColumn(),
                TextColumn("runs"),
                TimeElapsedColumn(),
                console=Console(file=sys.stderr),
                transient=True,
            )
            self.task = self.bar.add_task("runs", total=total)

    def __enter__(self) -> _Progress:
        if self.bar is not None:
            self.bar.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self.bar is not None:
            self.bar.stop()

    def run_done(self, case: CaseResult, done: int) -> None:
        if self.bar is not None:
            self.bar.advance(self.task)
        elif done == self.repeat:
            sys.stderr.write(f"case {case.case}: {case.passed}/{case.total} runs passed\n")
            sys.stderr.flush()


def eval_command(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="The eval file.")],
    repeat: Annotated[
        int, typer.Option("--repeat", metavar="N", help="Runs per case (values below 1 count as 1).")
    ] = 1,
    format_: ReportFormatOption = "text",
    approve_tools: ApproveToolsOption = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
    verbose: VerboseOption = 0,
) -> None:
    from lait_cli.support.run_setup import finish, load_run_config, make_terminal, run_guarded
    from lait_core.rules.files.unreadable_file import CODE as CODE_UNREADABLE
    from lait_core.testing.definition import load_eval
    from lait_core.testing.eval_run import CaseResult, EvalRunner, text_report

    check_report_format(format_)
    repeat = max(1, repeat)
    definition, diagnostics = load_eval(file)
    if definition is None and [d.code for d in diagnostics] == [CODE_UNREADABLE]:
        raise fail(diagnostics[0].message, 1)  # missing, a directory, not readable: nothing to validate
    if definition is None:
        for d in sorted(diagnostics, key=lambda d: d.sort_key()):
            start = d.range.start
            sys.stderr.write(f"{file}:{start.line + 1}:{start.character + 1}: {d.message}\n")
        count = len(diagnostics)
        raise fail(f"'{file}' is not a valid eval file ({count} error{'s' if count != 1 else ''})", 3)
    common = Common(config, no_config, verbose, approve_tools).merged()
    config_model, config_dir = load_run_config(common)
    progress = _Progress(len(definition.cases) * repeat, repeat)
    runner = EvalRunner(
        definition,
        file.parent,
        config_model,
        config_dir,
        approve_tools=common.approve_tools,
        on_run_done=progress.run_done,
    )

    started = time.monotonic()

    async def go(_interrupts: object) -> list[object]:
        with progress:
            return list(await runner.run(repeat))

    results, code = run_guarded(go, make_terminal(common))
    if results is None:
        finish(code)
    cases = [r for r in results if isinstance(r, CaseResult)]
    if format_ == "json":
        sys.stdout.write(json.dumps([c.as_json() for c in cases], ensure_ascii=False, indent=2) + "\n")
    elif format_ == "junit":
        from lait_core.testing.reports import junit_eval

        sys.stdout.write(junit_eval(str(file), cases, time.monotonic() - started))
    elif format_ == "github":
        from lait_core.testing.reports import github_eval

        sys.stdout.write(github_eval(str(file), cases, text_report(cases).splitlines()[-1]))
    else:
        sys.stdout.write(text_report(cases))
    finish(0 if all(c.fully_passed for c in cases) else 1)
