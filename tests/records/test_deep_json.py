"""lait's own record files holding JSON nested 100,000 levels deep (a damaged or hostile file):
the cache entry is a miss, the history line is skipped, the trace and the cassette entry are
located errors, a chat session line is skipped -- never ``internal error: RecursionError``."""

from __future__ import annotations

import json
from pathlib import Path

from lait_core.engine.records.saved_sessions import load as load_session
from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, text
from tests.records.test_cache import WF, cache_files
from tests.records.test_history import history_file

DEEP = "[" * 100_000 + "]" * 100_000


def _no_traceback(*outputs: str) -> None:
    for out in outputs:
        assert "RecursionError" not in out and "Traceback" not in out and "internal error" not in out


def test_a_deep_cache_entry_is_a_miss(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", WF)
    server.push(text("a"), text("b"))
    project("run", "wf.yml", "x", "--cache")
    (entry,) = cache_files(project)
    entry.write_text('{"response": ' + DEEP + "}")
    again = project("run", "wf.yml", "x", "--cache")
    assert (again.returncode, again.stdout) == (0, "b\n")
    _no_traceback(again.stderr)


def test_a_deep_history_line_is_skipped(project: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("kept answer"))
    assert project("first prompt").returncode == 0
    with history_file(project).open("a", encoding="utf-8") as fh:
        fh.write(DEEP + "\n")
    listed = project("history")
    assert listed.returncode == 0, listed.stderr
    assert [line.split("\t")[-1] for line in listed.stdout.splitlines()] == ["first prompt"]
    _no_traceback(listed.stderr)


def test_a_deep_trace_line_is_a_located_error(project: Lait) -> None:
    path = project.write("trace.jsonl", DEEP + "\n")
    shown = project("trace", "show", str(path))
    assert shown.returncode != 0
    assert "trace.jsonl:1: not a JSON object: nested deeper than 1024 levels" in shown.stderr
    _no_traceback(shown.stderr)


def test_a_deep_cassette_entry_is_a_located_error(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", WF)
    server.push(text("a"))
    assert project("run", "wf.yml", "x", "--record", "tape").returncode == 0
    (entry,) = sorted((project.cwd / "tape").glob("*.json"))
    entry.write_text('{"response": ' + DEEP + "}")
    replayed = project("run", "wf.yml", "x", "--replay", "tape")
    assert replayed.returncode != 0
    assert "is unusable" in replayed.stderr and "nested deeper than 1024 levels" in replayed.stderr
    _no_traceback(replayed.stderr)


def test_a_deep_session_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    path.write_text(json.dumps({"role": "user", "content": "hi"}) + "\n" + DEEP + "\n", encoding="utf-8")
    loaded = load_session(path)
    assert loaded.messages == [{"role": "user", "content": "hi"}] and loaded.skipped == 1
