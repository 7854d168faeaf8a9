"""`lait lint --fix` as a real subprocess: every rule whose failing example (`lait rule CODE`) carries a fix
is fixed to its passing example, a second run changes nothing, and only safe fixes apply without
`--unsafe-fixes`."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.rules.registry import Rule, all_rules
from tests.cli.conftest import Lait


def _write(lait: Lait, rule: Rule) -> Path:
    example = rule.bad
    target = lait.write(example.filename, example.text)
    if example.config is not None:
        lait.write("lait.config.yml", example.config)
    for rel, text in example.extra:
        lait.write(rel, text)
    return target


def _fixable() -> list[Rule]:
    """Rules whose failing example reports a diagnostic with exactly one fix (found by linting it)."""
    import os
    import tempfile

    from lait_core.lint.engine import Linter, LintOptions

    found = []
    here = os.getcwd()
    for rule in all_rules():
        if rule.code in ("LAIT004", "LAIT006"):
            continue
        with tempfile.TemporaryDirectory() as tmp:
            root = Path(tmp)
            example = rule.bad
            (root / example.filename).parent.mkdir(parents=True, exist_ok=True)
            (root / example.filename).write_text(example.text, encoding="utf-8", errors="surrogateescape")
            if example.config is not None:
                (root / "lait.config.yml").write_text(example.config, encoding="utf-8")
            for rel, text in example.extra:
                (root / rel).parent.mkdir(parents=True, exist_ok=True)
                (root / rel).write_text(text, encoding="utf-8")
            os.chdir(root)
            try:
                linter = Linter(LintOptions(environ={"XDG_CONFIG_HOME": str(root / "none")}))
                diags = linter.lint_paths([example.filename]).diagnostics
            finally:
                os.chdir(here)
            if any(d.code == rule.code and len(d.fixes) == 1 for d in diags):
                found.append(rule)
    return found


FIXABLE = _fixable()


def test_fixable_rules_are_found() -> None:
    codes = {r.code for r in FIXABLE}
    assert {"LAIT101", "LAIT202", "LAIT801", "LAIT803"} <= codes, codes


@pytest.mark.parametrize("rule", FIXABLE, ids=lambda r: r.code)
def test_the_failing_example_is_fixed_to_the_passing_one(lait: Lait, rule: Rule) -> None:
    assert rule.good.filename == rule.bad.filename
    target = _write(lait, rule)
    run = lait("lint", "--fix", "--unsafe-fixes", rule.bad.filename)
    assert target.read_text(encoding="utf-8") == rule.good.text, run.stderr
    assert "lait: fixed 1 problem(s) in 1 file(s)" in run.stderr
    assert f" {rule.code} " not in run.stdout
    again = lait("lint", "--fix", "--unsafe-fixes", rule.bad.filename)
    assert target.read_text(encoding="utf-8") == rule.good.text
    assert "fixed" not in again.stderr


def test_only_safe_fixes_without_unsafe_fixes(lait: Lait) -> None:
    agent = lait.write("agents/a.md", "---\nmax-tokens: 10\nmodle: qwen\n---\nHi.\n")
    run = lait("lint", "--fix", "agents/a.md")
    assert agent.read_text() == "---\nmax_tokens: 10\nmodle: qwen\n---\nHi.\n"
    assert "lait: fixed 1 problem(s) in 1 file(s)" in run.stderr
    assert "lait: 1 more fixable with --unsafe-fixes" in run.stderr
    assert run.returncode == 3  # the unsafe one is still an error
    run = lait("lint", "--fix", "--unsafe-fixes", "agents/a.md")
    assert agent.read_text() == "---\nmax_tokens: 10\nmodel: qwen\n---\nHi.\n"
    assert run.returncode == 0, run.stdout


def test_fix_keeps_crlf_and_foreign_files(lait: Lait) -> None:
    agent = lait.write(
        ".claude/agents/r.md", "---\r\nname: r\r\ndescription: R.\r\npermissionmode: plan\r\n---\r\nR.\r\n"
    )
    lait("lint", "--fix", ".")
    assert agent.read_bytes() == b"---\r\nname: r\r\ndescription: R.\r\npermissionMode: plan\r\n---\r\nR.\r\n"


def test_usage_errors(lait: Lait) -> None:
    lait.write("agents/a.md", "---\nmodel: q\n---\nHi.\n")
    assert lait("lint", "--unsafe-fixes", "agents").returncode == 2
    run = lait("lint", "--fix", "-", stdin=b"steps: []\n")
    assert (run.returncode, run.stderr) == (2, "lait: --fix cannot change standard input; name the files\n")
