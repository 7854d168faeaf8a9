"""Which lait.config.yml governs a file (the nearest above it): a batch run (`lait lint`) walks up from
each folder once, an editor's linter looks again on every lint (a config may appear unannounced)."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.documents.config_file import ConfigMode
from lait_core.lint import engine
from lait_core.lint.engine import Linter, LintOptions

WORKFLOW = "steps:\n  - id: a\n    agent: reviewer\n"
CONFIG = "agents:\n  reviewer: reviewer.md\n"
AGENT = "---\ndescription: Reviews.\n---\nYou review.\n"


def _project(root: Path) -> list[str]:
    (root / "lait.config.yml").write_text(CONFIG, encoding="utf-8")
    (root / "reviewer.md").write_text(AGENT, encoding="utf-8")
    (root / "sub").mkdir()
    (root / "sub" / "lait.config.yml").write_text("{}\n", encoding="utf-8")  # no 'reviewer' below sub/
    files = []
    for folder in (root, root / "sub"):
        for name in ("a.yml", "b.yml", "c.yml"):
            (folder / name).write_text(WORKFLOW, encoding="utf-8")
            files.append(str(folder / name))
    return files


def _codes(linter: Linter, files: list[str]) -> list[tuple[str, list[str]]]:
    result = linter.lint_paths(files)
    return [
        (r.path, [d.code for d in r.diagnostics])
        for r in result.reports
        if r.path.endswith(("a.yml", "b.yml", "c.yml"))
    ]


def test_a_batch_run_finds_each_folders_config_once_with_the_same_reports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = _project(tmp_path)
    walks: list[Path] = []
    real = engine.find_project_config

    def counting(start: Path) -> Path | None:
        walks.append(start)
        return real(start)

    monkeypatch.setattr(engine, "find_project_config", counting)
    editor = _codes(Linter(LintOptions(ConfigMode.SEARCH)), files)
    editor_walks = len(walks)
    walks.clear()
    batch = _codes(Linter(LintOptions(ConfigMode.SEARCH, batch=True)), files)
    assert batch == editor and len(batch) == 6
    assert batch[0][1] == [] and batch[-1][1] == ["LAIT319"]  # sub/ has a config of its own
    assert sorted(set(map(str, walks))) == sorted({str(tmp_path), str(tmp_path / "sub")})
    assert len(walks) == 2 < editor_walks


def test_an_editors_linter_sees_a_config_that_appears_after_its_first_lint(tmp_path: Path) -> None:
    path = tmp_path / "flow.yml"
    path.write_text(WORKFLOW, encoding="utf-8")
    linter = Linter(LintOptions(ConfigMode.SEARCH))
    before = [d.code for d in linter.lint_file(path).diagnostics]
    (tmp_path / "lait.config.yml").write_text("{}\n", encoding="utf-8")
    after = [d.code for d in linter.lint_file(path).diagnostics]
    assert before == ["LAIT506"] and after == ["LAIT319"]
