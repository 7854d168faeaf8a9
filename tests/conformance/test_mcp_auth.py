"""Issue 16 acceptance: the official MCP conformance suite's ``auth/*`` client scenarios with
lait's MCP client under test (tests/conformance/lait_auth_client.py): every scenario of the
2025-11-25 (suite ``auth``) and 2025-03-26 (suite ``backcompat``) specs passes with no failure
and no warning, and so do the draft ones. The extension scenarios (SEP-1046 client credentials,
SEP-990 enterprise-managed authorization) are not run: lait signs a person in with the
authorization-code flow only. Each suite runs its scenarios in parallel; nothing the client
starts outlives it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.processes import running_with_marker
from tests.serve.peers import CONFORMANCE, node, script

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CLIENT = HERE / "lait_auth_client.py"


@pytest.mark.parametrize("suite", ["auth", "backcompat", "draft"])
def test_auth_scenarios(suite: str, tmp_path: Path) -> None:
    marker = uuid.uuid4().hex
    env = {
        **os.environ,
        "PYTHONPATH": str(REPO),
        "LAIT_TEST_MARKER": marker,
        "HOME": str(tmp_path),
        "XDG_CONFIG_HOME": str(tmp_path / "config"),
    }
    command = f"{sys.executable} {CLIENT}"
    done = subprocess.run(
        [
            node(),
            script(CONFORMANCE),
            "client",
            "--command",
            command,
            "--suite",
            suite,
            "--timeout",
            "240000",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=600,
    )
    summary = done.stdout[done.stdout.find("=== SUITE SUMMARY ===") :]
    assert done.returncode == 0, summary + done.stderr[-4000:]
    assert "Total:" in summary and " 0 failed, 0 warnings" in summary, summary
    assert running_with_marker(marker) == []
