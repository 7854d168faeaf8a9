"""The `lait-lint` hook of `.pre-commit-hooks.yaml`, run by the real pre-commit.

pre-commit clones THIS repository at its current HEAD (so the hook runs the committed code),
installs it into its own virtualenv and runs the hook on the staged files of a scratch repository.
Installing takes a minute or two the first time; the environment is shared by both tests of the module.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git"),
    # the first test installs the hook's virtualenv (pip, up to the 900 s given to pre-commit below)
    pytest.mark.timeout(960),
]

GOOD_WORKFLOW = """\
name: good
inputs:
  topic: string
steps:
  - id: answer
    prompt: "Write one line about {{ inputs.topic }}."
  - jq: '$steps.answer'
"""

BAD_WORKFLOW = """\
name: bad
unknown_top_level_key: 1
steps:
  - jq: '$steps.answer'
"""


def _git(cwd: Path, *args: str) -> str:
    env = dict(os.environ)
    env.update(
        GIT_AUTHOR_NAME="lait tests",
        GIT_AUTHOR_EMAIL="tests@example.invalid",
        GIT_COMMITTER_NAME="lait tests",
        GIT_COMMITTER_EMAIL="tests@example.invalid",
    )
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=True, timeout=60
    )
    return done.stdout.strip()


@pytest.fixture(scope="module")
def pre_commit_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("pre-commit-home")


@pytest.fixture(scope="module")
def head_sha() -> str:
    return _git(REPO, "rev-parse", "HEAD")


@pytest.fixture
def scratch_repo(tmp_path: Path, head_sha: str) -> Iterator[Path]:
    repo = tmp_path / "project"
    repo.mkdir()
    _git(repo, "init", "-q")
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO.as_posix()}\n    rev: {head_sha}\n    hooks:\n      - id: lait-lint\n",
        encoding="utf-8",
    )
    yield repo


def _run_pre_commit(repo: Path, home: Path, xdg: Path, *files: str) -> subprocess.CompletedProcess[str]:
    """`pre-commit run` on ``files`` (or on every tracked file when none are given)."""
    selection = ["--files", *files] if files else ["--all-files"]
    env = dict(os.environ)
    env["PRE_COMMIT_HOME"] = str(home)
    env["XDG_CONFIG_HOME"] = str(xdg)
    env.pop("PRE_COMMIT", None)
    env.pop("LAIT_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", *selection, "--color", "never"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )


def test_hook_passes_on_a_good_workflow(scratch_repo: Path, pre_commit_home: Path, tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    (scratch_repo / "workflows").mkdir()
    (scratch_repo / "workflows" / "good.yml").write_text(GOOD_WORKFLOW, encoding="utf-8")
    _git(scratch_repo, "add", ".pre-commit-config.yaml", "workflows/good.yml")
    done = _run_pre_commit(scratch_repo, pre_commit_home, xdg, "workflows/good.yml")
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
    assert "lait lint" in output
    assert "Passed" in output


def test_hook_fails_on_a_bad_workflow(scratch_repo: Path, pre_commit_home: Path, tmp_path: Path) -> None:
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    (scratch_repo / "workflows").mkdir()
    (scratch_repo / "workflows" / "good.yml").write_text(GOOD_WORKFLOW, encoding="utf-8")
    (scratch_repo / "workflows" / "bad.yml").write_text(BAD_WORKFLOW, encoding="utf-8")
    _git(scratch_repo, "add", ".pre-commit-config.yaml", "workflows/good.yml", "workflows/bad.yml")
    done = _run_pre_commit(scratch_repo, pre_commit_home, xdg, "workflows/good.yml", "workflows/bad.yml")
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "Failed" in output
    assert "workflows/bad.yml:2:1: LAIT303 error" in output
    assert "workflows/good.yml:" not in output


def test_hook_passes_on_a_whole_repository_with_ordinary_yaml_and_markdown(
    scratch_repo: Path, pre_commit_home: Path, tmp_path: Path
) -> None:
    xdg = tmp_path / "xdg"
    xdg.mkdir()
    (scratch_repo / "workflows").mkdir()
    (scratch_repo / "workflows" / "good.yml").write_text(GOOD_WORKFLOW, encoding="utf-8")
    (scratch_repo / "README.md").write_text("# A project\n\nNo frontmatter here.\n", encoding="utf-8")
    _git(scratch_repo, "add", ".pre-commit-config.yaml", "workflows/good.yml", "README.md")
    done = _run_pre_commit(scratch_repo, pre_commit_home, xdg)
    output = done.stdout + done.stderr
    assert done.returncode == 0, output
