"""Fixtures for the editor tests: the VS Code extension compiled and packaged once per session, a
screenshot of the real VS Code kept for every failing end-to-end test, and a SIGTERM handler that
ends the code-server and Chromium process groups before pytest dies."""

from __future__ import annotations

import subprocess
from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest

from tests.editors.groups import install_sigterm_handler
from tests.editors.vscode_build import EXTENSION, npm, tool

ROOT = Path(__file__).resolve().parents[2]


def pytest_configure(config: pytest.Config) -> None:
    # code-server and Chromium run in process groups of their own: a SIGTERM to pytest ends them
    # first (tests/editors/groups.py)
    install_sigterm_handler()


@pytest.fixture(scope="session")
def compiled() -> Path:
    """`npm ci` when node_modules is missing (.ci/install-test-peers normally did it), then `npm run compile`."""
    node = tool("node")
    major = int(
        subprocess.run([node, "--version"], capture_output=True, text=True, check=True)
        .stdout.strip()[1:]
        .split(".")[0]
    )
    assert major >= 20, f"Node.js 20+ is needed, found {major}"
    if not (EXTENSION / "node_modules" / "typescript").exists():
        npm("ci", "--no-audit")
    npm("run", "compile")
    assert (EXTENSION / "out" / "extension.js").exists()
    return EXTENSION / "out"


@pytest.fixture(scope="session")
def vsix(compiled: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The extension packaged by `vsce` as a user would install it."""
    tools = EXTENSION / "tools" / "node_modules"
    if not (tools / "esbuild").exists() or not (tools / "mermaid").exists():
        npm("ci", "--prefix", "tools", "--no-audit")  # the bundler (.ci/install-test-peers normally did it)
    out = tmp_path_factory.mktemp("vsix") / "lait.vsix"
    args = ["--no-dependencies", "--allow-missing-repository", "--skip-license", "-o", str(out)]
    proc = npm("exec", "--", "vsce", "package", *args)
    assert out.exists(), proc.stdout
    assert "WARNING" not in proc.stdout + proc.stderr, proc.stdout + proc.stderr
    return out


@pytest.hookimpl(wrapper=True)  # each phase's report on the item, for vscode_ui.screenshot_if_failed
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Generator[None, Any, Any]:
    report = yield
    setattr(item, f"report_{report.when}", report)
    return report
