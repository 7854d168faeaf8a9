"""The workspace keeps summaries of the agents and child workflows a lint uses, not their parses
(lait_core.lint.workspace, docs/performance.md#memory): a file's findings are the same whatever was
linted before it in the same run (cycles, nesting depth, inherited placement, paths named from
another folder), the parse of a child is let go once its findings hold for every caller, and an
invalidated grandchild, agent or schema file is seen by the next lint."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from lait_core.documents.config_file import ConfigMode
from lait_core.lint.engine import Linter, LintOptions
from lait_core.lint.workspace import WorkflowSummary

OPTIONS = LintOptions(ConfigMode.DISABLED)

FILES: dict[str, str] = {
    # a cycle, reached from inside it and from outside
    "a.yml": "steps:\n  - workflow: ./b.yml\n",
    "b.yml": "steps:\n  - jq: .\n  - workflow: ./a.yml\n",
    "c.yml": "steps:\n  - workflow: ./b.yml\n  - workflow: ./a.yml\n",
    # a chain deeper than 32 and a shorter entry into it
    **{f"d{i:02d}.yml": f"steps:\n  - workflow: ./d{i + 1:02d}.yml\n" for i in range(34)},
    "d34.yml": "steps:\n  - jq: .\n",
    "e.yml": "steps:\n  - workflow: ./d20.yml\n",
    # placement inherited through a sequential child, and the same child called sequentially
    "p.yml": "steps:\n  - parallel:\n      x:\n        - workflow: ./q.yml\n      y:\n        - jq: .\n",
    "q.yml": "steps:\n  - workflow: ./r.yml\n  - id: ask\n    ask: 'name?'\n",
    "r.yml": "steps:\n  - write: out.txt\n  - ask: 'again?'\n",
    "s.yml": "steps:\n  - for_each: '[1, 2]'\n    max_concurrency: 2\n    steps:\n      - workflow: ./q.yml\n",
    "t.yml": "steps:\n  - workflow: ./q.yml\n",
    # an agent and a child whose findings name a path from the caller's folder
    "agents/x.md": "---\nmodel: fast\noutput_schema: {file: missing.json}\ntools: [shell]\n---\nHi {{ input }}\n",
    "kids/k.yml": "steps:\n  - prompt: hi\n    output_schema: {file: gone.json}\n  - workflow: ./nowhere.yml\n",
    "w1.yml": "steps:\n  - agent: ./agents/x.md\n  - workflow: ./kids/k.yml\n",
    "sub/w2.yml": "steps:\n  - agent: ../agents/x.md\n  - workflow: ../kids/k.yml\n  - workflow: ../c.yml\n",
    "sub/w3.yml": "steps:\n  - id: one\n    agent: ../agents/x.md\n  - workflow: ../kids/../kids/k.yml\n",
}


def _write(root: Path) -> list[Path]:
    paths = []
    for name, text in FILES.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
        if name.endswith(".yml"):
            paths.append(Path(name))
    return paths


def _lines(linter: Linter, path: Path) -> list[str]:
    return [
        f"{d.path}:{d.range.start}: {d.code} {d.message} {[(r.path, str(r.range.start)) for r in d.related]}"
        for d in linter.lint_file(path).diagnostics
    ]


@pytest.mark.parametrize("order", ["forward", "backward", "children first"])
def test_a_file_reports_the_same_whatever_was_linted_before(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, order: str
) -> None:
    monkeypatch.chdir(tmp_path)
    paths = _write(tmp_path)
    alone = {path: _lines(Linter(OPTIONS), path) for path in paths}
    assert any("would create a cycle" in line for line in alone[Path("c.yml")])
    assert any("maximum workflow nesting depth" in line for line in alone[Path("d00.yml")])
    assert any("cannot run inside a 'parallel' branch" in line for line in alone[Path("p.yml")])
    assert any("missing.json" in line for line in alone[Path("sub/w2.yml")])
    if order == "backward":
        paths.reverse()
    elif order == "children first":
        paths.sort(key=lambda p: (p.name[0] not in "bdqrk", str(p)))
    shared = Linter(OPTIONS)
    for path in paths:
        assert _lines(shared, path) == alone[path], path


def test_a_child_parse_is_let_go_once_its_findings_hold_for_every_caller(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path)
    linter = Linter(OPTIONS)
    for name in ("w1.yml", "t.yml", "c.yml"):
        linter.lint_file(Path(name))
    ws = linter.workspace_for(Path("w1.yml"))
    kid, q, b = (ws.workflow_summary(Path(n)) for n in ("kids/k.yml", "q.yml", "b.yml"))
    assert isinstance(kid, WorkflowSummary) and isinstance(q, WorkflowSummary)
    assert kid.doc is None and q.doc is None  # findings computed once, for every caller
    assert isinstance(b, WorkflowSummary) and b.doc is not None  # in a cycle: its findings vary by caller


def test_an_invalidated_grandchild_agent_or_schema_file_is_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    _write(tmp_path)
    (tmp_path / "agents/missing.json").write_text('{"type": "object"}', encoding="utf-8")
    linter = Linter(OPTIONS)
    assert not any("missing.json" in line for line in _lines(linter, Path("w1.yml")))
    assert not any("LAIT320" in line for line in _lines(linter, Path("p.yml")))
    for name, text in (
        ("agents/missing.json", '{"type": "objekt"}'),
        ("r.yml", "steps:\n  - bogus: 1\n"),  # p.yml -> q.yml -> r.yml
    ):
        (tmp_path / name).write_text(text, encoding="utf-8")
        os.utime(tmp_path / name)
        linter.invalidate(tmp_path / name)
    assert any("'type: objekt'" in line for line in _lines(linter, Path("w1.yml")))
    assert any("LAIT320" in line for line in _lines(linter, Path("p.yml")))
    fresh = Linter(OPTIONS)
    for name in ("w1.yml", "p.yml", "t.yml", "sub/w2.yml"):
        assert _lines(linter, Path(name)) == _lines(fresh, Path(name))
