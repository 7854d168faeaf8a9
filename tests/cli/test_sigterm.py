"""SIGTERM (from `timeout`, a supervisor or an editor) ends lait with status 143 and leaves no child
behind: the process groups of `run:` steps and of stdio MCP servers are killed, not orphaned."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
import uuid

from tests.cli.conftest import Lait
from tests.processes import running_with_marker, wait_for_marked


def terminate_when(lait: Lait, args: list[str], marker: str, count: int) -> tuple[int, str]:
    env = dict(lait.env, LAIT_TEST_MARKER=marker)
    proc = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", *args],
        cwd=lait.cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        # lait itself carries the marker too: wait for it plus its children
        assert len(wait_for_marked(marker, count + 1)) >= count + 1, "the children never started"
        proc.send_signal(signal.SIGTERM)
        _out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return proc.returncode, err.decode()


def test_sigterm_kills_a_run_step_tree(lait: Lait) -> None:
    marker = uuid.uuid4().hex
    lait.write("wf.yml", "steps:\n  - run: [sh, -c, 'sleep 300 & sleep 300; wait']\n")
    code, err = terminate_when(lait, ["run", "wf.yml", "go"], marker, count=3)  # sh and two sleeps
    assert code == 143, err
    assert "Traceback" not in err
    time.sleep(0.2)
    assert running_with_marker(marker) == []


def test_sigterm_kills_a_connecting_mcp_server(lait: Lait) -> None:
    marker = uuid.uuid4().hex
    lait.write(
        "lait.config.yml",
        json.dumps({"mcp_servers": {"hang": {"command": "sh", "args": ["-c", "sleep 300"]}}}),
    )
    code, err = terminate_when(lait, ["mcp", "tools", "hang"], marker, count=2)  # sh and sleep
    assert code == 143, err
    assert "Traceback" not in err
    time.sleep(0.2)
    assert running_with_marker(marker) == []
