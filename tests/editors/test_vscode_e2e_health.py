"""What a person sees in a real VS Code (code-server, see test_vscode_e2e.py for the setup) when lait
does not apply or something is wrong: a folder that is not a lait project (a README.md and a GitHub
Actions workflow) shows no lait status item and no message, and its lait-ls never starts.

The folder's `lait.server.path` is a broken install (a lait-ls that fails on import): nothing of it
may show while the folder is not a lait project.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.editors.vscode_ui import Workbench, code_server, screenshot_if_failed, wait_for

ACTIONS = """name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pytest
"""

BROKEN_LAIT_LS = """#!/bin/sh
echo "$0" >> "{note}"
echo "lait-ls starting" >&2
exec python3 -I -c "import lait_ls_no_such_module"
"""
"""An install whose lait-ls fails on import (ModuleNotFoundError on stderr, exit 1)."""


@dataclass
class Plain:
    workbench: Workbench
    folder: Path
    started: Path
    """Each start of the broken lait-ls appends a line here."""

    def starts(self) -> int:
        return len(self.started.read_text().split()) if self.started.exists() else 0


@pytest.fixture(scope="module")
def plain(vsix: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Plain]:
    home = tmp_path_factory.mktemp("vscode-plain")
    folder = home / "repo"
    (folder / ".github" / "workflows").mkdir(parents=True)
    (folder / "README.md").write_text("# A project\n\nNothing about lait here.\n", encoding="utf-8")
    (folder / ".github" / "workflows" / "ci.yml").write_text(ACTIONS, encoding="utf-8")
    started = home / "started.txt"
    broken = home / "bin" / "lait-ls"
    broken.parent.mkdir()
    broken.write_text(BROKEN_LAIT_LS.format(note=started), encoding="utf-8")
    broken.chmod(0o755)
    settings = {"lait.server.path": str(broken)}
    with code_server(home, folder, vsix, settings, {}) as workbench:
        yield Plain(workbench, folder, started)


@pytest.fixture
def plain_workbench(plain: Plain, request: pytest.FixtureRequest) -> Iterator[Workbench]:
    yield plain.workbench
    screenshot_if_failed(request, plain.workbench)
    plain.workbench.escape_all()


def lait_items(workbench: Workbench) -> list[str]:
    return [t for t in workbench.status_texts() if "lait" in t.lower()]


def test_a_folder_that_is_not_a_lait_project_shows_nothing(plain: Plain, plain_workbench: Workbench) -> None:
    workbench = plain_workbench
    workbench.open_file("README.md")  # activates the extension (onLanguage:markdown)
    workbench.open_file(".github/workflows/ci.yml")
    # Long enough for the extension to activate, look for a lait.config.yml and check both files.
    deadline = time.monotonic() + 8
    while time.monotonic() < deadline:
        assert lait_items(workbench) == [], workbench.status_texts()
        assert not any("lait" in t.lower() for t in workbench.notifications()), workbench.notifications()
        time.sleep(0.25)
    assert plain.starts() == 0  # lait-ls never ran
    # No lait view in the activity bar, no graph button on the CI workflow.
    assert workbench.page.locator(".activitybar .action-item[aria-label^='lait']").count() == 0
    assert workbench.page.locator(".editor-actions [aria-label='Show workflow graph']").count() == 0
    # The extension was active all along: a lait.config.yml created in the folder starts lait-ls.
    (plain.folder / "lait.config.yml").write_text("default:\n  model: m\n", encoding="utf-8")
    wait_for("lait-ls to start once lait applies", lambda: plain.starts() >= 1, 30)
