"""How the workspace names a file in messages (lait_core.lint.workspace.display_path)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lait_core.lint.workspace import display_path


def test_files_below_the_working_directory_are_named_relatively(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert display_path(tmp_path / "workflows" / "a.yml") == os.path.join("workflows", "a.yml")
    assert display_path(tmp_path / "..notes.yml") == "..notes.yml"  # a name, not a parent
    outside = tmp_path.parent / "other.yml"
    assert display_path(outside) == str(outside)
    assert display_path(tmp_path.parent) == str(tmp_path.parent)
