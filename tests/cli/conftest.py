"""Helpers for the CLI tests: `lait` runs as a real subprocess (`python -m lait_cli.main`) with no
global config (XDG_CONFIG_HOME points at an empty directory) and no debug switches."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.peers.openai_server import ScriptedOpenAIServer

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"


@dataclass(frozen=True)
class Run:
    args: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str

    @property
    def lines(self) -> list[str]:
        return self.stdout.splitlines()


def clean_env(xdg: Path, home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LAIT_", "PYTHONSTARTUP"))}
    env["XDG_CONFIG_HOME"] = str(xdg)
    env["HOME"] = str(home)
    return env


def run_lait(
    args: list[str],
    *,
    cwd: Path,
    env: Mapping[str, str],
    stdin: bytes | None = None,
    timeout: float = 120,
    check_traceback: bool = True,
    preexec_fn: Callable[[], None] | None = None,
) -> Run:
    done = subprocess.run(
        [sys.executable, "-m", "lait_cli.main", *args],
        cwd=cwd,
        env=dict(env),
        input=stdin if stdin is not None else b"",
        capture_output=True,
        timeout=timeout,
        preexec_fn=preexec_fn,
    )
    result = Run(
        tuple(args),
        done.returncode,
        done.stdout.decode("utf-8", errors="replace"),
        done.stderr.decode("utf-8", errors="replace"),
    )
    if check_traceback:
        assert "Traceback" not in result.stderr, result.stderr
        assert "Traceback" not in result.stdout, result.stdout
    return result


class Lait:
    """`lait` bound to a scratch directory (the working directory) and a clean environment."""

    def __init__(self, cwd: Path, env: dict[str, str]) -> None:
        self.cwd = cwd
        self.env = env

    def __call__(
        self, *args: str, stdin: bytes | None = None, cwd: Path | None = None, timeout: float = 120
    ) -> Run:
        return run_lait(list(args), cwd=cwd or self.cwd, env=self.env, stdin=stdin, timeout=timeout)

    def write(self, relative: str, text: str) -> Path:
        path = self.cwd / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", newline="")
        return path


@pytest.fixture
def lait_env(tmp_path: Path) -> dict[str, str]:
    xdg = tmp_path / "_xdg"
    home = tmp_path / "_home"
    xdg.mkdir()
    home.mkdir()
    return clean_env(xdg, home)


@pytest.fixture
def lait(tmp_path: Path, lait_env: dict[str, str]) -> Lait:
    work = tmp_path / "work"
    work.mkdir()
    return Lait(work, lait_env)


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    """The scripted OpenAI-compatible server on 127.0.0.1."""
    with ScriptedOpenAIServer() as s:
        yield s


@pytest.fixture
def lait_no_model_env(lait: Lait) -> Lait:
    """:func:`lait` without the machine's OPENAI_*/LLM_* variables (the project's config decides)."""
    for key in list(lait.env):
        if key.startswith(("OPENAI_", "LLM_")):
            del lait.env[key]
    return lait
