"""The `ask` step through the real CLI (`python -m lait_cli.main run`) and TerminalInteraction
(`ask:`, docs/workflows.md): on a terminal the question and `choices:` go to stderr and one line is
read; with a piped stdin nothing is read for the question (the pipe is the PROMPT), `default:` is
used, and without one the run fails with a located `lait:` error."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
WORKFLOW = """
steps:
  - id: q
    ask: 'Ship {{ input }}?'
    choices: [yes, no]
    default: 'no'
  - jq: '{answer: ., prompt: $steps.q}'
"""


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAIT_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["PYTHONPATH"] = str(REPO)
    return env


def _write(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / name).write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")


def test_ask_on_a_terminal_prompts_on_stderr_and_reads_one_line(tmp_path: Path) -> None:
    _write(tmp_path, "w.yml", WORKFLOW)
    master, slave = os.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "lait_cli.main", "run", "--no-config", "w.yml", "v2"],
        cwd=tmp_path,
        env=_env(tmp_path),
        stdin=slave,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    os.close(slave)
    assert proc.stderr is not None and proc.stdout is not None
    err = b""
    try:
        deadline = time.monotonic() + 30
        while b"choices: yes, no\n" not in err and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stderr], [], [], 0.2)
            if ready:
                chunk = os.read(proc.stderr.fileno(), 4096)
                if not chunk:
                    break
                err += chunk
        assert b"Ship v2?\nchoices: yes, no\n" in err, err
        assert proc.poll() is None  # waiting for the answer
        os.write(master, b"yes\n")
        out, rest = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)
    stderr = (err + rest).decode()
    assert proc.returncode == 0, stderr
    assert out.decode() == '{"answer":"yes","prompt":"yes"}\n'
    assert stderr.splitlines()[0] == "[1] q"
    assert "Traceback" not in stderr


def test_ask_with_piped_stdin_uses_the_default_and_reads_nothing_more(tmp_path: Path) -> None:
    _write(tmp_path, "w.yml", WORKFLOW)
    env = _env(tmp_path)
    args = [sys.executable, "-m", "lait_cli.main", "run", "--no-config", "w.yml"]
    done = subprocess.run(
        args, cwd=tmp_path, env=env, input="yes\n", capture_output=True, text=True, timeout=60
    )
    # the pipe is the PROMPT ("yes"); the question is not asked and gets its default
    assert (done.returncode, done.stdout) == (0, '{"answer":"no","prompt":"no"}\n'), done.stderr
    assert "Ship yes?" not in done.stderr

    _write(tmp_path, "n.yml", "steps:\n  - id: name\n    ask: 'Name?'\n")
    args[-1] = "n.yml"
    failed = subprocess.run(
        [*args, "x"], cwd=tmp_path, env=env, input="", capture_output=True, text=True, timeout=60
    )
    assert failed.returncode == 1
    assert failed.stdout == ""
    last = failed.stderr.splitlines()[-1]
    assert last.startswith("lait: step 'name': stdin is not an interactive terminal and no 'default:' is set")
    assert "Traceback" not in failed.stderr
