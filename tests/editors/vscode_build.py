"""Node and npm for the VS Code extension's build: a missing toolchain fails with a message, never skips."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

EXTENSION = Path(__file__).resolve().parents[2] / "editors" / "vscode"


def tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        pytest.fail(
            f"{name} is missing: the VS Code extension needs Node.js 20+ and npm (apt-get install nodejs npm)"
        )
    return found


def npm(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [tool("npm"), *args],
        cwd=EXTENSION,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
        env={**os.environ, "npm_config_update_notifier": "false", "npm_config_fund": "false"},
    )
    assert proc.returncode == 0, (
        f"npm {' '.join(args)} failed ({proc.returncode}):\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
    )
    return proc
