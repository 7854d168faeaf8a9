"""`pytest -m "not peers"` leaves out exactly the tests that need a peer beyond the `[test]` extra,
and a family marker selects its family (tests/conftest.py sets them by folder, fixture or mark)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def collected(*args: str) -> set[str]:
    """The test files `pytest --collect-only` keeps with these arguments."""
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only", *args],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        cwd=ROOT,
        env={**os.environ, "PYTEST_ADDOPTS": ""},
    )
    assert done.returncode in (0, 5), done.stdout[-2000:] + done.stderr[-2000:]  # 5: nothing collected
    return {line.split("::", 1)[0] for line in done.stdout.splitlines() if "::" in line}


PATHS = ("tests/llm/test_real_model.py", "tests/cli/test_mcp_login.py", "tests/editors/test_emacs.py")


def test_not_peers_keeps_the_plain_tests_of_a_module_and_drops_its_peer_tests() -> None:
    kept = collected("-m", "not peers", *PATHS, "tests/test_docs.py")
    assert kept == {"tests/cli/test_mcp_login.py", "tests/test_docs.py"}, kept


def test_a_family_marker_selects_its_family() -> None:
    assert collected("-m", "llm", *PATHS) == {"tests/llm/test_real_model.py"}
    assert collected("-m", "emacs", *PATHS) == {"tests/editors/test_emacs.py"}
    assert collected("-m", "conformance", *PATHS) == {"tests/cli/test_mcp_login.py"}
