"""The garbage-collector pause (lait_core.support.gcpause) and how the language server's lint thread uses it:
pauses are counted across threads, a hold may be released before it is taken, and a lint's
collection waits until the step that received its diagnostics (the publish) is over."""

from __future__ import annotations

import asyncio
import gc
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from lait_core.documents.config_file import ConfigMode
from lait_core.lint.discovery import FileKind, discover, file_kind
from lait_core.lint.engine import Linter, LintOptions
from lait_core.support import gcpause
from lait_core.support.gcpause import GcHold, paused_gc, pauses
from lait_core.syntax.bounded_read import read_source
from lait_ls.lint_worker import LintWorker

WORKFLOW = "steps:\n  - id: a\n    jq: '.x | length'\n  - id: b\n    prompt: 'Hello {{ steps.a }}'\n"


@pytest.fixture(autouse=True)
def collector_on() -> Iterator[None]:
    was = gc.isenabled()
    gc.enable()
    yield
    assert pauses() == 0
    gc.unfreeze()
    if not was:
        gc.disable()


def test_overlapping_pauses_of_two_threads_turn_the_collector_on_only_at_the_last_end() -> None:
    first_in, second_in, first_out = threading.Event(), threading.Event(), threading.Event()
    seen: list[bool] = []

    def first() -> None:
        with paused_gc():
            first_in.set()
            second_in.wait(10)
        first_out.set()

    def second() -> None:
        first_in.wait(10)
        with paused_gc():
            second_in.set()
            first_out.wait(10)
            seen.append(gc.isenabled())  # the first pause is over, this one is not
        seen.append(gc.isenabled())

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert seen == [False, True]


def test_a_collector_that_was_off_stays_off() -> None:
    gc.disable()
    with paused_gc():
        hold = GcHold()
        hold.take()
    hold.release()
    assert not gc.isenabled()
    gc.enable()


def test_a_hold_released_before_it_is_taken_is_never_taken() -> None:
    hold = GcHold()
    hold.release()
    hold.take()
    assert gc.isenabled() and pauses() == 0


def test_a_hold_pauses_until_its_release_which_is_idempotent() -> None:
    hold = GcHold()
    hold.take()
    hold.take()
    with paused_gc():
        pass
    assert not gc.isenabled()
    hold.release()
    hold.release()
    assert gc.isenabled()


def worker() -> LintWorker:
    return LintWorker(LintOptions(ConfigMode.DISABLED), reader=read_source)


async def test_a_lint_collects_only_after_the_step_that_received_its_diagnostics(tmp_path: Path) -> None:
    path = tmp_path / "wf.yml"
    path.write_text(WORKFLOW, encoding="utf-8")
    diags = await worker().lint(WORKFLOW.replace("length", "lenght"), path, FileKind.WORKFLOW, list)
    assert diags is not None and any(d.code.startswith("LAIT") for d in diags)
    assert not gc.isenabled()  # this step converts and publishes them with the collector still paused
    await asyncio.sleep(0)
    assert gc.isenabled()


async def test_a_cancelled_lint_leaves_the_collector_on(tmp_path: Path) -> None:
    path = tmp_path / "wf.yml"
    lw = worker()
    started = threading.Event()
    release = threading.Event()
    blocker = asyncio.ensure_future(lw.run(lambda: (started.set(), release.wait(10)), "blocker"))
    await asyncio.to_thread(started.wait, 10)
    lint = asyncio.ensure_future(lw.lint(WORKFLOW * 50, path, FileKind.WORKFLOW, list))
    await asyncio.sleep(0)
    lint.cancel()  # before the thread took the job
    with pytest.raises(asyncio.CancelledError):
        await lint
    release.set()
    await blocker
    assert await lw.run(lambda: 42, "after") == 42
    await asyncio.sleep(0)
    assert gc.isenabled() and pauses() == 0


def test_the_end_of_a_hold_freezes_what_was_made_and_every_nth_unfreezes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(gcpause, "UNFREEZE_EVERY", 3)
    monkeypatch.setattr(gcpause, "_holds", 0)
    gc.unfreeze()
    counts = []
    for _ in range(3):
        hold = GcHold()
        hold.take()
        made = [[] for _ in range(1000)]  # tracked objects made under the hold
        hold.release()
        counts.append(gc.get_freeze_count())
        del made
    assert counts[0] >= 1000 and counts[1] >= counts[0] - 1000  # frozen, not scanned by collections
    assert counts[2] == 0  # the third hold unfroze the heap: cyclic garbage is collected again
    with paused_gc():
        pass
    assert gc.get_freeze_count() == 0  # a plain pause (the CLI's lint) never freezes


CORPUS = Path(__file__).resolve().parents[1] / "corpus"


def test_a_lint_makes_no_reference_cycles_even_of_broken_files() -> None:
    """What a batch lint freezes after each file (freeze_survivors) is never garbage the collector
    would have freed: linting the test corpus (syntax errors, tabs, aliases, a billion laughs, every
    kind of file) leaves no cyclic garbage."""
    files = [Path(p) for p in discover([str(CORPUS)])]
    files = [p for p in files if file_kind(p) is not FileKind.CONFIG]  # configs load once, not per file
    linter = Linter(LintOptions(ConfigMode.DISABLED))
    for path in files:  # imports and one-time set-up
        linter.lint_file(path)
    gc.collect()
    gc.disable()
    try:
        reports = [linter.lint_file(path) for path in files]
        found = gc.collect()
    finally:
        gc.enable()
    assert len(reports) > 300 and sum(r.errors for r in reports) > 100
    assert found == 0


def test_a_batch_lint_freezes_what_each_file_leaves_and_a_paused_one_does_not() -> None:
    files = [str(p) for p in sorted((CORPUS / "references").rglob("*.yml"))[:3]]
    assert files
    gc.unfreeze()
    Linter(LintOptions(ConfigMode.DISABLED)).lint_paths(files)
    assert gc.get_freeze_count() == 0  # not a batch (the editor's lints have their own policy)
    Linter(LintOptions(ConfigMode.DISABLED, batch=True)).lint_paths(files)
    assert gc.get_freeze_count() > 0
    gc.unfreeze()
    with paused_gc():
        Linter(LintOptions(ConfigMode.DISABLED, batch=True)).lint_paths(files)
    assert gc.get_freeze_count() == 0
