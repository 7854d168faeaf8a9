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


def test_the_cache_is_the_calling_threads(tmp_path: Path) -> None:
    """lait-ls's workspace pull resolves folders once (a snapshot, ``Linter.snapshot``) while its other
    threads keep resolving afresh: a folder relinked meanwhile is seen at once outside the pull."""
    import threading

    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        folder.mkdir()
        (folder / "a.yml").write_text("steps: []\n", encoding="utf-8")
    link = tmp_path / "link"
    link.symlink_to(first, target_is_directory=True)
    seen: list[str] = []
    with resolved_folders():
        assert canonical(link / "a.yml") == str(first.resolve() / "a.yml")
        link.unlink()
        link.symlink_to(second, target_is_directory=True)
        thread = threading.Thread(target=lambda: seen.append(canonical(link / "a.yml")))
        thread.start()
        thread.join()
        assert canonical(link / "a.yml") == str(first.resolve() / "a.yml")  # this thread's snapshot
    assert seen == [str(second.resolve() / "a.yml")]
    assert canonical(link / "a.yml") == str(second.resolve() / "a.yml")


def test_a_snapshot_forgets_the_project_configs_it_found(tmp_path: Path) -> None:
    """An editor's linter looks for the project config again after each workspace lint."""
    from lait_core.documents.config_file import ConfigMode
    from lait_core.lint.engine import Linter, LintOptions

    project = tmp_path / "project"
    (project / "sub").mkdir(parents=True)
    flow = project / "sub" / "flow.yml"
    flow.write_text("version: 2\nsteps: []\n", encoding="utf-8")
    config = project / "lait.config.yml"
    linter = Linter(LintOptions(ConfigMode.SEARCH, environ={"XDG_CONFIG_HOME": str(tmp_path / "xdg")}))
    with linter.snapshot():
        linter.lint_paths([str(project)])
        assert linter.config_for(flow).project is None
        config.write_text("version: 2\n", encoding="utf-8")
        assert linter.config_for(flow).project is None  # one lint, one state of the configs
    with linter.snapshot():  # the next one looks again
        found = linter.config_for(flow).project
        assert found is not None and Path(found.path) == config
    assert linter.config_for(flow).project is not None
    config.unlink()
    assert linter.config_for(flow).project is None  # outside a snapshot: looked for each time
