"""`lait lint PATH...`"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from lait_cli.support.common import GLOBALS, check_explicit_config, check_output_path, fail


def register(app: typer.Typer) -> None:
    app.command(name="lint", help="Check config, agent and workflow files; exit 3 on errors.")(lint)


def lint(
    paths: Annotated[
        list[str], typer.Argument(metavar="PATH", help="Files or directories; '-' reads standard input.")
    ],
    fmt: Annotated[
        str, typer.Option("--format", metavar="FORMAT", help="text, json, github or sarif.")
    ] = "text",
    output_file: Annotated[
        Path | None, typer.Option("--output-file", "-o", metavar="FILE", help="Write the report here.")
    ] = None,
    strict: Annotated[bool, typer.Option("--strict", help="Warnings fail too.")] = False,
    stdin_filename: Annotated[
        str | None,
        typer.Option("--stdin-filename", metavar="NAME", help="Name (and kind) of the text read from '-'."),
    ] = None,
    only_lait_files: Annotated[
        bool,
        typer.Option(
            "--only-lait-files",
            help="Skip files that are not lait files by content, even named ones (for pre-commit hooks).",
        ),
    ] = False,
    config: Annotated[
        Path | None, typer.Option("--config", metavar="PATH", help="Use exactly this config file.")
    ] = None,
    no_config: Annotated[bool, typer.Option("--no-config", help="Read no config file.")] = False,
    fix: Annotated[bool, typer.Option("--fix", help="Apply safe fixes to the files.")] = False,
    unsafe_fixes: Annotated[
        bool, typer.Option("--unsafe-fixes", help="With --fix, apply unsafe fixes (guesses) too.")
    ] = False,
    select: Annotated[
        list[str] | None,
        typer.Option("--select", metavar="CODES", help="Only these codes or prefixes (comma-separated)."),
    ] = None,
    extend_select: Annotated[
        list[str] | None,
        typer.Option("--extend-select", metavar="CODES", help="Add codes or prefixes to the selection."),
    ] = None,
    ignore: Annotated[
        list[str] | None,
        typer.Option("--ignore", metavar="CODES", help="Never report these codes or prefixes."),
    ] = None,
    baseline: Annotated[
        Path | None, typer.Option("--baseline", metavar="FILE", help="Report only findings not in FILE.")
    ] = None,
    write_baseline: Annotated[
        Path | None,
        typer.Option("--write-baseline", metavar="FILE", help="Record every finding in FILE (exit 0)."),
    ] = None,
    jobs: Annotated[
        int | None,
        typer.Option(
            "--jobs",
            "-j",
            metavar="N",
            help="Lint in up to N processes (default: one per core; 1: no others).",
        ),
    ] = None,
) -> None:
    from lait_cli.support import quick_exit
    from lait_core.documents.config_file import ConfigError, ConfigMode
    from lait_core.lint.engine import FileReport, Linter, LintOptions, LintResult
    from lait_core.lint.formats import FORMATS, render

    quick_exit.request()  # nothing the interpreter's teardown frees is needed after the report

    if fmt not in FORMATS:
        raise fail(f"unknown --format '{fmt}'; expected one of: {', '.join(FORMATS)}", 2)
    config = config or GLOBALS.config
    no_config = no_config or GLOBALS.no_config
    if config is not None and no_config:
        raise fail("--config and --no-config cannot be used together", 2)
    if config is not None:
        check_explicit_config(config)
    check_output_path(output_file, "the report")
    mode = ConfigMode.DISABLED if no_config else ConfigMode.EXPLICIT if config else ConfigMode.SEARCH
    from lait_cli.support.lint_options import fix_files, lint_selection, save_baseline

    selection = lint_selection(select, extend_select, ignore)
    if unsafe_fixes and not fix:
        raise fail("--unsafe-fixes needs --fix", 2)
    if fix and "-" in paths:
        raise fail("--fix cannot change standard input; name the files", 2)
    if baseline is not None and write_baseline is not None:
        raise fail("--baseline and --write-baseline cannot be used together", 2)
    from lait_core.lint.baseline import BaselineError
    from lait_core.lint.parallel import available_cores

    if jobs is not None and jobs < 1:
        raise fail("--jobs must be at least 1", 2)
    workers = jobs if jobs is not None else available_cores()
    try:
        linter = Linter(
            LintOptions(mode, config, selection=selection, baseline=baseline, jobs=workers, batch=True)
        )
    except BaselineError as exc:
        raise fail(str(exc), 2) from None
    if fix:
        files = [p for p in paths if p != "-"]
        try:
            fix_files(linter, files, only_lait_files=only_lait_files, unsafe=unsafe_fixes)
        except ConfigError as exc:
            raise fail(str(exc), 3) from None
        linter = Linter(
            LintOptions(mode, config, selection=selection, baseline=baseline, jobs=workers, batch=True)
        )
    try:
        files = [p for p in paths if p != "-"]
        result = linter.lint_paths(files, only_lait_files=only_lait_files) if files else LintResult()
        if "-" in paths:
            from lait_core.syntax.bounded_read import StreamTooLarge, decode, read_stream

            name = stdin_filename or "stdin.yml"
            try:
                loaded = decode(read_stream(sys.stdin.buffer))
            except StreamTooLarge as exc:
                raise fail(f"standard input is larger than {exc}; lait reads at most that much", 3) from None
            if loaded.text is None:
                assert loaded.problem is not None
                diags = [loaded.problem.at(name)]
            else:
                diags = linter.lint_text(loaded.text, Path(name))
            result.reports.append(FileReport(name, diags))
    except ConfigError as exc:
        raise fail(str(exc), 3) from None
    except OSError as exc:
        raise fail(f"cannot read {exc.filename!r}: {exc.strerror}", 3) from None
    for problem in linter.baseline_problems:
        sys.stderr.write(f"lait: {problem}\n")
    if write_baseline is not None:
        saved = save_baseline(write_baseline, result)
        sys.stderr.write(f"lait: wrote {saved} finding(s) to '{write_baseline}'\n")
        return
    report = render(result, fmt)
    if output_file is not None:
        try:
            output_file.write_text(report, encoding="utf-8")
        except OSError as exc:
            raise fail(f"cannot write '{output_file}': {exc.strerror or exc}", 2) from None
    else:
        sys.stdout.write(report)
    from lait_core.lint.findings import ProblemCount, plural

    count = ProblemCount.of(result.diagnostics)  # the count every surface gives (lait_core.lint.findings)
    checked = plural(len(result.reports), "file")
    if count:
        sys.stderr.write(f"lait: {count.describe()} in {checked}\n")
    elif fmt == "text":
        sys.stderr.write(f"lait: {checked} checked, no problems\n")
    if linter.baselined:
        sys.stderr.write(f"lait: {plural(linter.baselined, 'finding')} in the baseline not shown\n")
    if count.errors or (strict and count.warnings):
        raise typer.Exit(3)
