"""Lint many files on every core: the calling process and forked workers, results in the files' order.

The parent has already loaded every config and rule policy the files need (so config reports,
baseline problems and their order are exactly those of a serial run). It forks one worker fewer
than the processes asked for and lints a share itself, instead of waiting while the workers lint
(docs/performance.md#what-keeps-lait-lint-fast). The file list is cut into contiguous chunks, large
first and smaller towards the end (:func:`chunks`), so the processes finish close together; each
process takes the next chunk from a queue they share (a pipe holding the chunks' numbers) and lints
it with the inherited :class:`Linter`. A worker appends each chunk's reports, and how many findings
its baseline hid, to a memory file of its own, which the parent reads once the worker has exited;
the reports are then put back in the files' order, so the output is byte for byte that of a serial
run.

Only Linux forks: a forked worker starts in about a millisecond with everything imported, where a
spawned one would pay the interpreter's start-up and lait's imports again; before forking, the
parent also builds what every worker's first files would (:func:`_prepare`), so that is paid once.
Elsewhere, and below :data:`MIN_FILES`, linting stays in the calling process. Workers never outlive
the parent: they are killed and reaped on every exit path but the normal one (where they have
exited), and each asks the kernel for SIGKILL when its parent dies (``PR_SET_PDEATHSIG``), so a
killed ``lait lint`` leaves no process behind. A worker that dies costs nothing but time: the
parent lints the chunks whose reports it did not write.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lait_core.lint.engine import FileReport, Linter

MIN_FILES = 48
"""Below this many files a pool's start-up (forks, result pickling) saves less than it costs."""
FILES_PER_WORKER = 24
"""A process is worth linting for at least this many files."""
SMALLEST_CHUNK = 4
"""The files of the last chunks: a few ms of lint, so the processes finish within that of each other."""
MAX_CHUNKS = 4096
"""The queue holds each chunk's number in 4 bytes and is filled before the forks: it must fit in
a pipe's buffer (64 KiB on Linux) so that filling it never blocks."""

_PR_SET_PDEATHSIG = 1
_parent = 0

Chunk = tuple[list["FileReport"], int]
"""A chunk's reports, and how many findings the baselines hid in it."""


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    return sys.platform == "linux"


