"""`lait trace show FILE` and `lait trace export FILE --otlp URL` (docs/workflows.md); the
logic is in ``lait_core.engine.records.trace_events`` and ``.otlp``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from lait_cli.support.common import fail

if TYPE_CHECKING:
    from lait_core.engine.records.trace_events import LabelSummary

trace_app = typer.Typer(
    name="trace",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="Show or export a trace file written with --trace-file.",
)


def register(app: typer.Typer) -> None:
    app.add_typer(trace_app, name="trace", help="Show or export a trace file written with --trace-file.")


def _read(path: Path) -> list[dict[str, Any]]:
    from lait_core.engine.records.trace_events import TraceFileError, read_trace

    try:
        return read_trace(path)
    except TraceFileError as exc:
        raise fail(str(exc)) from None


@trace_app.command(name="show", help="Print a trace file's events (or, with --summary, totals per label).")
def show(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A JSONL trace file.")],
    json_out: Annotated[bool, typer.Option("--json", help="Print the events as a JSON array.")] = False,
    operation: Annotated[
        str | None,
        typer.Option(
            "--operation", metavar="OP", help="Only events of this operation (chat, execute_tool, compact)."
        ),
    ] = None,
    label: Annotated[
        str | None, typer.Option("--label", metavar="TEXT", help="Only events whose label contains TEXT.")
    ] = None,
    summary: Annotated[
        bool, typer.Option("--summary", help="Per label: calls, tool calls, duration, tokens and cost.")
    ] = False,
) -> None:
    from lait_core.engine.records.trace_events import event_line, select, summarize, total

    events = select(_read(file), operation, label)
    if summary:
        rows = summarize(events)
        if json_out:
            sys.stdout.write(json.dumps([_row_json(r) for r in [*rows, total(rows)]], indent=2) + "\n")
        else:
            _summary_table(rows, total(rows))
        return
    if json_out:
        sys.stdout.write(json.dumps(events, ensure_ascii=False, indent=2) + "\n")
        return
    for event in events:
        sys.stdout.write(event_line(event) + "\n")


def _row_json(row: LabelSummary) -> dict[str, Any]:
    return {
        "label": row.label,
        "chat": row.chat,
        "execute_tool": row.execute_tool,
        "compact": row.compact,
        "duration_ms": row.duration_ms,
        "input_tokens": row.input_tokens,
        "output_tokens": row.output_tokens,
        "cost_usd": row.cost_usd,
        "cached": row.cached,
    }


def _summary_table(rows: list[LabelSummary], totals: LabelSummary) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table(title=None, show_footer=False)
    for name, justify in (
        ("label", "left"),
        ("model calls", "right"),
        ("from cache/replay", "right"),
        ("tool calls", "right"),
        ("compactions", "right"),
        ("duration", "right"),
        ("input tokens", "right"),
        ("output tokens", "right"),
        ("cost", "right"),
    ):
        table.add_column(name, justify=justify, no_wrap=True)  # type: ignore[arg-type]
    for row in [*rows, totals]:
        table.add_row(
            row.label,
            str(row.chat),
            str(row.cached),
            str(row.execute_tool),
            str(row.compact),
            f"{row.duration_ms} ms",
            str(row.input_tokens),
            str(row.output_tokens),
            f"${row.cost_usd:.6f}" if row.cost_usd is not None else "-",
            end_section=row is rows[-1] if rows else False,
        )
    Console(width=max(160, Console().width)).print(table)


@trace_app.command(name="export", help="Send a trace file to an OTLP/HTTP endpoint (one span per event).")
def export(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="A JSONL trace file.")],
    otlp: Annotated[
        str,
        typer.Option(
            "--otlp", metavar="URL", help="The exact URL to POST to (e.g. http://host:4318/v1/traces)."
        ),
    ],
    header: Annotated[
        list[str] | None,
        typer.Option(
            "--header", metavar="NAME=VALUE", help="An HTTP header (repeatable; VALUE supports ${VAR})."
        ),
    ] = None,
    service_name: Annotated[
        str, typer.Option("--service-name", metavar="NAME", help="The resource's service.name.")
    ] = "lait",
    encoding: Annotated[
        str, typer.Option("--encoding", metavar="json|protobuf", help="OTLP/HTTP encoding (default json).")
    ] = "json",
) -> None:
    from lait_core.engine.records.otlp import OtlpError, export_trace, parse_headers

    if encoding not in ("json", "protobuf"):
        raise fail(f"--encoding must be json or protobuf, not '{encoding}'", 2)
    events = _read(file)
    try:
        headers = parse_headers(list(header or []))
        count = export_trace(events, otlp, headers, service_name, encoding)
    except OtlpError as exc:
        raise fail(str(exc)) from None
    sys.stderr.write(f"exported {count} spans to '{otlp}'\n")
