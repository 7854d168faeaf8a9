"""`workflows:`/`agents:`/`skills:` entries naming a FIFO: every command names it as a FIFO (never
"does not exist", never a hang on opening it), and the FIFO is never opened (a writer-less FIFO
would block an open)."""

from __future__ import annotations

import os

from tests.cli.conftest import Lait

CONFIG = "workflows:\n  w: pipe.yml\nagents:\n  a: agent.md\nskills:\n  s: sk\n"


def _fifos(lait: Lait) -> None:
    lait.write("lait.config.yml", CONFIG)
    os.mkfifo(lait.cwd / "pipe.yml")
    os.mkfifo(lait.cwd / "agent.md")
    (lait.cwd / "sk").mkdir()
    os.mkfifo(lait.cwd / "sk" / "SKILL.md")


def test_fifo_registry_entries_are_named_as_fifos(lait: Lait) -> None:
    _fifos(lait)
    linted = lait("lint", ".", timeout=60)
    assert linted.returncode != 0
    assert "LAIT105 error: workflows.w resolves to 'pipe.yml', which is a FIFO (named pipe)" in linted.stdout
    assert "does not exist" not in linted.stdout
    for command in ("workflow", "agent", "skill"):
        listed = lait(command, "list", timeout=60)
        assert "is a FIFO (named pipe), not a regular file" in listed.stdout + listed.stderr, (
            command,
            listed,
        )
    ran = lait("run", "w", "x", timeout=60)
    assert ran.returncode != 0 and "is a FIFO (named pipe)" in ran.stderr
    agent = lait("agent", "run", "a", "hi", timeout=60)
    assert agent.returncode != 0 and "is a FIFO (named pipe)" in agent.stderr
