"""`canonical` within `resolved_folders` (a batch lint's cache of resolved folders) names every file
as it does without the cache: links to files and to folders, missing files and folders, `..`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lait_core.lint.workspace import canonical, resolved_folders


def test_the_cache_changes_no_name(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    real = tmp_path / "real"
    (real / "sub").mkdir(parents=True)
    (real / "a.yml").write_text("steps: []\n", encoding="utf-8")
    (real / "sub" / "b.yml").write_text("steps: []\n", encoding="utf-8")
    (tmp_path / "linked").symlink_to(real, target_is_directory=True)
    (real / "to_b.yml").symlink_to(real / "sub" / "b.yml")
    (real / "dangling.yml").symlink_to(real / "nowhere.yml")
    monkeypatch.chdir(real)
    names = [
        "a.yml",
        "sub/b.yml",
        "to_b.yml",
        "dangling.yml",
        "missing.yml",
        "nofolder/a.yml",
        "sub/../a.yml",
        "sub/..",
        ".",
        str(tmp_path / "linked" / "a.yml"),
        str(tmp_path / "linked" / "sub" / ".." / "to_b.yml"),
        str(tmp_path / "linked" / "sub" / "b.yml"),
        str(tmp_path / "linked" / "missing" / "x.yml"),
    ]
    expected = [canonical(Path(name)) for name in names]
    assert expected[0] == str(real.resolve() / "a.yml")
    assert expected[2] == str(real.resolve() / "sub" / "b.yml")  # a link to a file is followed
    assert expected[4] == os.path.abspath("missing.yml")
    with resolved_folders():
        for _ in range(2):  # the first call fills the cache, the second reads it
            assert [canonical(Path(name)) for name in names] == expected
