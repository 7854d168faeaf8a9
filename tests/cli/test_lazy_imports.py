"""`lait --version` and `lait lint` stay light: they never import the language server, MCP or HTTP
stacks (each costs start-up time, and `lait lint` runs in every pre-commit)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import EXAMPLES

HEAVY = ("mcp", "pygls", "lsprotocol", "httpx", "httpx2", "anyio", "starlette", "llama_cpp", "keyring")

SNIPPET = f"""
import json, sys
from lait_cli.main import main
args = json.loads(sys.argv[1])
code = None
try:
    main(args)
except SystemExit as exc:
    code = exc.code
heavy = {HEAVY!r}
loaded = sorted({{name.split(".")[0] for name in sys.modules}} & set(heavy))
sys.stderr.write("LAIT-TEST-RESULT " + json.dumps({{"code": code, "loaded": loaded}}) + "\\n")
"""


def _imports_of(
    args: list[str], cwd: Path, env: dict[str, str], prelude: str = ""
) -> tuple[object, list[str]]:
    done = subprocess.run(
        [sys.executable, "-c", prelude + SNIPPET, json.dumps(args)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "Traceback" not in done.stderr, done.stderr
    lines = [line for line in done.stderr.splitlines() if line.startswith("LAIT-TEST-RESULT ")]
    assert len(lines) == 1, done.stderr
    result = json.loads(lines[0].removeprefix("LAIT-TEST-RESULT "))
    return result["code"], result["loaded"]


def test_heavy_modules_are_importable_here() -> None:
    """The check below means something only if these modules exist in this environment."""
    import importlib.util

    present = [name for name in HEAVY if importlib.util.find_spec(name) is not None]
    assert {"mcp", "pygls", "lsprotocol", "httpx", "anyio"} <= set(present)


def test_the_probe_sees_an_imported_module(tmp_path: Path, lait_env: dict[str, str]) -> None:
    code, loaded = _imports_of(["--version"], tmp_path, lait_env, prelude="import anyio\n")
    assert code == 0
    assert loaded == ["anyio"]


@pytest.mark.parametrize(
    "args",
    [
        ["--version"],
        ["lint", "examples/workflows/release.yml"],
        ["lint", "examples/agents/reviewer.md"],
        ["lint", "examples"],
        ["lint", "--format", "sarif", "examples"],
        ["lint", "--format", "github", "--strict", "examples/workflows/triage.yml"],
        ["lint", "broken.yml"],
    ],
    ids=["version", "workflow", "agent", "project", "sarif", "github", "broken"],
)
def test_version_and_lint_do_not_import_heavy_modules(
    args: list[str], tmp_path: Path, lait_env: dict[str, str]
) -> None:
    work = tmp_path / "work"
    work.mkdir()
    shutil.copytree(EXAMPLES, work / "examples")
    (work / "broken.yml").write_text("name: [\nsteps: {}\n", encoding="utf-8")
    code, loaded = _imports_of(args, work, lait_env)
    assert code in (None, 0, 3)
    assert loaded == []
