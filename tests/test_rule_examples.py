"""Every rule's documented examples (`lait rule CODE`) behave as documented.

The ``bad`` example of a rule must report the rule's code (and nothing else); the ``good``
example must not report it, and must be clean. All examples are linted in-process with the
:class:`~lait_core.lint.engine.Linter` (fast); a handful, including every special case (missing
file, 16 MiB file, invalid UTF-8, no config), also run through the real CLI in a subprocess.
``LAIT_EXAMPLES_CLI=all`` runs every example through the CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lait_core.lint.engine import Linter, LintOptions
from lait_core.rules.registry import Example, Rule, all_rules
from lait_core.syntax.bounded_read import MAX_FILE_BYTES

RULES = all_rules()
WHICH = ("bad", "good")

CLI_CHECKED = frozenset(
    (
        "LAIT001",
        "LAIT004",
        "LAIT005",
        "LAIT006",
        "LAIT007",
        "LAIT105",
        "LAIT201",
        "LAIT320",
        "LAIT401",
        "LAIT506",
    )
)
"""Rules whose examples also go through the CLI (all of them with ``LAIT_EXAMPLES_CLI=all``)."""

NOT_CLEAN_GOOD = {}
"""Good examples that report other rules' codes (each one a bug of the example or of lait_core)."""


def build(rule: Rule, which: str, root: Path) -> Example:
    """Write the project of ``rule``'s ``which`` example under ``root``; return the example."""
    example: Example = getattr(rule, which)
    target = root / example.filename
    target.parent.mkdir(parents=True, exist_ok=True)
    if rule.code == "LAIT004" and which == "bad":
        pass  # the example is the missing file itself
    elif rule.code == "LAIT006" and which == "bad":
        with target.open("wb") as fh:
            fh.truncate(MAX_FILE_BYTES + 1)  # sparse: cheap to create, too large to read
    else:
        # the LAIT005 example holds a lone surrogate that stands for an invalid UTF-8 byte
        target.write_text(example.text, encoding="utf-8", errors="surrogateescape")
    if example.config is not None:
        (root / "lait.config.yml").write_text(example.config, encoding="utf-8")
    for rel, text in example.extra:
        extra = root / rel
        extra.parent.mkdir(parents=True, exist_ok=True)
        extra.write_text(text, encoding="utf-8")
    return example


def no_config_above(root: Path) -> None:
    for parent in (root, *root.parents):
        if parent != root:
            assert not (parent / "lait.config.yml").exists(), (
                f"{parent}/lait.config.yml would leak into the test"
            )


@pytest.fixture
def config_home(tmp_path: Path) -> Path:
    home = tmp_path / "xdg-config"
    home.mkdir()
    return home


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    no_config_above(root)
    return root


def lint_in_process(
    rule: Rule, which: str, project: Path, config_home: Path, monkeypatch: pytest.MonkeyPatch
) -> list[str]:
    example = build(rule, which, project)
    monkeypatch.chdir(project)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config_home))
    linter = Linter(LintOptions(environ={"XDG_CONFIG_HOME": str(config_home)}))
    return [d.code for d in linter.lint_paths([example.filename]).diagnostics]


def lint_cli(rule: Rule, which: str, project: Path, config_home: Path) -> tuple[int, list[dict[str, Any]]]:
    example = build(rule, which, project)
    env = {**os.environ, "XDG_CONFIG_HOME": str(config_home), "LAIT_DEBUG": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "lait_cli.main", "lint", "--format", "json", example.filename],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode in (0, 3), f"lait crashed (exit {proc.returncode}):\n{proc.stderr}"
    records: list[dict[str, Any]] = json.loads(proc.stdout)
    return proc.returncode, records


def params() -> list[object]:
    return [pytest.param(rule, id=f"{rule.code}-{rule.name}") for rule in RULES]


@pytest.mark.parametrize("rule", params())
def test_bad_example_reports_the_rule(
    rule: Rule, project: Path, config_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codes = lint_in_process(rule, "bad", project, config_home, monkeypatch)
    assert rule.code in codes
    assert set(codes) == {rule.code}, (
        f"the bad example of {rule.code} also reports {sorted(set(codes) - {rule.code})}"
    )


@pytest.mark.parametrize("rule", params())
def test_good_example_passes(
    rule: Rule, project: Path, config_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    codes = lint_in_process(rule, "good", project, config_home, monkeypatch)
    assert rule.code not in codes


@pytest.mark.parametrize(
    "rule",
    [
        pytest.param(
            rule,
            id=f"{rule.code}-{rule.name}",
            marks=[pytest.mark.xfail(reason=NOT_CLEAN_GOOD[rule.code], strict=True)]
            if rule.code in NOT_CLEAN_GOOD
            else [],
        )
        for rule in RULES
    ],
)
def test_good_example_is_clean(
    rule: Rule, project: Path, config_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert lint_in_process(rule, "good", project, config_home, monkeypatch) == []


def cli_params() -> list[object]:
    every = os.environ.get("LAIT_EXAMPLES_CLI", "") == "all"
    return [
        pytest.param(rule, which, id=f"{rule.code}-{which}")
        for rule in RULES
        if every or rule.code in CLI_CHECKED
        for which in WHICH
    ]


@pytest.mark.parametrize(("rule", "which"), cli_params())
def test_example_through_the_cli(rule: Rule, which: str, project: Path, config_home: Path) -> None:
    returncode, records = lint_cli(rule, which, project, config_home)
    codes = [r["code"] for r in records]
    if which == "bad":
        assert rule.code in codes
        errors = any(r["severity"] == "error" for r in records)
        assert returncode == (3 if errors else 0)
        for record in records:
            assert record["file"] == getattr(rule, which).filename
            assert record["line"] >= 1 and record["column"] >= 1
    else:
        assert rule.code not in codes
        if rule.code not in NOT_CLEAN_GOOD:
            assert records == []
            assert returncode == 0
