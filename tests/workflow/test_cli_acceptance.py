"""Acceptance through the real CLI (`python -m lait_cli.main run`): a failed run prints
`lait: <error chain>` with the step label and exits with the documented code (docs/cli.md), a
timed-out step leaves no process behind, and stdout holds only the result."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def lait_run(tmp_path: Path, text: str, *args: str) -> subprocess.CompletedProcess[str]:
    (tmp_path / "w.yml").write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAIT_")}
    env["XDG_CONFIG_HOME"] = str(tmp_path / "xdg")
    env["PYTHONPATH"] = str(REPO)
    return subprocess.run(
        [sys.executable, "-m", "lait_cli.main", "run", "--no-config", "w.yml", *args],
        cwd=tmp_path,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


def test_timed_out_step_exits_5_and_leaves_no_process(tmp_path: Path) -> None:
    done = lait_run(
        tmp_path,
        """
        steps:
          - id: slow
            run: [sh, -c, 'sleep 30 & echo $! > pids; echo $$ >> pids; wait']
            timeout: 1
        """,
        "in",
    )
    assert done.returncode == 5, done.stderr
    assert done.stderr.splitlines()[-1] == "lait: step 'slow' timed out after 1s (attempt 1/1)"
    assert done.stdout == ""
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    assert len(pids) == 2 and not any(alive(p) for p in pids)


def test_failed_step_exits_1_with_the_chain(tmp_path: Path) -> None:
    done = lait_run(
        tmp_path,
        """
        steps:
          - id: outer
            group:
              - id: inner
                run: [sh, -c, 'echo oops >&2; exit 2']
        """,
        "in",
    )
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == (
        "lait: step 'outer': step 'inner': command 'sh' failed (exit status: 2); stderr: oops"
    )


def test_invalid_file_exits_3_and_result_alone_on_stdout(tmp_path: Path) -> None:
    done = lait_run(tmp_path, "steps:\n  - jq: '.['\n", "in")
    assert done.returncode == 3
    assert "w.yml:2:11: LAIT402" in done.stderr
    done = lait_run(tmp_path, "name: ok\nsteps:\n  - jq: '{a: .}'\n", "in")
    assert done.returncode == 0, done.stderr
    assert done.stdout == '{"a":"in"}\n'
    assert done.stderr.splitlines() == ["==> ok", "[1] step-1 (jq)"]


def test_a_step_timed_out_inside_a_child_exits_5_with_the_chain(tmp_path: Path) -> None:
    (tmp_path / "child.yml").write_text(
        "steps:\n  - id: outer\n    group:\n      - id: inner\n"
        "        run: [sh, -c, 'sleep 30 & echo $! > pids; echo $$ >> pids; wait']\n        timeout: 1\n",
        encoding="utf-8",
    )
    done = lait_run(tmp_path, "steps:\n  - id: call\n    workflow: child.yml\n", "in")
    assert done.returncode == 5, done.stderr
    assert done.stderr.splitlines()[-1] == (
        "lait: step 'call': step 'outer': step 'inner' timed out after 1s (attempt 1/1)"
    )
    assert done.stdout == ""
    pids = [int(p) for p in (tmp_path / "pids").read_text().split()]
    assert len(pids) == 2 and not any(alive(p) for p in pids)
