"""Shell completions (issue 17 item 7 and its acceptance): the script `lait completions bash`
prints runs in a real `bash`, and its candidates are checked: subcommands, options (global ones
after a subcommand too) and names from the project's config. The same cases run in a real `fish`
and a real `zsh`; PowerShell's script is only checked as text. Also `lait man --dir DIR`."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from tests.cli.conftest import REPO, Lait

CONFIG = """\
models:
  fast:
    - provider: {base_url: "http://127.0.0.1:9/v1"}
      model_id: small
tools:
  grep: {command: [grep], description: search}
mcp_servers:
  notes: {command: python3}
agents:
  reviewer: reviewer.md
workflows:
  triage: wf.yml
prompts:
  summary: {template: "{{ input }}"}
"""

CASES: list[tuple[list[str], set[str], set[str]]] = [
    # (COMP_WORDS after `lait`, must be among the candidates, must not be)
    (["ru"], {"run", "rule"}, {"lint"}),
    (["--model", ""], {"fast", "embedded"}, set()),
    (["--mo"], {"--model"}, set()),
    (["--tool", "g"], {"grep"}, set()),
    (["--mcp", ""], {"notes"}, set()),
    (["--subagent", ""], {"reviewer"}, set()),
    (["-p", ""], {"summary"}, set()),
    (["run", ""], {"triage", "wf.yml", "lait.config.yml"}, set()),
    (["run", "wf.yml", "--no"], {"--no-config", "--no-env", "--no-cache"}, {"--model"}),
    (["agent", ""], {"run", "list"}, set()),
    (["agent", "run", "rev"], {"reviewer", "reviewer.md"}, {"triage"}),
    (["prompt", "run", ""], {"summary"}, set()),
    (["sessions", "show", ""], {"old-talk"}, set()),
    (["completions", ""], {"bash", "zsh", "fish", "powershell"}, set()),
    (["mcp", "tools", ""], {"notes"}, set()),
    (["mcp", "call", ""], {"notes"}, set()),
    (["mcp", ""], {"list", "tools", "call"}, set()),
]


@pytest.fixture
def shell_env(lait: Lait, tmp_path: Path) -> dict[str, str]:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "lait"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m lait_cli.main "$@"\n')
    wrapper.chmod(0o755)
    env = dict(lait.env)
    env["PATH"] = f"{bin_dir}:{env.get('PATH', '/usr/bin:/bin')}"
    env["PYTHONPATH"] = str(REPO)
    lait.write("lait.config.yml", CONFIG)
    lait.write("wf.yml", "steps:\n  - jq: .\n")
    lait.write("reviewer.md", "---\ndescription: r\n---\nReview.\n")
    lait.write(".lait/sessions/old-talk.jsonl", "")
    return env


def test_bash_completion_in_a_real_bash(lait: Lait, shell_env: dict[str, str]) -> None:
    script = lait("completions", "bash").stdout
    assert "complete -o default -F _lait_complete lait" in script
    (lait.cwd.parent / "lait.bash").write_text(script)
    lines = ["source ../lait.bash"]
    for words, _must, _not in CASES:
        quoted = " ".join("'" + w + "'" for w in ["lait", *words])
        lines += [
            f"COMP_WORDS=({quoted}); COMP_CWORD={len(words)}; _lait_complete",
            'printf "%s\\n" "${COMPREPLY[@]}"; echo "@@END@@"',
        ]
    done = subprocess.run(
        ["bash", "--norc", "--noprofile", "-c", "\n".join(lines)],
        cwd=lait.cwd,
        env=shell_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    outputs = done.stdout.split("@@END@@\n")
    assert len(outputs) == len(CASES) + 1
    for (words, must, must_not), out in zip(CASES, outputs, strict=False):
        got = {line for line in out.splitlines() if line}
        assert must <= got, (words, got)
        assert not (must_not & got), (words, got)


def _shell(name: str) -> str:
    """The shell's path; skipped locally, failed in CI (.ci/install-shells installs zsh and fish)."""
    path = shutil.which(name)
    if path is None:
        problem = f"{name} is not installed (bash .ci/install-shells)"
        if os.environ.get("CI") == "true":
            pytest.fail(f"{problem} (CI=true: a missing shell fails instead of skipping)", pytrace=False)
        pytest.skip(problem)
    return path


