"""`lait test PATH...`: run test files against their cassettes and check their assertions
(docs/testing.md). The work is in ``lait_core.testing``; this layer parses options, prints the
text or JSON report to stdout and exits 1 when anything failed or a named target is missing, a
symbolic link or a special file (docs/cli.md: a general error, not a usage error; as
`lait eval` for a missing file), 2 for a bad option."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

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

HELP = (
    "Run test files (a workflow replayed from its cassette, then assertions on its output and "
    "trajectory). Directories are searched for .yml/.yaml files."
)


def register(app: typer.Typer) -> None:
    app.command(name="test", help=HELP)(test)


def test(
    paths: Annotated[list[Path], typer.Argument(metavar="PATH...", help="Test files or directories.")],
    format_: ReportFormatOption = "text",
    record: Annotated[
        bool,
        typer.Option(
            "--record",
            help="Run against the live model and refresh the tests' cassettes (reports which entries changed).",
        ),
    ] = False,
    approve_tools: ApproveToolsOption = False,
    config: ConfigOption = None,
    no_config: NoConfigOption = False,
    verbose: VerboseOption = 0,
) -> None:
    from lait_cli.support.run_setup import finish, load_run_config, make_terminal, run_guarded
    from lait_core.testing.suite_runner import TargetError, discover, run_files, text_report

    check_report_format(format_)
    try:
        files = discover(paths)
    except TargetError as exc:
        raise fail(str(exc), 1) from None
    common = Common(config, no_config, verbose, approve_tools).merged()
    config_model, config_dir = load_run_config(common)

    async def go(_interrupts: object) -> list[object]:
        return list(
            await run_files(
                files, config_model, config_dir, approve_tools=common.approve_tools, record=record
            )
        )

    results, code = run_guarded(go, make_terminal(common))
    if results is None:
        finish(code)
    from lait_core.testing.suite_runner import FileResult

    typed = [r for r in results if isinstance(r, FileResult)]
    if record:
        _report_recorded(list(typed))
    if format_ == "json":
        sys.stdout.write(json.dumps([r.as_json() for r in typed], ensure_ascii=False, indent=2) + "\n")
    elif format_ == "junit":
        from lait_core.testing.reports import junit_tests

        sys.stdout.write(junit_tests(typed))
    elif format_ == "github":
        from lait_core.testing.reports import github_tests

        sys.stdout.write(github_tests(typed, text_report(typed).splitlines()[-1]))
    else:
        sys.stdout.write(text_report(typed))
    finish(0 if all(r.passed for r in typed) else 1)


def _report_recorded(results: list[object]) -> None:
    """On stderr (the report formats stay as they are): each new or changed cassette entry, then
    the counts."""
    from lait_core.testing.suite_runner import FileResult

    counts = {"new": 0, "changed": 0, "unchanged": 0}
    seen: set[str] = set()
    for r in results:
        assert isinstance(r, FileResult)
        for change in r.recorded:
            if change.path in seen:  # a cassette shared by several tests
                continue
            seen.add(change.path)
            counts[change.status] += 1
            if change.status != "unchanged":
                sys.stderr.write(f"recorded {change.path}: {change.status}\n")
    sys.stderr.write(
        f"cassettes: {counts['new']} new, {counts['changed']} changed, {counts['unchanged']} unchanged\n"
    )
