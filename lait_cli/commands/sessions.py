"""`lait sessions list|show NAME|delete NAME`: the saved conversations in ``.lait/sessions/``
(docs/cli.md; the storage is :mod:`lait_core.engine.records.saved_sessions`)."""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated

import typer

from lait_cli.support.common import fail

sessions_app = typer.Typer(
    name="sessions",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="List, show and delete saved chat sessions (.lait/sessions/).",
)

NameArgument = Annotated[str, typer.Argument(metavar="NAME", help="A session name.")]


def register(app: typer.Typer) -> None:
    app.add_typer(
        sessions_app, name="sessions", help="List, show and delete saved chat sessions (.lait/sessions/)."
    )


@sessions_app.command(name="list", help="List the sessions: name, messages, last change.")
def list_sessions(as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False) -> None:
    from lait_core.engine.records.saved_sessions import list_sessions as find

    found = find()
    if as_json:
        rows = [{"name": s.name, "messages": s.messages, "modified": s.modified} for s in found]
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
        return
    if not found:
        sys.stderr.write("lait: no sessions in .lait/sessions/ (start one with --session NAME)\n")
        return
    width = max(len(s.name) for s in found)
    for s in found:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(s.modified))
        sys.stdout.write(f"{s.name:<{width}}  {s.messages:>4} messages  {when}\n")


@sessions_app.command(name="show", help="Print a session's messages.")
def show(
    name: NameArgument, as_json: Annotated[bool, typer.Option("--json", help="Print JSON lines.")] = False
) -> None:
    from lait_core.engine.records.saved_sessions import SessionError, load, session_path

    try:
        path = session_path(name)
        if not path.is_file():
            raise fail(f"no session '{name}' in .lait/sessions/", 1)
        loaded = load(path)
    except SessionError as exc:
        raise fail(str(exc), 2 if "invalid session name" in str(exc) else 1) from None
    for m in loaded.messages:
        if as_json:
            sys.stdout.write(json.dumps(m, ensure_ascii=False) + "\n")
            continue
        content = (
            m["content"] if isinstance(m["content"], str) else json.dumps(m["content"], ensure_ascii=False)
        )
        sys.stdout.write(f"{m['role']}: {content}\n\n")
    if loaded.skipped:
        sys.stderr.write(f"lait: skipped {loaded.skipped} unreadable line(s)\n")


@sessions_app.command(name="delete", help="Delete a session.")
def delete(name: NameArgument) -> None:
    from lait_core.engine.records.saved_sessions import SessionError
    from lait_core.engine.records.saved_sessions import delete as remove

    try:
        removed = remove(name)
    except SessionError as exc:
        raise fail(str(exc), 2) from None
    if not removed:
        raise fail(f"no session '{name}' in .lait/sessions/", 1)
    sys.stderr.write(f"deleted session '{name}'\n")
