"""Sessions (docs/cli.md; issue 17 item 3): `--session NAME` on single-shot chat
(history sent between the system prompt and the new message, a turn stored only on success),
`lait sessions list|show|delete`, and crash safety: a process killed while appending never leaves
a line that breaks the next load."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from lait_core.engine.records import saved_sessions as sessions
from tests.cli.conftest import REPO, Lait
from tests.peers.openai_server import ScriptedOpenAIServer, error, text


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as s:
        yield s


@pytest.fixture
def chat(lait: Lait, server: ScriptedOpenAIServer) -> Lait:
    for key in list(lait.env):
        if key.startswith(("OPENAI_", "LLM_")):
            del lait.env[key]
    lait.env["OPENAI_BASE_URL"] = server.url
    lait.env["LLM_MODEL"] = "m"
    return lait


def test_single_shot_sessions(chat: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("one"), error(400, "boom"), text("two"))
    assert chat("--session", "s1", "--system", "be brief", "first").returncode == 0
    failed = chat("--session", "s1", "lost")
    assert failed.returncode == 4
    assert chat("--session", "s1", "--system", "be brief", "second").returncode == 0
    assert server.bodies[2]["messages"] == [
        {"role": "system", "content": "be brief"},
        {"role": "user", "content": "first"},
        {"role": "assistant", "content": "one"},
        {"role": "user", "content": "second"},
    ]
    stored = (chat.cwd / ".lait" / "sessions" / "s1.jsonl").read_text().splitlines()
    assert [json.loads(line)["content"] for line in stored] == ["first", "one", "second", "two"]

    listed = chat("sessions", "list")
    assert listed.returncode == 0 and listed.lines[0].split()[:2] == ["s1", "4"]
    shown = chat("sessions", "show", "s1")
    assert shown.stdout.startswith("user: first\n\nassistant: one\n\n")
    as_json = chat("sessions", "show", "s1", "--json")
    assert [json.loads(line)["role"] for line in as_json.lines] == ["user", "assistant"] * 2
    assert chat("sessions", "delete", "s1").returncode == 0
    assert not (chat.cwd / ".lait" / "sessions" / "s1.jsonl").exists()
    missing = chat("sessions", "delete", "s1")
    assert (missing.returncode, missing.stderr) == (1, "lait: no session 's1' in .lait/sessions/\n")


@pytest.mark.parametrize("args", [["--session", "bad/name", "x"], ["sessions", "show", "../x"]])
def test_bad_session_names_are_usage_errors(
    chat: Lait, server: ScriptedOpenAIServer, args: list[str]
) -> None:
    run = chat(*args)
    assert run.returncode == 2
    assert "invalid session name" in run.stderr
    assert server.bodies == []


def test_a_cut_off_last_line_is_skipped_and_cut(chat: Lait, server: ScriptedOpenAIServer) -> None:
    path = chat.cwd / ".lait" / "sessions" / "s.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text('{"role": "user", "content": "a"}\n{"role": "assistant", "content": "b"}\n{"role": "us')
    server.push(text("c"))
    run = chat("--session", "s", "next")
    assert run.returncode == 0
    assert "skipped 1 unreadable line" in run.stderr
    assert server.bodies[0]["messages"][:2] == [
        {"role": "user", "content": "a"},
        {"role": "assistant", "content": "b"},
    ]
    lines = path.read_text().splitlines()
    assert [json.loads(line)["content"] for line in lines] == ["a", "b", "next", "c"]


WRITER = """
import sys
from pathlib import Path
from lait_core.engine.records import saved_sessions as sessions
path = Path(sys.argv[1])
big = "x" * 400_000
sys.stdout.write("ready\\n"); sys.stdout.flush()
import time
# at most 30 turns (12 MB): a session stays under the 16 MiB read limit however fast this machine writes
for i in range(30):
    sessions.append(path, [{"role": "user", "content": f"{i} {big}"}, {"role": "assistant", "content": str(i)}])
time.sleep(60)
"""


def test_a_killed_writer_never_breaks_the_next_load(tmp_path: Path) -> None:
    for round_ in range(3):
        path = tmp_path / ".lait" / "sessions" / f"k{round_}.jsonl"
        proc = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path)],
            stdout=subprocess.PIPE,
            env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        )
        assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
        time.sleep(0.1 + 0.1 * round_)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        loaded = sessions.load(path)
        assert loaded.skipped <= 1
        assert all(m["role"] in ("user", "assistant") for m in loaded.messages)
        sessions.append(
            path, [{"role": "user", "content": "after"}, {"role": "assistant", "content": "kill"}]
        )
        again = sessions.load(path)
        assert again.skipped == 0
        assert again.messages[-2:] == [
            {"role": "user", "content": "after"},
            {"role": "assistant", "content": "kill"},
        ]


def test_compaction_applies_to_a_long_session(chat: Lait, server: ScriptedOpenAIServer) -> None:
    chat.write("lait.config.yml", "default:\n  compaction: {trigger_rounds: 1, keep_last_n: 2}\n")
    stored = []
    for i in range(3):
        stored += [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]
    path = chat.cwd / ".lait" / "sessions" / "long.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(m) + "\n" for m in stored))
    server.push(text("the summary"), text("the answer"))
    run = chat("--session", "long", "q3")
    assert (run.returncode, run.stdout) == (0, "the answer\n"), run.stderr
    summary_request, request = server.bodies
    assert summary_request["messages"][:7] == [*stored, {"role": "user", "content": "q3"}]
    assert (
        request["messages"][0]["role"] == "assistant" and "the summary" in request["messages"][0]["content"]
    )
    assert request["messages"][1:] == [
        {"role": "assistant", "content": "a2"},
        {"role": "user", "content": "q3"},
    ]
    lines = path.read_text().splitlines()
    assert len(lines) == 8  # the file keeps every turn; compaction shapes the request only
