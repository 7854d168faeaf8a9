"""editors/neovim/lait.lua stays silent where lait does not apply: in a folder with only a README.md
and a GitHub Actions workflow it starts nothing (the lait-ls on PATH never runs) and says nothing;
in a lait project without lait-ls installed it says nothing either (no "Spawning language server
... failed", no Press-ENTER), and :LaitStatus tells why. `vim.g.lait_enable` forces it either way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.editors.test_neovim import _nvim

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]

ACTIONS = """name: CI
on: [push]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: pytest
"""

LAUNCHER = """#!/bin/sh
echo "$0" >> "{log}"
exec "{python}" -m lait_ls.server
"""


def plain_repository(root: Path) -> list[Path]:
    (root / ".github" / "workflows").mkdir(parents=True)
    (root / ".git").mkdir()
    readme = root / "README.md"
    readme.write_text("---\ntitle: A project\n---\n# A project\n\nNothing about lait.\n", encoding="utf-8")
    ci = root / ".github" / "workflows" / "ci.yml"
    ci.write_text(ACTIONS, encoding="utf-8")
    return [readme, ci]


def run_nvim(
    tmp_path: Path, files: list[Path], *, lait_ls: bool, enable: str = "", wait_ms: int = 3000
) -> tuple[dict[str, Any], list[str]]:
    """Neovim with the plugin opening ``files``; with ``lait_ls`` a launcher on PATH that notes each start."""
    log = tmp_path / "launched.log"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir(exist_ok=True)
    if lait_ls:
        launcher = bin_dir / "lait-ls"
        launcher.write_text(LAUNCHER.format(log=log, python=sys.executable), encoding="utf-8")
        launcher.chmod(0o755)
    # PATH without any other lait-ls: the system's folders only (nvim is started by its full path).
    path = os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])
    out = tmp_path / "out.json"
    env = {
        **os.environ,
        "PATH": path,
        "PYTHONPATH": str(ROOT),
        "LAIT_ENABLE": enable,
        "LAIT_WAIT_MS": str(wait_ms),
        "LAIT_SNIPPET": str(ROOT / "editors" / "neovim" / "lait.lua"),
        "LAIT_FILES": ":".join(str(f) for f in files),
        "LAIT_OUT": str(out),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    proc = subprocess.run(
        [_nvim(), "--headless", "--clean", "-c", f"luafile {HERE / 'silent.lua'}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.exists(), f"nvim wrote nothing (rc {proc.returncode}): {proc.stderr[-2000:]}"
    seen: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert seen["ok"], seen["error"]
    assert "Spawning" not in proc.stderr + proc.stdout, proc.stderr
    launched = log.read_text(encoding="utf-8").split() if log.exists() else []
    return seen, launched


def test_silent_in_a_folder_that_is_not_a_lait_project(tmp_path: Path) -> None:
    files = plain_repository(tmp_path / "repo")
    seen, launched = run_nvim(tmp_path, files, lait_ls=True)
    assert [f["filetype"] for f in seen["files"]] == ["markdown", "yaml"]
    assert [f["attached"] for f in seen["files"]] == [False, False]
    assert launched == []  # the lait-ls on PATH never ran
    assert seen["messages"].strip() == ""
    assert "not a lait project" in seen["files"][1]["status"][0]


def test_silent_in_a_lait_project_without_lait_ls(tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / "workflows").mkdir(parents=True)
    (project / "lait.config.yml").write_text("default:\n  model: m\n", encoding="utf-8")
    flow = project / "workflows" / "flow.yml"
    flow.write_text("steps:\n  - prompt: hi\n", encoding="utf-8")
    seen, launched = run_nvim(tmp_path, [flow], lait_ls=False, wait_ms=1500)
    assert seen["files"][0]["attached"] is False and launched == []
    assert seen["messages"].strip() == ""  # no "Spawning language server ... failed"
    status = seen["files"][0]["status"][0]
    assert "lait-ls was not found" in status and "pipx install lait" in status


def test_a_lait_file_by_content_starts_it_without_a_config(tmp_path: Path) -> None:
    flow = tmp_path / "scratch" / "flow.yml"
    flow.parent.mkdir()
    flow.write_text("steps:\n  - prompt: hi\n", encoding="utf-8")
    seen, launched = run_nvim(tmp_path, [flow], lait_ls=True, wait_ms=30000)
    assert seen["files"][0]["attached"] is True
    assert launched == [str(tmp_path / "bin" / "lait-ls")]
    assert "running" in seen["files"][0]["status"][0]


def test_lait_enable_forces_it_on_and_off(tmp_path: Path) -> None:
    _readme, ci = plain_repository(tmp_path / "repo")
    seen, launched = run_nvim(tmp_path, [ci], lait_ls=True, enable="1", wait_ms=30000)
    assert seen["files"][0]["attached"] is True and len(launched) == 1
    project = tmp_path / "project"
    project.mkdir()
    (project / "lait.config.yml").write_text("default:\n  model: m\n", encoding="utf-8")
    off = tmp_path / "off"
    off.mkdir()
    seen, launched = run_nvim(off, [project / "lait.config.yml"], lait_ls=True, enable="0", wait_ms=1500)
    assert seen["files"][0]["attached"] is False and launched == []
    assert "vim.g.lait_enable is false" in seen["files"][0]["status"][0]
