"""Lint many files on every core: a pool of forked worker processes, results in the files' order.

The parent has already loaded every config and rule policy the files need (so config reports,
baseline problems and their order are exactly those of a serial run); each worker is a fork of
it and lints contiguous chunks of the file list with the inherited :class:`Linter`, sending back
the chunk's reports and how many findings its baseline hid. Chunks come back in order, so the
output is byte for byte that of a serial run.

Only Linux forks: a forked worker starts in about a millisecond with everything imported, where a
spawned one would pay the interpreter's start-up and lait's imports again; before forking, the parent
also builds what every worker's first files would (:func:`_prepare`), so that is paid once. Elsewhere, and below
:data:`MIN_FILES`, linting stays in the calling process. Workers never outlive the parent: the
pool is shut down (and, when the lint is interrupted, its workers killed) on every exit path, and
each worker asks the kernel for SIGKILL when its parent dies (``PR_SET_PDEATHSIG``), so a killed
``lait lint`` leaves no process behind. A worker that dies costs nothing but time: the parent lints
the files whose reports had not come back.
"""

from __future__ import annotations

import gc
import os
import signal
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from lait_core.lint.engine import FileReport, Linter

MIN_FILES = 48
"""Below this many files a pool's start-up (forks, pipes, result pickling) saves less than it costs."""
FILES_PER_WORKER = 24
"""A worker is worth starting for at least this many files."""
CHUNKS_PER_WORKER = 6
"""Chunks per worker: enough for uneven files to balance out, few enough to keep messages cheap."""

_PR_SET_PDEATHSIG = 1
_linter: Linter | None = None
"""The parent's linter, inherited by each forked worker."""
_parent = 0


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells it)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def can_fork() -> bool:
    return sys.platform == "linux"


def worker_count(files: int, jobs: int) -> int:
    """How many workers lint ``files`` files with at most ``jobs`` processes (1: no pool)."""
    if jobs <= 1 or files < MIN_FILES or not can_fork():
        return 1
    return max(1, min(jobs, files // FILES_PER_WORKER))


def chunks(paths: Sequence[Path], workers: int) -> list[list[Path]]:
    """``paths`` cut into contiguous runs, in order."""
    size = max(1, -(-len(paths) // (workers * CHUNKS_PER_WORKER)))
    return [list(paths[i : i + size]) for i in range(0, len(paths), size)]


def _die_with_parent() -> None:
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass
    if os.getppid() != _parent:  # the parent died before the request took effect
        os._exit(1)


def _start_worker() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _die_with_parent()


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


def _lint_chunk(paths: list[Path]) -> tuple[list[FileReport], int]:
    linter = _linter
    assert linter is not None, "a lint worker runs only in a fork of the parent"
    before = linter.baselined
    lint = linter.lint_file_of_batch if linter.options.batch else linter.lint_file
    reports = [lint(path) for path in paths]
    return reports, linter.baselined - before


def lint_in_pool(linter: Linter, paths: Sequence[Path], workers: int) -> Iterator[FileReport]:
    """Each file's report, in the order of ``paths``, linted by ``workers`` forked processes;
    the findings the baselines hid are added to ``linter.baselined``. If a worker dies (killed, out
    of memory), the files not reported yet are linted here instead: nothing is lost, nothing hangs."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    global _linter, _parent
    _linter, _parent = linter, os.getpid()
    _prepare()
    # Objects the parent made so far are never scanned again by the collector, in the parent or the
    # workers: a collection in a fresh fork would otherwise touch (and copy) every inherited page.
    gc.freeze()
    pool = ProcessPoolExecutor(
        workers, mp_context=multiprocessing.get_context("fork"), initializer=_start_worker
    )
    done = 0
    work = chunks(paths, workers)
    finished = False
    try:
        try:
            for reports, hidden in pool.map(_lint_chunk, work):
                linter.baselined += hidden
                done += 1
                yield from reports
        except BrokenProcessPool:
            for chunk in work[done:]:
                for path in chunk:
                    yield linter.lint_file(path)
        finished = True
    finally:
        if not finished:  # interrupted, or an error: the workers stop now, not after their chunk
            processes = getattr(pool, "_processes", None) or {}
            for process in list(processes.values()):
                if process.is_alive():
                    process.kill()
        pool.shutdown(wait=True, cancel_futures=True)
        _linter = None
        gc.unfreeze()
