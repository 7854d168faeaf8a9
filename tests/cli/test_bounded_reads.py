"""Issue 19, "bounded everything": every file lait reads goes through one reader that refuses
non-regular files (FIFOs, devices, sockets) with a located error and caps the size at 16 MiB, and
standard input is capped the same way. The old code froze on a FIFO (`lait lint` was killed by a
timeout after 10 s) and grew to 18.9 GB reading `/dev/zero` from stdin. No test here waits for a
writer: a FIFO that were opened for reading would block until the subprocess timeout fails the
test."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import Lait

FIFO_REFUSED = "is a FIFO (named pipe), not a regular file; lait reads only regular files"


def fifo(lait: Lait, relative: str) -> Path:
    path = lait.cwd / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    return path


def test_a_fifo_as_output_schema_file(lait: Lait) -> None:
    fifo(lait, "schema.json")
    lait.write("wf.yml", "steps:\n  - id: a\n    prompt: hi\n    output_schema: {file: schema.json}\n")
    run = lait("lint", "wf.yml", timeout=30)
    assert run.returncode == 3, run.stdout
    assert "wf.yml:4:" in run.stdout and FIFO_REFUSED in run.stdout, run.stdout


def test_dev_stdin_as_output_schema_file(lait: Lait) -> None:
    lait.write("wf.yml", "steps:\n  - id: a\n    prompt: hi\n    output_schema: {file: /dev/stdin}\n")
    proc = subprocess.run(
        [sys.executable, "-m", "lait_cli.main", "lint", "wf.yml"],
        cwd=lait.cwd,
        env=lait.env,
        stdin=subprocess.PIPE,  # a pipe no one writes to: reading it would never end
        capture_output=True,
        timeout=30,
    )
    out = proc.stdout.decode()
    assert proc.returncode == 3, out
    assert "wf.yml:4:" in out and "'/dev/stdin' is a FIFO (named pipe)" in out, out


def test_a_fifo_as_agent_file(lait: Lait) -> None:
    fifo(lait, "a.md")
    lait.write("wf.yml", "steps:\n  - agent: ./a.md\n")
    run = lait("lint", "wf.yml", timeout=30)
    assert run.returncode == 3, run.stdout
    assert "wf.yml:2:" in run.stdout and FIFO_REFUSED in run.stdout, run.stdout


def test_a_fifo_named_on_the_command_line(lait: Lait) -> None:
    fifo(lait, "agent.md")
    run = lait("lint", "agent.md", timeout=30)
    assert run.returncode == 3
    assert run.stdout.startswith("agent.md:1:1: LAIT004 error: 'agent.md' " + FIFO_REFUSED), run.stdout


def test_a_socket_and_a_device_are_refused(lait: Lait, tmp_path: Path) -> None:
    sock = socket.socket(socket.AF_UNIX)
    path = tmp_path / "s.yml"
    sock.bind(str(path))
    (lait.cwd / "zero.yml").symlink_to("/dev/zero")
    try:
        run = lait("lint", str(path), "zero.yml", timeout=30)
    finally:
        sock.close()
    assert run.returncode == 3
    assert f"'{path}' is a socket, not a regular file" in run.stdout, run.stdout
    assert "'zero.yml' is a character device, not a regular file" in run.stdout, run.stdout


def test_a_fifo_in_a_jq_include_search_path(lait: Lait) -> None:
    fifo(lait, "jqlib/util.jq")
    lait.write("wf.yml", 'steps:\n  - id: a\n    jq: \'include "util" {search: "./jqlib"}; .\'\n')
    run = lait("lint", "wf.yml", timeout=30)
    assert run.returncode == 3, run.stdout
    assert "wf.yml:3:" in run.stdout and "a jq module path is not a regular file" in run.stdout, run.stdout
    assert "jqlib/util.jq' " + FIFO_REFUSED in run.stdout


def test_a_fifo_as_dotenv(lait: Lait) -> None:
    fifo(lait, ".env")
    run = lait("--base-url", "http://127.0.0.1:9/v1", "--model", "m", "hi", timeout=30)
    assert run.returncode != 0
    assert run.stderr.startswith("lait: failed to read '.env': "), run.stderr
    assert FIFO_REFUSED in run.stderr


@pytest.mark.parametrize("flag", ["--file", "--system-file", "--json-schema"])
def test_a_fifo_as_a_prompt_or_attachment_file(lait: Lait, flag: str) -> None:
    fifo(lait, "x.txt")
    run = lait("--base-url", "http://127.0.0.1:9/v1", "--model", "m", flag, "x.txt", "hi", timeout=30)
    assert run.returncode != 0
    assert run.stderr.startswith("lait: "), run.stderr
    assert FIFO_REFUSED in run.stderr, run.stderr


@pytest.mark.parametrize("args", [["hi"], ["lint", "-"]], ids=["chat", "lint"])
def test_unbounded_stdin_ends_quickly_with_bounded_memory(lait: Lait, args: list[str]) -> None:
    with open("/dev/zero", "rb") as zero:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "lait_cli.main",
                "--base-url",
                "http://127.0.0.1:9/v1",
                "--model",
                "m",
                *args,
            ]
            if args == ["hi"]
            else [sys.executable, "-m", "lait_cli.main", *args],
            cwd=lait.cwd,
            env=lait.env,
            stdin=zero,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        try:
            _out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
    assert proc.returncode != 0
    assert err.decode().startswith("lait: standard input is larger than 16 MiB"), err[:300]
    # the children's peak resident size (KiB on Linux): the 16 MiB cap, not the whole stream
    import resource

    assert resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss < 400 * 1024


DEEP = "(" * 30_000 + "." + ")" * 30_000


def deep_workflow() -> str:
    """480 KB: eight jq expressions of 30,000 nested parentheses (the old lint took 43 s)."""
    return "steps:\n" + "".join(f"  - id: s{i}\n    jq: '{DEEP}'\n" for i in range(8))


def test_deeply_nested_jq_is_refused_before_libjq_sees_it(lait: Lait) -> None:
    lait.write("deep.yml", deep_workflow())
    run = lait("lint", "deep.yml", timeout=60)
    assert run.returncode == 3
    # located at the 1025th parenthesis: column 10 is the first one inside the quotes
    assert run.lines == [
        f"deep.yml:{3 + 2 * i}:{10 + 1024}: LAIT402 error: the 'jq' of step 's{i}': invalid jq: "
        "the jq expression nests deeper than 1024 levels"
        for i in range(8)
    ]


def test_a_fifo_as_a_saved_session(lait: Lait) -> None:
    fifo(lait, ".lait/sessions/s.jsonl")
    run = lait("--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--session", "s", "hi", timeout=30)
    assert run.returncode != 0
    assert run.stderr.startswith("lait: "), run.stderr
    assert FIFO_REFUSED in run.stderr, run.stderr
