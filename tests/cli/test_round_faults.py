"""Issue 19 through the real CLI: the model answers with two calls -- one whose arguments are not
JSON (or hold a NUL byte) and one shell tool whose ``sh -c`` starts a background child
(``timeout: 2``). lait must end (the old code hung in 3 of 6 tries) and leave no process behind;
the NUL byte is a tool error the model sees (it was ``internal error: ValueError``). Each
scenario runs 20 times, four lait processes at a time. A hang-up (SIGHUP: closed terminal, lost
SSH session) kills the process groups of a running shell tool and of a ``run:`` step."""

from __future__ import annotations

import signal
import subprocess
import sys
import time
import uuid
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.cli.conftest import Lait, Run, run_lait
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.processes import running_with_marker, wait_for_marked

REPEAT = 20
CONFIG = """\
tools:
  bg:
    command: [sh, -c, 'sleep 30 & echo started']
    timeout: 2
  echo:
    command: [echo, '{{ input.a }}']
"""


def scenario(lait: Lait, arguments: str, i: int) -> tuple[Run, str]:
    marker = uuid.uuid4().hex
    bad = call("tool__echo", arguments, id="bad")
    fork = call("tool__bg", {}, id="bg")
    with ScriptedOpenAIServer() as server:
        server.push(tool_calls(*((bad, fork) if i % 2 == 0 else (fork, bad))), text("done"))
        run = run_lait(
            ["--base-url", server.url, "--model", "m", "--tool", "bg", "--tool", "echo", "go"],
            cwd=lait.cwd,
            env={**lait.env, "LAIT_TEST_MARKER": marker},
            timeout=60,  # a hang fails the test here
        )
    return run, marker


def twenty(lait: Lait, arguments: str) -> list[Run]:
    lait.write("lait.config.yml", CONFIG)
    with ThreadPoolExecutor(4) as pool:
        outcomes = list(pool.map(lambda i: scenario(lait, arguments, i), range(REPEAT)))
    time.sleep(0.2)
    for _, marker in outcomes:
        assert running_with_marker(marker) == []
    return [run for run, _ in outcomes]


def test_invalid_json_beside_a_forking_tool(lait: Lait) -> None:
    for run in twenty(lait, "{bad json"):
        assert run.returncode == 1, run.stderr
        assert run.stderr.startswith(
            "lait: the model called 'tool__echo' with arguments that are not valid JSON"
        )


def test_nul_byte_in_an_argument_beside_a_forking_tool(lait: Lait) -> None:
    for run in twenty(lait, '{"a": "x\\u0000y"}'):
        assert (run.returncode, run.stdout, run.stderr) == (0, "done\n", "")


@pytest.mark.parametrize("where", ["shell-tool", "run-step"])
def test_sighup_kills_the_running_process_group(lait: Lait, where: str) -> None:
    marker = uuid.uuid4().hex
    with ScriptedOpenAIServer() as server:
        if where == "shell-tool":
            lait.write(
                "lait.config.yml", "tools:\n  slow:\n    command: [sh, -c, 'sleep 300 & sleep 300; wait']\n"
            )
            server.push(tool_calls(call("tool__slow")), text("never"))
            args = ["--base-url", server.url, "--model", "m", "--tool", "slow", "go"]
        else:
            lait.write("wf.yml", "steps:\n  - run: [sh, -c, 'sleep 300 & sleep 300; wait']\n")
            args = ["run", "wf.yml", "go"]
        proc = subprocess.Popen(
            [sys.executable, "-m", "lait_cli.main", *args],
            cwd=lait.cwd,
            env={**lait.env, "LAIT_TEST_MARKER": marker},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            # lait itself carries the marker too: lait, sh and two sleeps
            assert len(wait_for_marked(marker, 4)) >= 4, "the children never started"
            proc.send_signal(signal.SIGHUP)
            _out, err = proc.communicate(timeout=30)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode == 129, err
    assert b"Traceback" not in err
    time.sleep(0.2)
    assert running_with_marker(marker) == []


@pytest.mark.parametrize("order", ["slow-first", "bad-first"])
def test_a_malformed_call_cancels_its_slow_sibling_at_once(lait: Lait, order: str) -> None:
    """The round's results are not awaited in order: the malformed call ends the run at once and
    the slow sibling (``sleep 120``, no timeout of its own before 300 s) is killed and reaped."""
    lait.write("lait.config.yml", "tools:\n  nap:\n    command: [sleep, '120']\n    timeout: 300\n")
    marker = uuid.uuid4().hex
    bad = call("tool__nap", "{bad json", id="bad")
    slow = call("tool__nap", {}, id="slow")
    with ScriptedOpenAIServer() as server:
        server.push(tool_calls(*((slow, bad) if order == "slow-first" else (bad, slow))), text("never"))
        run = run_lait(
            ["--base-url", server.url, "--model", "m", "--tool", "nap", "go"],
            cwd=lait.cwd,
            env={**lait.env, "LAIT_TEST_MARKER": marker},
            timeout=60,  # waiting for the sibling (120 s) fails the test here
        )
    assert run.returncode == 1, run.stderr
    assert run.stderr.startswith("lait: the model called 'tool__nap' with arguments that are not valid JSON")
    assert running_with_marker(marker) == []