def worker_count(files: int, jobs: int) -> int:
    """How many processes, the calling one included, lint ``files`` files with at most ``jobs`` (1: no fork)."""
    if jobs <= 1 or files < MIN_FILES or not can_fork():
        return 1
    return max(1, min(jobs, files // FILES_PER_WORKER))


def chunks(paths: Sequence[Path], workers: int) -> list[list[Path]]:
    """``paths`` cut into contiguous runs, in order: each a share of what is left (half of what
    each process would still get), so the first are large and the last :data:`SMALLEST_CHUNK` files."""
    smallest = max(SMALLEST_CHUNK, -(-len(paths) // (MAX_CHUNKS // 2)))
    out: list[list[Path]] = []
    start = 0
    while start < len(paths):
        size = max(smallest, -(-(len(paths) - start) // (2 * workers)))
        out.append(list(paths[start : start + size]))
        start += size
    return out


def _die_with_parent() -> None:
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != _parent:  # the parent died before the request took effect
        os._exit(1)


def _prepare() -> None:
    """Do here, once, what each worker would otherwise do on its first files (about 50 ms of CPU
    apiece: building the models' validators, the jq builtins table, the tree-sitter parser and the
    modules a lint imports on first use); the forks inherit it."""
    import importlib

    from lait_core.documents.document_models import build_lint_validators
    from lait_core.syntax import jq
    from lait_core.syntax.yaml.parse import parse_yaml

    build_lint_validators()
    jq.prepare()
    parse_yaml("{}\n")
    importlib.import_module("lait_core.rules.agents.context_budget")  # an agent's lint imports it


def _lint_chunk(linter: Linter, paths: list[Path]) -> Chunk:
    before = linter.baselined
    lint = linter.lint_file_of_batch if linter.options.batch else linter.lint_file
    reports = [lint(path) for path in paths]
    return reports, linter.baselined - before


def _take(queue: int) -> int | None:
    """The next chunk's number, or None once the queue is empty (its writing end is closed)."""
    data = os.read(queue, 4)
    return int.from_bytes(data, "little") if len(data) == 4 else None


def _work(linter: Linter, work: list[list[Path]], queue: int, deliver: Callable[[int, Chunk], None]) -> None:
    while (index := _take(queue)) is not None:
        deliver(index, _lint_chunk(linter, work[index]))


def _result_file() -> int:
    try:
        return os.memfd_create("lait-lint", os.MFD_CLOEXEC)
    except (AttributeError, OSError):
        import tempfile

        return os.dup(tempfile.TemporaryFile().fileno())


def _run_worker(linter: Linter, work: list[list[Path]], queue: int, out: int) -> None:
    """A forked worker's whole life: it never returns into the parent's code (``os._exit``)."""
    status = 1
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
        _die_with_parent()
        import pickle

        def deliver(index: int, done: Chunk) -> None:
            record = pickle.dumps((index, *done), protocol=pickle.HIGHEST_PROTOCOL)
            data = memoryview(len(record).to_bytes(8, "little") + record)
            while data:
                data = data[os.write(out, data) :]

        _work(linter, work, queue, deliver)
        status = 0
    finally:
        os._exit(status)


def _read_results(out: int, into: dict[int, Chunk]) -> None:
    """The chunks a worker wrote to ``out``; a record it was killed while writing is left out."""
    import pickle

    size = os.lseek(out, 0, os.SEEK_END)
    data = os.pread(out, size, 0) if size else b""
    at = 0
    while at + 8 <= len(data):
        length = int.from_bytes(data[at : at + 8], "little")
        if at + 8 + length > len(data):
            break
        index, reports, hidden = pickle.loads(data[at + 8 : at + 8 + length])
        into[index] = (reports, hidden)
        at += 8 + length


def lint_in_pool(linter: Linter, paths: Sequence[Path], workers: int) -> Iterator[FileReport]:
    """Each file's report, in the order of ``paths``, linted by this process and ``workers - 1``
    forked ones; the findings the baselines hid are added to ``linter.baselined``. If a worker dies
    (killed, out of memory), this process lints the chunks it did not report: nothing is lost,
    nothing hangs."""
    global _parent
    _parent = os.getpid()
    _prepare()
    work = chunks(paths, workers)
    done: dict[int, Chunk] = {}
    children: dict[int, int] = {}  # pid -> its result file
    queue, fill = os.pipe()
    # Objects the parent made so far are never scanned again by the collector, in the parent or the
    # workers: a collection in a fresh fork would otherwise touch (and copy) every inherited page.
    gc.freeze()
    try:
        try:
            os.write(fill, b"".join(i.to_bytes(4, "little") for i in range(len(work))))
        finally:
            os.close(fill)  # so that an empty queue reads as its end
        for _ in range(workers - 1):
            out = _result_file()
            try:
                pid = os.fork()
            except OSError:  # no more processes: the ones started (and this one) lint it all
                os.close(out)
                break
            if pid == 0:
                _run_worker(linter, work, queue, out)
            children[pid] = out
        # this process's own chunks: their hidden findings are already in linter.baselined
        _work(linter, work, queue, lambda index, chunk: done.__setitem__(index, (chunk[0], 0)))
        for pid, out in list(children.items()):
            os.waitpid(pid, 0)
            del children[pid]
            try:
                _read_results(out, done)
            finally:
                os.close(out)
        for index, chunk in enumerate(work):  # a worker died before reporting these
            if index not in done:
                done[index] = (_lint_chunk(linter, chunk)[0], 0)
    finally:
        for pid, out in children.items():  # interrupted, or an error: the workers stop now
            os.kill(pid, signal.SIGKILL)  # not reaped yet, so the pid is still this worker's
            os.waitpid(pid, 0)
            os.close(out)
        os.close(queue)
        gc.unfreeze()
    for index in range(len(work)):
        reports, hidden = done[index]
        linter.baselined += hidden
        yield from reports
