"""The README's main-job command, as written there, on a copy of ``examples/``: ``lait lint
examples/`` reports nothing, then ``lait -v run offline agents`` (from ``examples/``) runs the
example workflow on the built-in embedded model with a real ``grep`` tool call.

"Offline" is enforced as far as a test can: every proxy variable points at a closed port, so an
HTTP request to anything but the loopback address would fail.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from tests.cli.conftest import REPO
from tests.llm.conftest import require_peer
from tests.llm.test_embedded_errors import lait, lait_env
from tests.peers.llm_server import free_port

README_COMMAND = (
    "python3 -m pip install '.[local]' && lait lint examples/ && cd examples && lait -v run offline agents"
)


def test_readme_states_the_main_job_command() -> None:
    """The test below runs what the README says; if the README changes, this test must too."""
    assert README_COMMAND in (REPO / "README.md").read_text(encoding="utf-8").splitlines()


def test_main_job_command_runs_the_offline_example_with_a_tool_call(tmp_path: Path) -> None:
    require_peer()
    env = lait_env(tmp_path)
    dead = f"http://127.0.0.1:{free_port()}"
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        env[name] = dead
    env.pop("NO_PROXY", None)
    env.pop("no_proxy", None)
    root = tmp_path / "checkout"
    shutil.copytree(REPO / "examples", root / "examples", ignore=shutil.ignore_patterns("__pycache__"))

    linted = lait(["lint", "examples/"], root, env)
    assert linted.returncode == 0, linted
    assert linted.stdout == "", linted

    ran = lait(["-v", "run", "offline", "agents"], root / "examples", env)
    assert ran.returncode == 0, ran
    calls = re.findall(r"tool call: tool__grep (\{.*\})", ran.stderr)
    assert len(calls) == 1, ran.stderr
    # the grammar forces the schema (two strings); which pattern and path the model picks is its own
    # choice, and may differ between CPUs
    arguments = json.loads(calls[0])
    assert isinstance(arguments["pattern"], str) and isinstance(arguments["path"], str), arguments
    # the tool really ran in examples/ (grep's output, or its failure, went back to the model)
    assert len(re.findall(r"tool result: tool__grep \(\d+ chars(, error)?\)", ran.stderr)) == 1, ran.stderr
    assert "debug: tool round 2" in ran.stderr and "debug: tool round 3" not in ran.stderr
    assert ran.stdout.strip(), ran
