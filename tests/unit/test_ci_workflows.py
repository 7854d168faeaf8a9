"""A CI service's workflow files (`.github/workflows/ci.yml`, Gitea, Forgejo) are not lait workflows:
the language server stays silent on them unless they have lait's top-level `steps:`."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.lint.discovery import FileKind, lait_kind

ACTIONS = """name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pytest
"""


@pytest.mark.parametrize("service", [".github", ".gitea", ".forgejo"])
def test_a_ci_workflow_is_not_a_lait_file(tmp_path: Path, service: str) -> None:
    assert lait_kind(tmp_path / service / "workflows" / "ci.yml", ACTIONS) is None
    # An empty new file there is not one either (a lait workflows/ folder's would be).
    assert lait_kind(tmp_path / service / "workflows" / "new.yml", "") is None


def test_top_level_steps_still_make_a_lait_workflow_there(tmp_path: Path) -> None:
    text = "steps:\n  - prompt: hi\n"
    assert lait_kind(tmp_path / ".github" / "workflows" / "flow.yml", text) is FileKind.WORKFLOW


def test_a_lait_workflows_folder_is_still_one(tmp_path: Path) -> None:
    assert lait_kind(tmp_path / "workflows" / "new.yml", "") is FileKind.WORKFLOW
    assert lait_kind(tmp_path / "project" / "workflows" / "ci.yml", ACTIONS) is FileKind.WORKFLOW
