"""`lait lint` over many files in the calling process and forked workers: the same bytes as a serial
run, in every format, also when a worker dies, and no worker left behind (after a normal exit, after
Ctrl-C, and after the parent is killed mid-lint)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from lait_core.documents.config_file import ConfigMode
from lait_core.lint.discovery import discover
from lait_core.lint.engine import Linter, LintOptions
from lait_core.lint.parallel import MIN_FILES, SMALLEST_CHUNK, chunks, lint_in_pool, worker_count
from tests.cli.conftest import Lait
from tests.engine.conftest import live_group_members

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="lint workers are forked on Linux only")

CONFIG = """\
agents:
  helper: agents/helper.md
skills:
  notes: skills/notes
lint:
  ignore: [LAIT505]
"""
SKILL = "---\nname: notes\ndescription: Notes about the project.\n---\nWrite things down.\n"
AGENT = "---\nname: helper\ntemperature: 0.5\n---\nHelp with {{ input }}.\n"
BAD_AGENT = "---\nname: other{n}\ntemperature: hot\n---\nHelp with {{{{ input }}.\n"
CLEAN = """\
name: clean{n}
inputs:
  topic: string
steps:
  - id: first
    prompt: "Write about {{{{ inputs.topic }}}} ({n})."
    skills: [notes]
  - jq: '$steps.first | length + {n}'
  - agent: helper
"""
BROKEN = """\
name: broken{n}
bogus_key: {n}
steps:
  - id: first
    prompt: "Hello {{{{ steps.missing{n} }}}}"
    skills: [notes, nope{n}]
  - jq: '.a | ({n}'
  - agent: nobody{n}
  - workflow: ../workflows/clean{m}.yml
"""
NOT_YAML = "steps: [unclosed\n  - id: x{n}\n"


def write_project(root: Path, workflows: int) -> Path:
    """A project whose files give errors, warnings and clean results, in several folders."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "lait.config.yml").write_text(CONFIG, encoding="utf-8")
    (root / "agents").mkdir(parents=True)
    (root / "agents" / "helper.md").write_text(AGENT, encoding="utf-8")
    (root / "skills" / "notes").mkdir(parents=True)
    (root / "skills" / "notes" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    for n in range(workflows):
        folder = root / ("workflows" if n % 4 else f"more/deeper{n % 3}")
        folder.mkdir(parents=True, exist_ok=True)
        text = (CLEAN, BROKEN, CLEAN, NOT_YAML)[n % 4].format(n=n, m=(n + 2) % workflows)
        (folder / f"{('clean', 'broken', 'clean', 'bad')[n % 4]}{n}.yml").write_text(text, encoding="utf-8")
        if n % 10 == 0:
            (root / "agents" / f"other{n}.md").write_text(BAD_AGENT.format(n=n), encoding="utf-8")
    return root


@pytest.mark.parametrize(("fmt", "jobs"), [("text", "2"), ("json", "2"), ("sarif", "2"), ("github", "3")])
def test_parallel_output_is_byte_identical_to_serial(lait: Lait, fmt: str, jobs: str) -> None:
    write_project(lait.cwd / "project", MIN_FILES + 40)
    serial = lait("lint", "--format", fmt, "--jobs", "1", "project")
    parallel = lait("lint", "--format", fmt, "--jobs", jobs, "project")
    assert serial.returncode == 3, serial.stderr  # errors were found
    assert "LAIT" in serial.stdout
    assert (parallel.returncode, parallel.stdout, parallel.stderr) == (
        serial.returncode,
        serial.stdout,
        serial.stderr,
    )


def test_a_baseline_hides_the_same_findings_in_workers(lait: Lait) -> None:
    write_project(lait.cwd / "project", MIN_FILES + 40)
    assert lait("lint", "--jobs", "1", "--write-baseline", "base.json", "project").returncode == 0
    for n in range(1, 40, 4):  # new findings in some files, the baseline still hides the old ones
        path = lait.cwd / "project" / "workflows" / f"broken{n}.yml"
        path.write_text(path.read_text(encoding="utf-8") + "  - agent: another\n", encoding="utf-8")
    serial = lait("lint", "--jobs", "1", "--baseline", "base.json", "project")
    parallel = lait("lint", "--jobs", "2", "--baseline", "base.json", "project")
    assert "in the baseline not shown" in serial.stderr
    assert "another" in serial.stdout
    assert (parallel.returncode, parallel.stdout, parallel.stderr) == (
        serial.returncode,
        serial.stdout,
        serial.stderr,
    )


def test_the_pool_serves_exactly_the_serial_reports(tmp_path: Path) -> None:
    project = write_project(tmp_path / "project", MIN_FILES + 40)
    paths = [Path(p) for p in discover([str(project)]) if not p.endswith("lait.config.yml")]
    assert worker_count(len(paths), 2) == 2  # so `--jobs 2` above went through the pool
    serial = Linter(LintOptions(ConfigMode.SEARCH))
    expected = [serial.lint_file(path) for path in paths]
    assert any(report.diagnostics for report in expected)
    for workers in (2, 3):
        pooled = Linter(LintOptions(ConfigMode.SEARCH, jobs=workers))
        for path in paths:
            pooled.workspace_for(path)
            pooled.policy_for(path)
        assert list(lint_in_pool(pooled, paths, workers)) == expected


def test_chunks_cover_the_files_in_order_and_shrink_to_the_smallest() -> None:
    paths = [Path(f"f{n}.yml") for n in range(1200)]
    cut = chunks(paths, 2)
    assert [p for chunk in cut for p in chunk] == paths
    sizes = [len(chunk) for chunk in cut]
    assert sizes == sorted(sizes, reverse=True)
    assert sizes[0] == 300  # a quarter: half of each process's share
    assert sizes[-2] == SMALLEST_CHUNK  # the processes finish within a few files of each other
    assert chunks(paths[:3], 2) == [paths[:3]]


def test_few_files_are_linted_without_a_pool() -> None:
    assert worker_count(MIN_FILES - 1, 8) == 1
    assert worker_count(10_000, 1) == 1
    assert worker_count(10_000, 4) == 4


def test_bad_jobs_is_a_usage_error(lait: Lait) -> None:
    done = lait("lint", "--jobs", "0", ".")
    assert done.returncode == 2
    assert "--jobs must be at least 1" in done.stderr


def _lint_in_own_group(lait: Lait, *args: str, capture: bool = False) -> subprocess.Popen[bytes]:
    """``lait lint ARGS`` in a session of its own (its pid is its group's); ``capture``: its output piped."""
    output = subprocess.PIPE if capture else subprocess.DEVNULL
    return subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "lint", *args],
        cwd=lait.cwd,
        env=lait.env,
        stdin=subprocess.DEVNULL,
        stdout=output,
        stderr=output,
        start_new_session=True,
    )


