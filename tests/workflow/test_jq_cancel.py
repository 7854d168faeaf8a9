"""Workflow jq runs in a killable worker process (docs/workflows.md: jq evaluation is
cancellable): an endless expression is cut off by a step `timeout:`, the workflow `timeout`,
SIGTERM and Ctrl-C, leaving no process; one worker serves a whole run; values and errors are
those of in-process evaluation."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from lait_core.engine.processes.spawn import live_group_members
from lait_core.engine.workflow import StepTimedOut, WorkflowTimedOut
from lait_core.engine.workflow.jq_eval import JqEvaluator, WorkerDied
from lait_core.syntax import jq
from tests.processes import running_with_marker, wait_for_marked
from tests.workflow.conftest import Harness

REPO = Path(__file__).resolve().parents[2]
ENDLESS = "last(range(1e10))"


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def gone(pids: list[int]) -> bool:
    return all(not alive(p) and live_group_members(p) == [] for p in pids)


def test_step_timeout_cuts_an_endless_jq_step(wf: Harness) -> None:
    wf.write(
        "w.yml",
        f"""
        steps:
          - jq: '.'
          - id: spin
            jq: '{ENDLESS}'
            timeout: 1
        """,
    )
    started = time.monotonic()
    with pytest.raises(StepTimedOut) as caught:
        asyncio.run(wf.run("w.yml", "x"))
    assert time.monotonic() - started < 30  # the spin was cut (a worker's start-up counts too)
    assert str(caught.value) == "step 'spin' timed out after 1s (attempt 1/1)"
    assert len(wf.spawned) == 1
    assert gone(wf.spawned)


def test_retry_after_a_timeout_starts_a_fresh_worker(wf: Harness) -> None:
    wf.write(
        "w.yml",
        f"""
        steps:
          - id: spin
            jq: '{ENDLESS}'
            timeout: 1
            retry: {{max_attempts: 2, delay_seconds: 0}}
        """,
    )
    with pytest.raises(StepTimedOut, match=r"attempt 2/2"):
        asyncio.run(wf.run("w.yml", "x"))
    assert len(wf.spawned) == 2  # the first worker was killed with the first attempt
    assert gone(wf.spawned)


def test_workflow_timeout_cuts_an_endless_when(wf: Harness) -> None:
    wf.write(
        "w.yml",
        f"""
        timeout: 1
        steps:
          - jq: '. + "!"'
            when: '{ENDLESS} > 0'
        """,
    )
    started = time.monotonic()
    with pytest.raises(WorkflowTimedOut):
        asyncio.run(wf.run("w.yml", "x"))
    assert time.monotonic() - started < 30  # the spin was cut
    assert len(wf.spawned) == 1
    assert gone(wf.spawned)


def test_one_worker_serves_every_expression_of_a_run(wf: Harness) -> None:
    wf.write(
        "child.yml",
        """
        inputs: {n: {type: number}}
        steps:
          - jq: '$inputs.n * 10'
        output: '{child: .}'
        """,
    )
    wf.write(
        "w.yml",
        """
        steps:
          - id: items
            jq: '[range(5)]'
          - id: doubled
            for_each: '.'
            steps:
              - jq: '. * 2'
                when: '$loop.index >= 0'
                input: '.'
                output: '. + 0'
          - id: picked
            switch:
              - when: 'length == 5'
                steps: [{jq: 'add'}]
            else: [{jq: '0'}]
          - until: '. > 100'
            max_iterations: 10
            steps: [{jq: '. * 3'}]
          - workflow: child.yml
            with: '{n: .}'
        output: '{last: ., doubled: $steps.doubled, picked: $steps.picked}'
        """,
    )
    result = asyncio.run(wf.run("w.yml", "x"))
    assert result.value == {"last": {"child": 1800}, "doubled": [0, 2, 4, 6, 8], "picked": 20}
    assert len(wf.spawned) == 1, "one worker for the whole run, child workflow included"
    assert gone(wf.spawned), "the worker is killed when the run ends"


def test_concurrent_for_each_keeps_the_order(wf: Harness) -> None:
    wf.write(
        "w.yml",
        """
        steps:
          - for_each: '[range(40)]'
            max_concurrency: 8
            steps:
              - jq: '[range(. * 500)] | length'
              - jq: '{i: $loop.index, n: .}'
        """,
    )
    result = asyncio.run(wf.run("w.yml", "x"))
    assert result.value == [{"i": i, "n": i * 500} for i in range(40)]
    assert 1 <= len(wf.spawned) <= 2
    assert gone(wf.spawned)


VALUES: list[tuple[str, Any]] = [
    (".", {"a": [1, 2.5, None, True, "é\u2028"], "b": {}}),
    (". + 1", 12345678901234567890123),
    (". * 1", 0.1),
    ("1e1000", None),
    ("-1e1000", None),
    ("[., $steps.s, $inputs.i, $loop]", "v"),
    ("nan", None),
    ("{(.): 1}", "k"),
    ("[limit(3; repeat(1))]", None),
    ("$ENV | type", None),
    (".[0] / 3", [1]),
    ("tostring", 1.5e300),
]
ERRORS: list[tuple[str, Any]] = [
    (".a", [1]),
    ('error("boom")', None),
    ("error({a: 1})", None),
    ("1, 2", None),
    ("empty", None),
    ("range(200000)", None),
    (".[", None),
    ("$nope", None),
    # the rendered result (17 MB) is beyond the 16 MiB output limit; a string gets there in about
    # a second, where an array of numbers (`[range(10000000)]`) took a minute of CI time
    ('"x" * 17000000', None),
]


def deep(levels: int) -> Any:
    value: Any = 0
    for _ in range(levels):
        value = [value]
    return value


def test_values_and_errors_match_in_process_evaluation() -> None:
    async def main() -> None:
        evaluator = JqEvaluator()
        extra = {"steps": {"s": {"x": [1]}}, "inputs": {"i": 2}, "loop": {"index": 3}}
        try:
            for expr, value in VALUES:
                got = await evaluator.evaluate(expr, value, **extra)
                want = jq.evaluate(expr, value, **extra)
                assert got == want and repr(got) == repr(want), expr
            for expr, value in [*ERRORS, (".", deep(1100)), ("[.]", deep(1024)), (".", deep(100_000))]:
                with pytest.raises(jq.JqError) as in_process:
                    jq.evaluate(expr, value, **extra)
                with pytest.raises(jq.JqError) as in_worker:
                    await evaluator.evaluate(expr, value, **extra)
                assert in_worker.value.message == in_process.value.message, expr
            nested = deep(1000)
            assert await evaluator.evaluate(".", nested) == nested
            assert evaluator.spawned == 1
        finally:
            await evaluator.aclose()
            await evaluator.aclose()  # idempotent

    asyncio.run(main())


def test_a_worker_killed_from_outside_is_a_clear_error_then_replaced() -> None:
    pids: list[int] = []

    async def main() -> None:
        evaluator = JqEvaluator(on_spawn=pids.append)
        try:
            assert await evaluator.evaluate(". + 1", 1) == 2
            task = asyncio.ensure_future(evaluator.evaluate(ENDLESS, None))
            await asyncio.sleep(0.3)
            os.killpg(pids[0], signal.SIGKILL)
            with pytest.raises(WorkerDied, match=r"ended unexpectedly \(signal 9\)"):
                await task
            assert await evaluator.evaluate(". + 1", 2) == 3
        finally:
            await evaluator.aclose()

    asyncio.run(main())
    assert len(pids) == 2
    assert gone(pids)


def test_cancelling_an_evaluation_kills_only_its_worker() -> None:
    pids: list[int] = []

    async def main() -> None:
        evaluator = JqEvaluator(on_spawn=pids.append)
        try:
            spin = asyncio.ensure_future(evaluator.evaluate(ENDLESS, None))
            await asyncio.sleep(0.3)
            # the second slot still answers while the first worker spins
            assert await evaluator.evaluate(". * 2", 21) == 42
            started = time.monotonic()
            spin.cancel()
            with pytest.raises(asyncio.CancelledError):
                await spin
            assert time.monotonic() - started < 20  # the spin ends only when its worker is killed
            assert not alive(pids[0]) and alive(pids[1])
        finally:
            await evaluator.aclose()

    asyncio.run(main())
    assert gone(pids)


# --------------------------------------------------------------------------------------------
# Through the CLI: SIGTERM and Ctrl-C


def signal_a_spinning_run(tmp_path: Path, signum: int) -> tuple[int, str, float]:
    (tmp_path / "w.yml").write_text(
        textwrap.dedent(
            f"""
            steps:
              - jq: '. + "!"'
              - jq: '{ENDLESS}'
            """
        ).lstrip("\n"),
        encoding="utf-8",
    )
    marker = uuid.uuid4().hex
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAIT_")}
    env.update(XDG_CONFIG_HOME=str(tmp_path / "xdg"), PYTHONPATH=str(REPO), LAIT_TEST_MARKER=marker)
    proc = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "run", "--no-config", "w.yml", "in"],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert len(wait_for_marked(marker, 2)) >= 2, "the jq worker never started"  # lait and its worker
        time.sleep(0.5)  # the second step is spinning now
        sent = time.monotonic()
        proc.send_signal(signum)
        _out, err = proc.communicate(timeout=30)
        took = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    time.sleep(0.2)
    assert running_with_marker(marker) == [], "a process was left behind"
    return proc.returncode, err.decode(), took


def test_sigterm_ends_a_spinning_jq_step(tmp_path: Path) -> None:
    code, err, took = signal_a_spinning_run(tmp_path, signal.SIGTERM)
    assert code == 143, err
    assert "Traceback" not in err
    assert took < 20  # the spin ends only when its worker is killed


def test_ctrl_c_ends_a_spinning_jq_step(tmp_path: Path) -> None:
    code, err, took = signal_a_spinning_run(tmp_path, signal.SIGINT)
    assert code == 130, err
    assert "Traceback" not in err
    assert took < 20  # the spin ends only when its worker is killed


# --------------------------------------------------------------------------------------------
# Through the language server: a spinning run does not freeze it, and cancelling it kills the worker


def jq_workers(marker: str) -> list[int]:
    found = []
    for pid in running_with_marker(marker):
        try:
            if b"lait_core.syntax.jq_worker" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.append(pid)
        except OSError:
            continue
    return found


async def test_editor_cancel_kills_a_spinning_jq_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from lsprotocol import types as lsp

    from tests.lsp.run_support import run_client, wait_until

    marker = uuid.uuid4().hex
    monkeypatch.setenv("LAIT_TEST_MARKER", marker)  # run_client passes os.environ to lait-ls
    (tmp_path / "spin.yml").write_text(f"steps:\n  - jq: '{ENDLESS}'\n", encoding="utf-8")
    (tmp_path / "quick.yml").write_text("steps:\n  - jq: '. + \"!\"'\n", encoding="utf-8")
    async with run_client(tmp_path) as client:
        future = client.protocol.send_request(
            "lait/run",
            {"uri": (tmp_path / "spin.yml").as_uri(), "kind": "workflow", "prompt": "x", "runId": "spin"},
            msg_id="run-spin",
        )
        assert await wait_until(lambda: len(jq_workers(marker)) == 1, 30)
        spinning = jq_workers(marker)
        await asyncio.sleep(0.3)
        # the server still answers: another run completes while the first one spins
        quick = await asyncio.wait_for(
            client.protocol.send_request_async(
                "lait/run",
                {"uri": (tmp_path / "quick.yml").as_uri(), "kind": "workflow", "prompt": "x", "runId": "q"},
            ),
            20,
        )
        assert client.events_of("q")[-1]["status"] == "ok", quick
        client.cancel_request(lsp.CancelParams(id="run-spin"))
        with pytest.raises(Exception, match="cancel"):
            await asyncio.wait_for(asyncio.wrap_future(future), 10)
        assert await wait_until(lambda: not any(alive(p) for p in spinning), 5)
        assert client.events_of("spin")[-1]["status"] == "cancelled"
        assert await wait_until(lambda: jq_workers(marker) == [], 5), "the quick run's worker was left"
