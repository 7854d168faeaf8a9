"""The shared workflow parse (lait_core.documents.workflow.parse_workflow keeps the last few):
two files with the same text are two parses, since a parse's locations name its file."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.documents.config import ConfigMode
from lait_core.lint.engine import Linter, LintOptions

BAD_CHILD = "steps:\n  - bogus: 1\n"


def test_two_identical_child_workflows_are_reported_at_their_own_paths(tmp_path: Path) -> None:
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "lait.config.yml").write_text("", encoding="utf-8")
        (tmp_path / name / "child.yml").write_text(BAD_CHILD, encoding="utf-8")
        (tmp_path / name / "main.yml").write_text("steps:\n  - workflow: child.yml\n", encoding="utf-8")
    options = LintOptions(ConfigMode.SEARCH, environ={"XDG_CONFIG_HOME": "/nonexistent-lait-test"})
    result = Linter(options).lint_paths([str(tmp_path / "a"), str(tmp_path / "b")])
    for name in ("a", "b"):
        (report,) = [r for r in result.reports if r.path.endswith(f"{name}/main.yml")]
        (diag,) = report.diagnostics
        assert diag.code == "LAIT320"
        other = "b" if name == "a" else "a"  # paths may be shown relative to the current directory
        assert f"{name}/child.yml:2:5" in diag.message and f"{other}/child.yml" not in diag.message
        assert [r.path.endswith(f"{name}/child.yml") for r in diag.related] == [True]


def test_a_files_relative_and_absolute_paths_are_two_parses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`lait lint .` and a workspace pull name files relatively, an editor's document absolutely: a
    parse made for one must not be handed to the other, or its messages name the file the other way."""
    from lait_core.documents.workflow import parse_workflow

    monkeypatch.chdir(tmp_path)
    text = BAD_CHILD + "# only this test writes this text\n"
    absolute = parse_workflow(text, str(tmp_path / "child.yml"))
    relative = parse_workflow(text, "child.yml")
    assert absolute.path == str(tmp_path / "child.yml")
    assert relative.path == "child.yml" and relative.source.path == "child.yml"
    assert parse_workflow(text, "child.yml") is relative  # the same file and text still share one parse
