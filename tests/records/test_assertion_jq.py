"""jq assertions of `lait test`, `lait eval` and `pytest --lait` run in the killable jq worker of
`lait run`, bounded in time and memory: `last(repeat(1))` fails its assertion instead of hanging,
Ctrl-C stops `lait test` at once, and no worker is left behind (real `lait` subprocesses)."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from lait_core.engine.workflow.jq_eval import JqEvaluator, WorkerDied
from tests.processes import running_with_marker

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = (
    "steps:\n  - run: [printf, '{\"n\": 1}']\n"  # no jq of its own: the only jq worker is the assertion's
)
ENDLESS = """\
workflow: wf.yml
input: x
replay: tape
assert:
  - type: jq
    expr: 'last(repeat(1))'
  - type: jq
    expr: '.n == 1'
  - type: step_output
    id: nowhere
    assert: []
"""
EVAL = """\
target:
  workflow: wf.yml
cases:
  - input: x
    assert:
      - type: jq
        expr: 'last(repeat(1))'
      - type: jq
        expr: '.n == 1'
"""


def _project(root: Path) -> tuple[Path, dict[str, str], str]:
    root.mkdir(parents=True, exist_ok=True)
    (root / "lait.config.yml").write_text("workflows: {}\n", encoding="utf-8")
    (root / "wf.yml").write_text(WORKFLOW, encoding="utf-8")
    (root / "tape").mkdir()
    (root / "endless.test.yml").write_text(ENDLESS, encoding="utf-8")
    (root / "endless.eval.yml").write_text(EVAL, encoding="utf-8")
    marker = uuid.uuid4().hex
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAIT_")}
    env.update(
        PYTHONPATH=str(REPO), LAIT_TEST_MARKER=marker, XDG_CONFIG_HOME=str(root / "xdg"), HOME=str(root)
    )
    return root, env, marker


def _workers(marker: str) -> list[int]:
    found = []
    for pid in running_with_marker(marker):
        try:
            if b"jq_worker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


def _lait(root: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lait_cli.main", *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


def test_an_endless_jq_assertion_fails_and_the_others_still_run(tmp_path: Path) -> None:
    root, env, marker = _project(tmp_path / "p")
    done = _lait(root, env, "test", "endless.test.yml")
    assert done.returncode == 1, done.stderr
    assert "assertion 1: jq: last(repeat(1)): gave up after 10 s" in done.stdout
    assert "assertion 2" not in done.stdout  # `.n == 1` holds
    assert "assertion 3: step_output: no output of step 'nowhere'" in done.stdout
    assert "Traceback" not in done.stderr + done.stdout
    assert running_with_marker(marker) == []


def test_lait_eval_jq_assertion_is_bounded_too(tmp_path: Path) -> None:
    root, env, marker = _project(tmp_path / "p")
    done = _lait(root, env, "eval", "endless.eval.yml")
    assert "last(repeat(1)): gave up after 10 s" in done.stdout + done.stderr, done.stdout + done.stderr
    assert "Traceback" not in done.stderr + done.stdout
    assert running_with_marker(marker) == []


def test_ctrl_c_stops_lait_test_during_a_jq_assertion(tmp_path: Path) -> None:
    root, env, marker = _project(tmp_path / "p")
    proc = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "test", "endless.test.yml"],
        cwd=root,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not _workers(marker) and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.05)
        assert _workers(marker), "the assertion's jq never reached a worker process"
        proc.send_signal(signal.SIGINT)
        assert proc.wait(8) == 130  # at once: well before the 10 s limit would end it
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(5)
        proc.communicate()
    deadline = time.monotonic() + 10
    while running_with_marker(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running_with_marker(marker) == []


def test_worker_memory_limit_ends_a_growing_evaluation() -> None:
    async def main() -> str:
        evaluator = JqEvaluator(memory_limit=256 << 20)
        try:
            await asyncio.wait_for(evaluator.evaluate("[range(1e9)] | length", None), 120)
        except WorkerDied as exc:
            return str(exc)
        finally:
            await evaluator.aclose()
        return "finished"

    assert "memory limit (256 MiB)" in asyncio.run(main())
