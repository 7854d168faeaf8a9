"""What a run keeps, from a front end's request (the CLI's flags, the editor's ``lait/run`` params)
to the files it leaves: :func:`open_records` builds the cassette, cache and trace of a run;
:func:`finish_records` writes the trace file and the history entry after a success. The CLI and
the language server both use these, so a run leaves the same records wherever it was started."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lait_core.documents.document_models import Config
from lait_core.engine.llm.chat_types import Usage
from lait_core.engine.records.cassette import Cassette
from lait_core.engine.records.response_cache import CACHE_DIR, ResponseCache
from lait_core.engine.records.sender import RunRecords
from lait_core.engine.records.trace_events import TraceRecorder


@dataclass(slots=True)
class RecordsRequest:
    record: Path | None = None
    replay: Path | None = None
    trace_file: Path | None = None
    cache: bool | None = None
    """True/False force the cache on/off; None: ``default.cache``."""
    history: bool = True
    """False: ``--no-history`` (``default.history: false`` also turns it off)."""
    cache_dir: Path | None = None
    """The folder holding ``.lait/`` (the CLI: the working directory)."""
    record_command: str = "lait run FILE --record DIR"
    """How a replay miss tells the person to record."""


class RecordsSetupError(ValueError):
    """Flags that cannot go together, or a replay folder that does not exist."""


def open_records(config: Config, request: RecordsRequest) -> RunRecords:
    if request.record is not None and request.replay is not None:
        raise RecordsSetupError("--record and --replay cannot be used together")
    if request.replay is not None and not request.replay.is_dir():
        raise RecordsSetupError(f"--replay: '{request.replay}' is not a directory of recordings")
    records = RunRecords()
    if request.record is not None:
        import os

        from lait_core.support.redact import add_environment_secrets

        add_environment_secrets(os.environ)  # a cassette is committed: no secret a tool prints
        records.record = Cassette(request.record.absolute(), request.record_command)
    if request.replay is not None:
        records.replay = Cassette(request.replay.absolute(), request.record_command)
    use_cache = request.cache if request.cache is not None else bool(config.default.cache)
    if use_cache:
        base = request.cache_dir if request.cache_dir is not None else Path.cwd()
        records.cache = ResponseCache(
            (base / CACHE_DIR).absolute(), config.default.cache_ttl, read=request.record is None
        )
    if request.trace_file is not None:
        records.trace = TraceRecorder()
    return records


def history_enabled(config: Config, request: RecordsRequest) -> bool:
    return request.history and config.default.history is not False


def finish_records(
    config: Config,
    request: RecordsRequest,
    records: RunRecords,
    kind: str,
    model: str | None,
    prompt: str,
    response: str,
    usage: Usage | None,
    environ: Mapping[str, str] | None = None,
) -> list[str]:
    """After a success: the trace file, then the history entry. Problems come back as warnings (a
    run that succeeded is not turned into a failure by its records)."""
    from lait_core.engine.records import run_history as history

    warnings: list[str] = []
    if request.trace_file is not None and records.trace is not None:
        try:
            records.trace.write(request.trace_file)
        except OSError as exc:
            warnings.append(f"cannot write the trace file '{request.trace_file}': {exc.strerror or exc}")
    if history_enabled(config, request):
        path = history.history_path(environ)
        try:
            history.append(path, history.entry(kind, model, prompt, response, usage))
        except OSError as exc:
            warnings.append(f"could not add the run to the history file '{path}': {exc.strerror or exc}")
    return warnings
