"""What the run commands (`lait run`, `lait agent run`, chat) share about records: the flags, and
turning them into a run's records and, after a success, its trace file and history entry -- through
``lait_core.engine.records.record_options``, which the editor's ``lait/run`` uses too.

Top-level imports are the standard library only.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lait_cli.support.common import fail

if TYPE_CHECKING:
    from lait_core.documents.document_models import Config
    from lait_core.engine.llm.chat_types import Usage
    from lait_core.engine.records.record_options import RecordsRequest
    from lait_core.engine.records.sender import RunRecords


@dataclass(slots=True)
class RecordFlags:
    record: Path | None = None
    replay: Path | None = None
    trace_file: Path | None = None
    cache: bool | None = None
    """``--cache`` True, ``--no-cache`` False, neither None (``default.cache`` decides)."""
    no_history: bool = False

    def request(self, record_command: str) -> RecordsRequest:
        from lait_core.engine.records.record_options import RecordsRequest

        return RecordsRequest(
            self.record,
            self.replay,
            self.trace_file,
            self.cache,
            not self.no_history,
            Path.cwd(),
            record_command,
        )


def build_records(config: Config, flags: RecordFlags, record_command: str) -> RunRecords:
    """The run's records (cassette, cache, trace recorder); bad flags exit 2."""
    from lait_core.engine.records.record_options import RecordsSetupError, open_records

    try:
        return open_records(config, flags.request(record_command))
    except RecordsSetupError as exc:
        raise fail(str(exc), 2) from None


def finish(
    config: Config,
    flags: RecordFlags,
    records: RunRecords,
    kind: str,
    model: str | None,
    prompt: str,
    response: str,
    usage: Usage | None,
) -> None:
    """After a success: the trace file and the history entry (problems are warnings)."""
    from lait_core.engine.records.record_options import finish_records

    for warning in finish_records(config, flags.request(""), records, kind, model, prompt, response, usage):
        sys.stderr.write(f"warning: {warning}\n")
