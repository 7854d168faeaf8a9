"""`lait history [list] / show N / search Q` (docs/workflows.md); the logic is in
``lait_core.engine.records.run_history``. Filters (``--kind``, ``--model``, ``--since``, ``--limit``)
may be given before or after the subcommand; the subcommand's own win."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Annotated

import typer

from lait_cli.support.common import fail

KindOption = Annotated[
    str | None, typer.Option("--kind", metavar="KIND", help="Only this kind: chat, agent, workflow, prompt.")
]
ModelOption = Annotated[
    str | None, typer.Option("--model", metavar="TEXT", help="Only entries whose model contains this text.")
]
SinceOption = Annotated[
    str | None,
    typer.Option(
        "--since", metavar="WHEN", help="Only entries since YYYY-MM-DD, an RFC 3339 time, or <N>m|h|d|w ago."
    ),
]
LimitOption = Annotated[
    int | None, typer.Option("--limit", "-l", metavar="N", help="At most this many entries (default 20).")
]


@dataclass(slots=True)
class _Outer:
    kind: str | None = None
    model: str | None = None
    since: str | None = None
    limit: int | None = None


OUTER = _Outer()

history_app = typer.Typer(
    name="history",
    invoke_without_command=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="List, show and search past runs (newest first).",
)


def register(app: typer.Typer) -> None:
    app.add_typer(history_app, name="history", help="List, show and search past runs (newest first).")


@history_app.callback()
def history(
    ctx: typer.Context,
    kind: KindOption = None,
    model: ModelOption = None,
    since: SinceOption = None,
    limit: LimitOption = None,
) -> None:
    OUTER.kind, OUTER.model, OUTER.since, OUTER.limit = kind, model, since, limit
    if ctx.invoked_subcommand is None:
        _list(None, None, None, None, None)


def _list(
    kind: str | None, model: str | None, since: str | None, limit: int | None, query: str | None
) -> None:
    from lait_core.engine.records.run_history import (
        Filters,
        HistoryError,
        history_path,
        list_line,
        parse_since,
        select,
    )

    kind = kind if kind is not None else OUTER.kind
    model = model if model is not None else OUTER.model
    since = since if since is not None else OUTER.since
    limit = limit if limit is not None else OUTER.limit
    try:
        filters = Filters(kind, model, parse_since(since) if since is not None else None, query)
        found = select(history_path(), filters, 20 if limit is None else limit)
    except HistoryError as exc:
        raise fail(str(exc), 2 if "since" in str(exc) else 1) from None
    for number, value in found:
        sys.stdout.write(list_line(number, value) + "\n")


@history_app.command(name="list", help="List entries, newest first (1 = newest).")
def list_entries(
    kind: KindOption = None, model: ModelOption = None, since: SinceOption = None, limit: LimitOption = None
) -> None:
    _list(kind, model, since, limit, None)


@history_app.command(name="search", help="Entries whose prompt or response contains Q (case-insensitive).")
def search(
    query: Annotated[str, typer.Argument(metavar="Q")],
    kind: KindOption = None,
    model: ModelOption = None,
    since: SinceOption = None,
    limit: LimitOption = None,
) -> None:
    _list(kind, model, since, limit, query)


@history_app.command(name="show", help="Show entry N in full (1 = newest).")
def show(
    number: Annotated[int, typer.Argument(metavar="N")],
    json_out: Annotated[bool, typer.Option("--json", help="Print {number, ...entry}.")] = False,
) -> None:
    from lait_core.engine.records.run_history import HistoryError, find, history_path, show_text

    if number < 1:
        raise fail("history entries are numbered from 1 (the newest)", 2)
    try:
        value = find(history_path(), number)
    except HistoryError as exc:
        raise fail(str(exc)) from None
    if value is None:
        raise fail(f"no history entry {number}")
    if json_out:
        sys.stdout.write(json.dumps({"number": number, **value}, ensure_ascii=False, indent=2) + "\n")
    else:
        sys.stdout.write(show_text(value))
