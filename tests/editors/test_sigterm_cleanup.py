"""A SIGTERM to a pytest run of the editor tests leaves no process behind: a child pytest (with
this folder's conftest as a plugin) holds a fixture that started a process group the way the
code-server and Chromium fixtures do; it is SIGTERMed mid-test and nothing with its marker survives."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

from tests.cli.conftest import REPO
from tests.processes import running_with_marker

CHILD = """\
import sys
import time

import pytest

from tests.editors.groups import kill_group, start_group


@pytest.fixture
def peer():
    proc = start_group([sys.executable, "-c", "import time; time.sleep(300)"])
    yield proc
    kill_group(proc)


def test_waits(peer):
    print(f"READY {peer.pid}", flush=True)
    time.sleep(300)
"""


def _state(pid: int) -> str:
    """The process's state letter from /proc (``gone`` when there is no such process)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return "gone"
    return stat[stat.rindex(")") + 2 :].split()[0]


def test_sigterm_ends_the_fixture_process_groups(tmp_path: Path) -> None:
    (tmp_path / "test_child.py").write_text(CHILD)
    marker = uuid.uuid4().hex
    env = {**os.environ, "PYTHONPATH": str(REPO), "LAIT_TEST_MARKER": marker}
    args = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-s",
        "-p",
        "no:cacheprovider",
        "-p",
        "tests.editors.conftest",
    ]
    child = subprocess.Popen(
        [*args, "--rootdir", str(tmp_path), str(tmp_path / "test_child.py")],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        assert child.stdout is not None
        seen = b""
        while not re.search(rb"READY \d+\n", seen):
            chunk = child.stdout.read1(4096)
            assert chunk, seen.decode(errors="replace")
            seen += chunk
        ready = re.search(rb"READY (\d+)\n", seen)
        assert ready is not None
        # The fixture's Popen returns once its process is past the point of no return of execve (its
        # close-on-exec pipe closed), but the kernel records where the new program's environment is
        # only later in the exec: until then /proc/PID/environ reads empty and the marker is not
        # found. On a loaded machine that window is long enough to be hit right after READY (seen:
        # the fixture's process in state R, 1 page fault, an empty environ). So look again until
        # both are seen, with a deadline; a miss names each process's state.
        expected = {child.pid, int(ready.group(1))}  # pytest and the fixture's process
        deadline = time.monotonic() + 30
        while not expected <= set(running_with_marker(marker)) and time.monotonic() < deadline:
            time.sleep(0.05)
        found = running_with_marker(marker)
        assert expected <= set(found), (
            f"marker processes {found}, expected {sorted(expected)} among them; states "
            f"{ {pid: _state(pid) for pid in sorted(expected)} }\n{seen.decode(errors='replace')}"
        )
        child.send_signal(signal.SIGTERM)
        rest = child.communicate(timeout=60)[0]
        assert child.returncode == -signal.SIGTERM, (seen + rest).decode(errors="replace")
        deadline = time.monotonic() + 10
        while running_with_marker(marker) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert running_with_marker(marker) == [], (seen + rest).decode(errors="replace")
    finally:
        if child.poll() is None:
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
        for pid in running_with_marker(marker):
            os.kill(pid, signal.SIGKILL)
