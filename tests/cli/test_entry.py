"""The console script's entry (lait_cli.entry): `lait --version` is answered before typer and the
command modules are imported; anything else reaches the full CLI."""

from __future__ import annotations

import subprocess
import sys

from tests.cli.conftest import Lait

SNIPPET = """
import sys
sys.argv = ["lait", *sys.argv[1:]]
from lait_cli.entry import main
try:
    main()
except SystemExit as exc:
    sys.stderr.write(f"code={exc.code} typer={'typer' in sys.modules}\\n")
"""


def test_version_skips_typer(lait: Lait) -> None:
    for flag in ("--version", "-V"):
        done = subprocess.run(
            [sys.executable, "-c", SNIPPET, flag], cwd=lait.cwd, env=lait.env, capture_output=True, text=True
        )
        assert done.stdout.startswith("lait ")
        assert done.stderr == "code=0 typer=False\n"


def test_python_m_lait_cli_is_the_cli(lait: Lait) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "lait_cli", "schema", "config"],
        cwd=lait.cwd,
        env=lait.env,
        capture_output=True,
    )
    assert done.returncode == 0 and done.stdout.startswith(b"{")
