"""`lait lint` leaves without the interpreter's teardown (lait_cli/support/quick_exit.py): the
output is all there, the exit code is the command's, and the `atexit` handlers still run."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import Lait

PROGRAM = """\
import atexit, sys
from pathlib import Path
from lait_cli.support import quick_exit

atexit.register(lambda: Path(sys.argv[1]).write_text("ran", encoding="utf-8"))
sys.stdout.write("x" * 100000)  # still in the buffer when leave() is called
sys.stderr.write("partial line")
if sys.argv[2] == "request":
    quick_exit.request()
quick_exit.leave(int(sys.argv[3]))
sys.stderr.write(" and the usual exit")
raise SystemExit(9)
"""


def _run(tmp_path: Path, mode: str, code: int) -> tuple[subprocess.CompletedProcess[str], Path]:
    marker = tmp_path / f"atexit-{mode}-{code}"
    done = subprocess.run(
        [sys.executable, "-c", PROGRAM, str(marker), mode, str(code)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={"PYTHONPATH": str(Path(__file__).resolve().parents[2]), "PATH": "/usr/bin:/bin"},
    )
    return done, marker


def test_leave_flushes_runs_atexit_and_exits_with_the_code(tmp_path: Path) -> None:
    for code in (0, 3):
        done, marker = _run(tmp_path, "request", code)
        assert done.returncode == code, done.stderr
        assert done.stdout == "x" * 100000
        assert done.stderr == "partial line"
        assert marker.read_text(encoding="utf-8") == "ran"


def test_without_a_request_leave_returns(tmp_path: Path) -> None:
    done, marker = _run(tmp_path, "none", 3)
    assert done.returncode == 9
    assert done.stderr == "partial line and the usual exit"
    assert marker.read_text(encoding="utf-8") == "ran"


def test_lint_output_and_codes_survive_the_quick_exit(lait: Lait) -> None:
    (lait.cwd / "bad.yml").write_text("name: bad\nsteps:\n  - id: a\n    bogus: 1\n", encoding="utf-8")
    (lait.cwd / "good.yml").write_text("name: good\nsteps:\n  - id: a\n    jq: '.'\n", encoding="utf-8")
    bad = lait("lint", "--no-config", "--format", "json", "bad.yml")
    assert bad.returncode == 3
    assert json.loads(bad.stdout)[0]["file"] == "bad.yml"  # the whole report, flushed
    assert bad.stderr == "lait: 1 error in 1 file\n"
    good = lait("lint", "--no-config", "good.yml")
    assert good.returncode == 0, good.stdout + good.stderr
    assert good.stderr == "lait: 1 file checked, no problems\n"
