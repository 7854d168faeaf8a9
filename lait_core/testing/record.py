"""``lait test --record``: refresh a test's cassette against the live model, the way snapshot tools
update their snapshots.

The test's workflow runs live with every answer recorded into a fresh folder; then each entry is
compared with the one of the same key in the test's ``replay`` folder, ignoring ``recorded_at``:
an entry that differs is written (``changed``), a missing one is added (``new``), an equal one is
left untouched (``unchanged``, so a diff of the cassette shows only what the model now answers
differently). Entries the run did not use are kept: a cassette folder may serve several tests.
The folder is created when it does not exist. Nothing is written when the run fails.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lait_core.engine.records.record_files import (
    RecordFileError,
    atomic_write_text,
    read_json_object,
    read_text_bounded,
)


@dataclass(frozen=True, slots=True)
class EntryChange:
    path: str
    """The cassette entry, as the test file names its folder plus ``/<key>.json``."""
    status: str
    """``new``, ``changed`` or ``unchanged``."""


def _without_time(value: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in value.items() if k != "recorded_at"}


def merge(fresh: Path, cassette: Path, shown: str) -> list[EntryChange]:
    """Move the entries recorded in ``fresh`` into ``cassette`` (see the module doc)."""
    cassette.mkdir(parents=True, exist_ok=True)
    changes = []
    for entry in sorted(fresh.glob("*.json")):
        target = cassette / entry.name
        label = f"{shown.rstrip('/')}/{entry.name}"
        status = "new"
        if target.is_file():
            try:
                same = _without_time(read_json_object(target)) == _without_time(read_json_object(entry))
            except RecordFileError:
                same = False
            if same:
                changes.append(EntryChange(label, "unchanged"))
                continue
            status = "changed"
        atomic_write_text(target, read_text_bounded(entry))
        changes.append(EntryChange(label, status))
    shutil.rmtree(fresh, ignore_errors=True)
    return changes