def _check(outputs: list[set[str]]) -> None:
    assert len(outputs) == len(CASES)
    for (words, must, must_not), got in zip(CASES, outputs, strict=True):
        assert must <= got, (words, got)
        assert not (must_not & got), (words, got)


@pytest.mark.shells
def test_fish_completion_in_a_real_fish(lait: Lait, shell_env: dict[str, str]) -> None:
    """fish's own completion engine (`complete -C LINE`) with the generated script loaded."""
    fish = _shell("fish")
    (lait.cwd.parent / "lait.fish").write_text(lait("completions", "fish").stdout)
    lines = ["source ../lait.fish"]
    for words, _must, _not in CASES:
        line = " ".join(["lait", *words])
        lines += [f"complete -C '{line}'", "echo @@END@@"]
    done = subprocess.run(
        [fish, "--no-config", "-c", "\n".join(lines)],
        cwd=lait.cwd,
        env=shell_env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    outputs = done.stdout.split("@@END@@\n")[:-1]
    # a candidate may carry a description after a tab; file names carry their folder's slash
    _check([{line.split("\t")[0] for line in out.splitlines() if line} for out in outputs])


@pytest.mark.shells
def test_zsh_completion_in_a_real_zsh(lait: Lait, shell_env: dict[str, str]) -> None:
    """An interactive zsh (no rc files) with compinit and the generated script: each case is typed
    and listed with Ctrl-D (zsh's list-choices), the listing read from the terminal."""
    zsh = _shell("zsh")
    (lait.cwd.parent / "lait.zsh").write_text(lait("completions", "zsh").stdout)
    env = dict(shell_env, TERM="dumb")
    child = pexpect.spawn(
        zsh, ["-f", "-i"], env=env, cwd=str(lait.cwd), encoding="utf-8", timeout=120, dimensions=(50, 200)
    )
    outputs: list[set[str]] = []
    try:
        child.sendline(
            "PS1='ZP> '; autoload -Uz compinit && compinit -u -D && source ../lait.zsh && echo READY"
        )
        child.expect_exact("READY\r\n")
        for number, (words, _must, _not) in enumerate(CASES):
            child.send(" ".join(["lait", *words]) + "\x04")  # Ctrl-D: list the choices
            child.send("\x15")  # Ctrl-U: clear the line
            child.sendline(f"echo @@{number}@@")
            child.expect_exact(f"@@{number}@@\r\n")
            screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|\x07", "", child.before)
            listing = [
                line
                for line in screen.split("\r\n")[1:]
                if "ZP>" not in line and "echo @@" not in line and not line.startswith("#")
            ]
            outputs.append({word for line in listing for word in line.split()})
        child.sendline("exit")
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    _check(outputs)


def test_powershell_gets_a_script(lait: Lait) -> None:
    """Not executed: PowerShell is neither a Debian package nor on PyPI/npm without a download of
    its own, so no test machine has it (see docs/cli.md)."""
    run = lait("completions", "powershell")
    assert run.returncode == 0
    assert "Register-ArgumentCompleter -Native -CommandName lait" in run.stdout
    assert "lait __complete" in run.stdout


def test_unknown_shell_is_a_usage_error(lait: Lait) -> None:
    run = lait("completions", "tcsh")
    assert run.returncode == 2
    assert "unknown shell 'tcsh'" in run.stderr


def test_man_pages(lait: Lait) -> None:
    run = lait("man", "--dir", "pages")
    assert run.returncode == 0, run.stderr
    pages = {p.name for p in (lait.cwd / "pages").iterdir()}
    assert {"lait.1", "lait-run.1", "lait-agent-run.1", "lait-doctor.1", "lait-lint.1"} <= pages
    run_page = (lait.cwd / "pages" / "lait-run.1").read_text()
    assert run_page.startswith('.TH "LAIT-RUN" "1"')
    assert "\\-\\-dry\\-run" in run_page
    main_page = (lait.cwd / "pages" / "lait.1").read_text()
    assert "\\-\\-model" in main_page and "lait\\-run" in main_page
    if shutil.which("groff"):
        rendered = subprocess.run(
            ["groff", "-man", "-Tutf8", str(lait.cwd / "pages" / "lait-run.1")],
            capture_output=True,
            text=True,
        )
        assert rendered.returncode == 0
        plain = re.sub(r".\x08", "", rendered.stdout).replace("\u2010", "-")
        assert "--dry-run" in plain
