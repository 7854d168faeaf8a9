"""The response cache (docs/workflows.md, issue 13): `--cache`/`--no-cache`, `default.cache`,
`default.cache_ttl`, `.lait/cache/<key>.json` written atomically, `lait cache clear`, a streamed
answer cached whole and replayed as a stream, hits reported with -v and in the trace."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, text

WF = "steps:\n  - id: ask\n    prompt: 'hi {{ input }}'\n"


def cache_files(project: Lait) -> list[Path]:
    return sorted((project.cwd / ".lait" / "cache").glob("*"))


def test_cache_hit_skips_the_model_and_is_reported(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", WF)
    server.push(text("hello", usage={"prompt_tokens": 2, "completion_tokens": 1, "total_tokens": 3}))
    first = project("run", "wf.yml", "x", "--cache", "--trace-file", "a.jsonl")
    assert first.returncode == 0, first.stderr
    (entry,) = cache_files(project)
    data = json.loads(entry.read_text())
    assert list(data) == ["created_at", "response"]
    assert data["response"]["choices"][0]["message"]["content"] == "hello"
    assert len(entry.stem) == 64
    second = project("-v", "run", "wf.yml", "x", "--cache", "--trace-file", "b.jsonl")
    assert second.returncode == 0, second.stderr
    assert second.stdout == first.stdout == "hello\n"
    assert len(server.requests) == 1
    assert f"cache hit: answer for ask from the response cache (main, key {entry.stem})" in second.stderr
    quiet = project("run", "wf.yml", "x", "--cache")
    assert "cache hit" not in quiet.stderr
    (a,) = (json.loads(x) for x in (project.cwd / "a.jsonl").read_text().splitlines())
    (b,) = (json.loads(x) for x in (project.cwd / "b.jsonl").read_text().splitlines())
    assert (a["attributes"]["lait.source"], b["attributes"]["lait.source"]) == ("live", "cache")
    assert b["attributes"]["gen_ai.usage.input_tokens"] == 2
    assert not [p for p in (project.cwd / ".lait" / "cache").iterdir() if p.suffix != ".json"]


def test_default_cache_and_no_cache(project: Lait, server: ScriptedOpenAIServer) -> None:
    config = project.cwd / "lait.config.yml"
    project.write("lait.config.yml", config.read_text().replace("default:\n", "default:\n  cache: true\n"))
    project.write("wf.yml", WF)
    server.push(text("one"), text("two"))
    assert project("run", "wf.yml", "x").stdout == "one\n"
    assert project("run", "wf.yml", "x").stdout == "one\n"
    assert len(server.requests) == 1
    off = project("run", "wf.yml", "x", "--no-cache")
    assert off.stdout == "two\n"
    assert len(server.requests) == 2
    both = project("run", "wf.yml", "x", "--cache", "--no-cache")
    assert both.returncode == 2 and "--cache and --no-cache cannot be used together" in both.stderr
    assert project("--no-cache", "run", "wf.yml", "x").returncode == 4  # nothing scripted, no cache read


def test_ttl_expires_entries_and_a_future_entry_is_a_miss(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    config = project.cwd / "lait.config.yml"
    project.write("lait.config.yml", config.read_text().replace("default:\n", "default:\n  cache_ttl: 60\n"))
    project.write("wf.yml", WF)
    server.push(text("fresh"), text("after expiry"), text("after future"))
    assert project("run", "wf.yml", "x", "--cache").stdout == "fresh\n"
    assert project("run", "wf.yml", "x", "--cache").stdout == "fresh\n"
    (entry,) = cache_files(project)
    data = json.loads(entry.read_text())
    data["created_at"] = "2000-01-01T00:00:00Z"
    entry.write_text(json.dumps(data))
    assert project("run", "wf.yml", "x", "--cache").stdout == "after expiry\n"
    data = json.loads(entry.read_text())
    data["created_at"] = "2999-01-01T00:00:00Z"
    entry.write_text(json.dumps(data))
    assert project("run", "wf.yml", "x", "--cache").stdout == "after future\n"
    assert len(server.requests) == 3


def test_a_damaged_entry_is_a_miss_and_is_rewritten(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", WF)
    server.push(text("a"), text("b"))
    project("run", "wf.yml", "x", "--cache")
    (entry,) = cache_files(project)
    entry.write_text("{broken")
    assert project("run", "wf.yml", "x", "--cache").stdout == "b\n"
    assert json.loads(entry.read_text())["response"]["choices"][0]["message"]["content"] == "b"


def test_a_streamed_answer_is_cached_whole_and_replayed_as_a_stream(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    long_text = "streamed " * 30
    server.push(text(long_text.strip(), chunk_size=5))
    live = project("--cache", "--stream", "tell me")
    assert live.returncode == 0, live.stderr
    assert live.stdout == long_text.strip() + "\n"
    (entry,) = cache_files(project)
    stored = json.loads(entry.read_text())["response"]["choices"][0]["message"]["content"]
    assert stored == long_text.strip()
    again = project("-v", "--cache", "--stream", "tell me")
    assert again.returncode == 0, again.stderr
    assert again.stdout == live.stdout
    assert "cache hit: answer for chat from the response cache" in again.stderr
    plain = project("--cache", "tell me")
    assert plain.stdout == live.stdout
    assert len(server.requests) == 1


def test_cache_clear(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", WF)
    server.push(text("a"))
    project("run", "wf.yml", "x", "--cache")
    assert cache_files(project)
    cleared = project("cache", "clear")
    assert (cleared.returncode, cleared.stdout) == (0, "cache cleared\n")
    assert not (project.cwd / ".lait" / "cache").exists()
    again = project("cache", "clear")
    assert (again.returncode, again.stdout) == (0, "cache cleared\n")


def test_writes_are_atomic_under_concurrent_readers(tmp_path: Path) -> None:
    """A reader never sees a partial entry while another process rewrites it."""
    import subprocess
    import sys

    from lait_core.engine.llm.chat_types import ChatResponse
    from lait_core.engine.records.response_cache import ResponseCache

    cache = ResponseCache(tmp_path / "c")
    cache.put("k", ChatResponse("x" * 200_000))
    writer = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from lait_core.engine.llm.chat_types import ChatResponse;"
            "from lait_core.engine.records.response_cache import ResponseCache;"
            f"c = ResponseCache(Path({str(tmp_path / 'c')!r}))\n"
            "for i in range(200): c.put('k', ChatResponse(str(i % 10) * 200_000))",
        ],
        env={**os.environ},
    )
    seen = 0
    try:
        while writer.poll() is None:
            got = cache.get("k", "b")
            assert got is not None and got.content is not None and len(got.content) == 200_000
            seen += 1
            time.sleep(0.001)
    finally:
        writer.wait()
    assert writer.returncode == 0
    assert seen > 0
    assert [p.name for p in (tmp_path / "c").iterdir()] == ["k.json"]


def test_recording_writes_the_cache_but_never_reads_it(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", WF)
    server.push(text("cached"), text("recorded"))
    assert project("run", "wf.yml", "x", "--cache").stdout == "cached\n"
    recorded = project("run", "wf.yml", "x", "--cache", "--record", "tape")
    assert recorded.stdout == "recorded\n"  # the model answered although the cache had an entry
    assert len(server.requests) == 2
    (entry,) = cache_files(project)
    assert json.loads(entry.read_text())["response"]["choices"][0]["message"]["content"] == "recorded"
    (tape,) = (project.cwd / "tape").glob("*.json")
    assert tape.name == entry.name  # one content key for both
