"""Emacs (Debian's emacs-nox 28 + elpa-eglot, installed by .ci/install-emacs-peer) talks to lait-ls
through eglot, headless: the diagnostics flymake shows equal `lait lint`, and completion inside an
`mcp:` list offers the configured MCP servers. eglot.el prints what it saw as JSON lines."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]

WORKFLOW = """name: broken
description: Uses an agent that does not exist.
steps:
  - agent: reviewr
    mcp: []
"""


def test_eglot_shows_lait_lint_diagnostics_and_completes_mcp_servers(tmp_path: Path) -> None:
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.fail("emacs is missing: run .ci/install-emacs-peer (apt-get install emacs-nox elpa-eglot)")
    shutil.copytree(ROOT / "examples", tmp_path / "project")
    workflow = tmp_path / "project" / "workflows" / "broken.yml"
    workflow.write_text(WORKFLOW, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    server = f"exec {sys.executable} -m lait_ls.server"
    proc = subprocess.run(
        [emacs, "--batch", "-Q", "-l", str(Path(__file__).parent / "eglot.el"), str(workflow), "5", "10"],
        cwd=workflow.parent,
        env={**env, "LAIT_LS": server},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen: dict[str, Any] = {}
    for line in proc.stdout.splitlines():
        if line.startswith("{"):
            seen.update(json.loads(line))
    lint = subprocess.run(
        [sys.executable, "-m", "lait_cli.main", "lint", "--format", "json", "workflows/broken.yml"],
        cwd=tmp_path / "project",
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    expected = [
        [d["line"], d["column"] - 1, f"lait [{d['code']}]: {d['message']}"]
        for d in json.loads(lint.stdout)
        if d["file"] == "workflows/broken.yml"
    ]
    assert any("LAIT319" in e[2] for e in expected)
    assert sorted(seen["diagnostics"]) == sorted(expected)
    # Inside `mcp: [|]`: the example project's MCP servers, not its tools or agents.
    assert {"notes", "everything"} <= set(seen["completion"])
    assert "grep" not in seen["completion"] and "reviewer" not in seen["completion"]
