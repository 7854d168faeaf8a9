"""`lait runs list` and `lait runs show RUN_ID`: the checkpoints under ``.lait/runs/``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer

from lait_cli.support.common import fail

runs_app = typer.Typer(
    name="runs",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    help="List and show checkpointed workflow runs (.lait/runs/).",
)


def register(app: typer.Typer) -> None:
    app.add_typer(runs_app, name="runs", help="List and show checkpointed workflow runs (.lait/runs/).")


@runs_app.command(name="list", help="One line per run, newest first: id, status, steps done, workflow.")
def list_runs() -> None:
    from lait_core.engine.records.checkpoint import RUNS_DIR, CheckpointStore

    for path, saved in CheckpointStore(Path.cwd() / RUNS_DIR).all():
        if saved is None:
            sys.stdout.write(f"{path.stem}\tdamaged\t-\t-\n")
            continue
        done = f"{saved.completed_index}/{len(saved.top_level_labels)}"
        sys.stdout.write(f"{saved.run_id}\t{saved.status}\t{done}\t{saved.workflow_path}\n")


@runs_app.command(name="show", help="Print a run's checkpoint (JSON).")
def show(run_id: Annotated[str, typer.Argument(metavar="RUN_ID")]) -> None:
    from lait_core.engine.llm.chat_types import EngineError
    from lait_core.engine.records.checkpoint import RUNS_DIR, CheckpointStore

    try:
        saved = CheckpointStore(Path.cwd() / RUNS_DIR).load(run_id)
    except EngineError as exc:
        raise fail(str(exc)) from None
    sys.stdout.write(json.dumps(saved.as_json(), ensure_ascii=False, indent=2) + "\n")