def _wait_until(condition: object, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if callable(condition) and condition():
            return True
        time.sleep(0.005)
    return False


def test_no_worker_outlives_a_normal_lint(lait: Lait) -> None:
    write_project(lait.cwd / "project", MIN_FILES + 40)
    proc = _lint_in_own_group(lait, "--jobs", "2", "project")
    assert proc.wait(120) == 3
    assert _wait_until(lambda: not live_group_members(proc.pid), 10), live_group_members(proc.pid)


def test_workers_die_with_a_killed_parent(lait: Lait) -> None:
    write_project(lait.cwd / "project", 1200)
    proc = _lint_in_own_group(lait, "--jobs", "3", "project")  # the parent and two workers
    try:
        seen = _wait_until(lambda: len(live_group_members(proc.pid)) >= 3, 60)
        if not seen:
            pytest.skip("the lint ended before both workers were seen")
        os.kill(proc.pid, signal.SIGKILL)  # the parent only: its workers get no signal from us
        proc.wait(10)
        assert _wait_until(lambda: not live_group_members(proc.pid), 10), live_group_members(proc.pid)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        # a failed assertion must not leave the workers running either
        if live_group_members(proc.pid):
            os.killpg(proc.pid, signal.SIGKILL)


def test_a_killed_worker_loses_no_report(lait: Lait) -> None:
    write_project(lait.cwd / "project", 1200)
    serial = lait("lint", "--jobs", "1", "project")
    proc = _lint_in_own_group(lait, "--jobs", "3", "project", capture=True)
    try:
        workers: list[int] = []

        def two_workers() -> bool:
            workers[:] = [pid for pid in live_group_members(proc.pid) if pid != proc.pid]
            return len(workers) >= 2

        if not _wait_until(two_workers, 60):
            proc.kill()
            proc.communicate()
            pytest.skip("the lint ended before both workers were seen")
        os.kill(workers[0], signal.SIGKILL)
        out, err = proc.communicate(timeout=300)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == serial.returncode == 3
    assert out.decode() == serial.stdout
    assert err.decode() == serial.stderr
    assert _wait_until(lambda: not live_group_members(proc.pid), 10)


def test_ctrl_c_stops_the_workers_and_reports_it(lait: Lait) -> None:
    write_project(lait.cwd / "project", 1200)
    proc = _lint_in_own_group(lait, "--jobs", "3", "project", capture=True)
    try:
        if not _wait_until(lambda: len(live_group_members(proc.pid)) >= 3, 60):
            proc.kill()
            proc.communicate()
            pytest.skip("the lint ended before both workers were seen")
        os.kill(proc.pid, signal.SIGINT)  # the parent only, as the workers ignore it anyway
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 130
    assert err.decode() == "lait: interrupted\n"  # said once, no traceback
    assert out.decode() == ""  # no report of a part of the files
    assert _wait_until(lambda: not live_group_members(proc.pid), 10), live_group_members(proc.pid)
