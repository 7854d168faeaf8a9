"""`lait serve` as a command: --mcp required, --list, bad --http addresses, flags that need --http."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.conftest import run_lait
from tests.serve.conftest import serve_env


def test_list_prints_tools_and_schemas(project: Path, tmp_path: Path, marker: str) -> None:
    done = run_lait(["serve", "--mcp", "--list"], cwd=project, env=serve_env(tmp_path, marker))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "workflow__echo: Echo the input in an object"
    assert json.loads(lines[1].removeprefix("  input schema: "))["required"] == ["input"]
    assert "  (has an 'ask:' step: offered only to clients that support elicitation)" in lines
    assert [line.split(":")[0] for line in lines if not line.startswith(" ")] == [
        "workflow__echo",
        "workflow__ship",
        "workflow__typed",
        "workflow__slow",
        "workflow__fails",
    ]
    assert "lait serve: skipping workflow 'broken': " in done.stderr
    assert "broken.yml:2:1: YAML syntax error" in done.stderr


def test_usage_errors(project: Path, tmp_path: Path, marker: str) -> None:
    env = serve_env(tmp_path, marker)
    done = run_lait(["serve"], cwd=project, env=env)
    assert (done.returncode, done.stderr) == (2, "lait: lait serve needs --mcp (the only mode)\n")
    done = run_lait(["serve", "--mcp", "--http", "nope"], cwd=project, env=env)
    assert done.returncode == 1 and "lait: --http 'nope' must be HOST:PORT" in done.stderr
    done = run_lait(["serve", "--mcp", "--token-env", "X"], cwd=project, env=env)
    assert done.returncode == 2 and "apply to --http only" in done.stderr
    done = run_lait(
        ["serve", "--mcp", "--http", "127.0.0.1:0", "--token-env", "LAIT_NOT_SET_ANYWHERE"],
        cwd=project,
        env=env,
    )
    assert (
        done.returncode == 2 and "LAIT_NOT_SET_ANYWHERE: the environment variable is not set" in done.stderr
    )
