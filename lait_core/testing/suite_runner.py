"""Finding test files and running them (docs/testing.md).

Discovery: named files and directories; directories are walked for regular ``.yml``/``.yaml``
files, skipping dot entries, ``target`` and ``node_modules``, never following symlinks; a named
symlink or special file is an error. Targets are deduplicated by canonical path and sorted.

Running: up to 8 files at once in one event loop, each with its own run session (its own MCP
servers, HTTP client and records) replaying its cassette; a load or run failure fails that file
with the error text and the others go on. Step outputs (for ``step_output``) are those of the
workflow's top-level steps, as a checkpoint keeps them; nothing is written to disk for them.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lait_core.documents.document_models import Config
from lait_core.engine.records.checkpoint import Checkpoint, Checkpointer, CheckpointStore
from lait_core.testing.assertions import Outcome, check_all
from lait_core.testing.definition import load_test
from lait_core.testing.record import EntryChange

if TYPE_CHECKING:
    from lait_core.engine.llm.client import ChatClient
    from lait_core.engine.run.interaction import Interaction

CONCURRENCY = 8
SKIPPED_DIRS = frozenset(("target", "node_modules"))


class TargetError(ValueError):
    """A named path that cannot be a test target."""


def discover(paths: list[Path]) -> list[Path]:
    found: dict[str, Path] = {}
    for path in paths:
        try:
            info = path.lstat()
        except OSError:
            raise TargetError(f"no such file or directory '{path}'") from None
        if stat.S_ISLNK(info.st_mode):
            raise TargetError(f"'{path}' is a symbolic link; name the file it points to")
        if stat.S_ISDIR(info.st_mode):
            for file in _walk(path):
                found.setdefault(os.path.realpath(file), file)
        elif stat.S_ISREG(info.st_mode):
            found.setdefault(os.path.realpath(path), path)
        else:
            raise TargetError(f"'{path}' is not a regular file or directory")
    return [found[key] for key in sorted(found)]


def _walk(folder: Path) -> list[Path]:
    out: list[Path] = []
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError:
        return out
    for entry in entries:
        if entry.name.startswith("."):
            continue
        if entry.is_dir(follow_symlinks=False):
            if entry.name not in SKIPPED_DIRS:
                out.extend(_walk(Path(entry.path)))
        elif entry.is_file(follow_symlinks=False) and entry.name.endswith((".yml", ".yaml")):
            out.append(Path(entry.path))
    return out


@dataclass(slots=True)
class FileResult:
    file: str
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    """Wall time of the file's run (the JUnit report's ``time``)."""
    recorded: list[EntryChange] = field(default_factory=list)
    """With ``--record``: what happened to each cassette entry the run used."""

    @property
    def passed(self) -> bool:
        return not self.failures

    def as_json(self) -> dict[str, Any]:
        return {"file": self.file, "status": "pass" if self.passed else "fail", "failures": self.failures}


class StepOutputs(Checkpointer):
    """A checkpointer that only remembers the top-level step outputs (it never saves)."""

    __slots__ = ()

    def started(self) -> None:
        pass

    def step_done(self, index: int, counter: int, value: Any, steps: Any) -> None:
        self.state.steps_outputs = dict(steps)

    def finished(self, value: Any) -> None:
        pass


def error_text(exc: BaseException) -> str:
    parts: list[str] = []
    seen: BaseException | None = exc
    while seen is not None and len(parts) < 8:
        text = str(seen) or type(seen).__name__
        if any(text in part for part in parts):  # a message that already quotes its cause
            break
        parts.append(text)
        seen = seen.__cause__
    return ": ".join(parts)


def _located(diagnostics: list[Any], path: Path) -> str:
    lines = []
    for d in sorted(diagnostics, key=lambda d: (d.range.start.line, d.range.start.character)):
        start = d.range.start
        lines.append(f"{path}:{start.line + 1}:{start.character + 1}: {d.message}")
    return "\n".join(lines)


async def run_file(
    path: Path,
    config: Config,
    config_dir: Path,
    approve_tools: bool,
    record: bool = False,
    *,
    interaction: Interaction | None = None,
    on_spawn: Callable[[int], None] | None = None,
    client: ChatClient | None = None,
) -> FileResult:
    """Run one test file: replaying its cassette, or with ``record`` against the live model,
    refreshing the cassette (:mod:`lait_core.testing.record`) when the run succeeds.
    ``interaction`` (default: headless) gets the run's events and approvals (the language server's
    editor interaction); ``on_spawn`` is told every child's pid; ``client``: an HTTP client shared
    with other files (else the run opens its own)."""
    result = FileResult(str(path))
    definition, diagnostics = load_test(path)
    if definition is None:
        result.failures.append(_located(diagnostics, path))
        return result
    from lait_core.engine.records.record_options import RecordsRequest, RecordsSetupError, open_records
    from lait_core.engine.records.trace_events import TraceRecorder
    from lait_core.engine.run.interaction import HeadlessInteraction
    from lait_core.engine.run.run_session import RunSession
    from lait_core.engine.workflow import run_workflow

    base = path.parent
    cassette = Path(os.path.normpath(base / definition.replay))
    fresh = Path(tempfile.mkdtemp(prefix="lait-record-")) if record else None
    try:
        records = open_records(
            config,
            RecordsRequest(
                record=fresh,
                replay=None if record else cassette,
                cache=False,
                history=False,
                record_command=f"lait test --record {path}",
            ),
        )
    except RecordsSetupError as exc:
        result.failures.append(str(exc))
        return result
    records.trace = TraceRecorder()
    outputs = StepOutputs(CheckpointStore(base), Checkpoint("test", "", None, {}, [], []))
    prompt = None
    if definition.input is not None:
        import json

        prompt = definition.input if isinstance(definition.input, str) else json.dumps(definition.input)
    inputs = input_texts(definition.inputs)
    try:
        async with RunSession.open(
            config,
            config_dir,
            interaction or HeadlessInteraction("allow" if approve_tools else "error", record=False),
            approve_tools=approve_tools,
            records=records,
            on_spawn=on_spawn,
            client=client,
        ) as session:
            ran = await run_workflow(
                session,
                Path(os.path.normpath(base / definition.workflow)),
                prompt=prompt,
                inputs=inputs,
                checkpointer=outputs,
            )
    except BaseException as exc:
        if fresh is not None:
            shutil.rmtree(fresh, ignore_errors=True)
        if not isinstance(exc, Exception):
            raise
        result.failures.append(error_text(exc))  # a run failure fails this file only (docs/testing.md)
        return result
    if fresh is not None:
        from lait_core.testing.record import merge

        result.recorded = merge(fresh, cassette, str(cassette))
    outcome = Outcome(ran.text, records.trace.events, ran.usage, outputs.state.steps_outputs)
    result.failures.extend(await check_all(definition.assert_, outcome, on_spawn=on_spawn))
    return result


def input_texts(inputs: dict[str, Any] | None) -> dict[str, str]:
    """Declared inputs as ``--input`` text: a string as is, anything else as JSON."""
    import json

    return {
        k: v if isinstance(v, str) else json.dumps(v, ensure_ascii=False) for k, v in (inputs or {}).items()
    }


async def run_files(
    paths: list[Path], config: Config, config_dir: Path, *, approve_tools: bool = False, record: bool = False
) -> list[FileResult]:
    """Every file's result, in the order of ``paths``; at most :data:`CONCURRENCY` run at once.

    The files share one HTTP client (a service, like the connection pool of a server; each file
    still has its own run session, records and usage): creating a client loads the system's CA
    certificates, which cost more than replaying a whole test (bench/test_suite.py)."""
    from lait_core.engine.llm.client import ChatClient

    gate = asyncio.Semaphore(CONCURRENCY)

    async def one(path: Path, client: ChatClient) -> FileResult:
        async with gate:
            started = time.monotonic()
            result = await run_file(path, config, config_dir, approve_tools, record, client=client)
            result.seconds = time.monotonic() - started
            return result

    async with ChatClient() as client:
        return list(await asyncio.gather(*(one(p, client) for p in paths)))


def text_report(results: list[FileResult]) -> str:
    lines = []
    for r in results:
        lines.append(f"{r.file}: {'PASS' if r.passed else 'FAIL'}")
        for failure in r.failures:
            lines.extend("  " + line for line in failure.splitlines())
    passed = sum(r.passed for r in results)
    lines.append(f"{passed} passed, {len(results) - passed} failed, {len(results)} total")
    return "\n".join(lines) + "\n"
