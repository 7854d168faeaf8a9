"""A SIGTERM to a pytest run of the editor tests leaves no process behind: a child pytest (with
this folder's conftest as a plugin) holds a fixture that started a process group the way the
code-server and Chromium fixtures do; it is SIGTERMed mid-test and nothing with its marker survives."""

from __future__ import annotations

import os
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
    print("READY", flush=True)
    time.sleep(300)
"""


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
        while b"READY" not in seen:
            chunk = child.stdout.read1(4096)
            assert chunk, seen.decode(errors="replace")
            seen += chunk
        assert len(running_with_marker(marker)) >= 2, seen  # pytest and the fixture's process
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
