"""The reaper probes the process group before it scans ``/proc``, and still leaves nobody behind."""

from __future__ import annotations

import asyncio
import sys

import pytest

from lait_core.engine.processes.spawn import group_exists, kill_and_reap, run_process, spawn
from tests.engine.conftest import live_group_members

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="process groups as on Linux")


def test_a_group_exists_while_its_leader_runs_and_not_after_it_is_reaped() -> None:
    async def scenario() -> tuple[bool, bool]:
        proc = await spawn(["sleep", "30"], stdin=asyncio.subprocess.DEVNULL)
        running = group_exists(proc.pid)
        await kill_and_reap(proc)
        return running, group_exists(proc.pid)

    running, after = asyncio.run(scenario())
    assert running
    assert not after


def test_a_normal_exit_leaves_an_empty_group() -> None:
    done = asyncio.run(run_process(["true"]))
    assert done.ok
    assert not group_exists(done.pid)


def test_a_background_child_left_by_a_normal_exit_is_killed() -> None:
    # The leader exits at once; the sleep it started in the background stays in its group and
    # must not outlive the call (the probe finds it, the scan then waits until it is dead).
    done = asyncio.run(run_process(["sh", "-c", "sleep 30 >/dev/null 2>&1 &"]))
    assert done.ok
    assert live_group_members(done.pid) == []
