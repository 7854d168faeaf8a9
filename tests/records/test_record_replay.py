"""Cassettes (docs/workflows.md, issue 13): a workflow with a prompt step that calls a shell
tool and an MCP tool of a real peer, and a for_each over two items, is recorded against the
scripted model server; the server is stopped; the replay prints byte-identical stdout and its trace
has the same events except timings (and ``lait.source``: ``live`` then ``replay``). A replay miss
is a hard error naming the key and the step; no file lait writes holds a secret."""

from __future__ import annotations

import json
import uuid
from pathlib import Path

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.processes import running_with_marker
from tests.records.conftest import CANARY, assert_no_canary

WORKFLOW = """\
name: recorded
steps:
  - id: research
    prompt: "Research {{ input }}"
    tools: [shout]
    mcp: [peer]
  - id: each
    for_each: '["a", "b"]'
    steps:
      - prompt: "Item {{ input }}"
  - jq: '{research: $steps.research, items: .}'
"""
USAGE = {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}


def script(server: ScriptedOpenAIServer) -> None:
    server.push(
        tool_calls(
            call("tool__shout", {"word": "cats"}, id="c1"), call("peer__add", {"a": 2, "b": 3}, id="c2")
        ),
        text("shouted and added", usage=USAGE),
        text("item one", usage=USAGE),
        text("item two", usage=USAGE),
    )


def events_without_timings(path: Path) -> list[dict[str, object]]:
    out = []
    for line in path.read_text().splitlines():
        event = json.loads(line)
        for key in ("start", "end", "duration_ms"):
            del event[key]
        event["attributes"].pop("lait.source", None)
        out.append(event)
    return out


def test_record_then_replay_without_the_model_server(project: Lait, server: ScriptedOpenAIServer) -> None:
    marker = uuid.uuid4().hex
    project.env["LAIT_TEST_MARKER"] = marker  # every process lait starts (MCP peer, shell tool) inherits it
    project.write("wf.yml", WORKFLOW)
    script(server)
    recorded = project("run", "wf.yml", "cats", "--record", "tape", "--trace-file", "rec.jsonl")
    assert recorded.returncode == 0, recorded.stderr
    assert recorded.stdout == '{"research":"shouted and added","items":["item one","item two"]}\n'
    bodies = server.bodies
    tool_results = [m["content"] for m in bodies[1]["messages"] if m["role"] == "tool"]
    assert tool_results[0].startswith("CATS") and tool_results[1].startswith("5")
    tape = project.cwd / "tape"
    entries = sorted(tape.glob("*.json"))
    assert len(entries) == 4
    for entry in entries:
        data = json.loads(entry.read_text())
        assert list(data) == ["recorded_at", "request", "response"]
        assert list(data["request"]) == ["base_url", "model_id", "messages", "tools", "response_format"]
        assert data["request"]["model_id"] == "test-model"
    server.stop()

    replayed = project("run", "wf.yml", "cats", "--replay", "tape", "--trace-file", "rep.jsonl")
    assert replayed.returncode == 0, replayed.stderr
    assert replayed.stdout.encode() == recorded.stdout.encode()
    rec, rep = project.cwd / "rec.jsonl", project.cwd / "rep.jsonl"
    assert events_without_timings(rec) == events_without_timings(rep)
    sources = [json.loads(line)["attributes"].get("lait.source") for line in rep.read_text().splitlines()]
    assert sources.count("replay") == 4 and "live" not in sources
    tools = [json.loads(line) for line in rep.read_text().splitlines() if '"execute_tool"' in line]
    assert {t["attributes"]["gen_ai.tool.name"] for t in tools} == {"tool__shout", "peer__add"}
    assert assert_no_canary(project.cwd, Path(project.env["XDG_DATA_HOME"])) >= 7
    assert running_with_marker(marker) == []  # both runs reaped the MCP server and the tool processes


def test_a_replay_miss_names_the_key_and_the_step(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", WORKFLOW)
    script(server)
    assert project("run", "wf.yml", "cats", "--record", "tape").returncode == 0
    server.stop()
    miss = project("run", "wf.yml", "dogs", "--replay", "tape")
    assert miss.returncode == 1
    assert "replay: no recording of the request of research to model 'main' (key " in miss.stderr
    assert "record it with `lait run FILE --record DIR`" in miss.stderr
    key = miss.stderr.split("(key ", 1)[1].split(")", 1)[0]
    assert len(key) == 64 and f"{key}.json" in miss.stderr
    assert miss.stdout == ""


def test_a_damaged_entry_is_reported_apart_from_a_missing_one(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    project.write("wf.yml", "steps:\n  - prompt: 'hi {{ input }}'\n")
    server.push(text("hello"))
    assert project("run", "wf.yml", "x", "--record", "tape").returncode == 0
    (entry,) = (project.cwd / "tape").glob("*.json")
    entry.write_text("{not json")
    broken = project("run", "wf.yml", "x", "--replay", "tape")
    assert broken.returncode == 1
    assert "is unusable" in broken.stderr and "not valid JSON" in broken.stderr
    assert "no recording" not in broken.stderr


def test_record_and_replay_exclude_each_other(project: Lait) -> None:
    project.write("wf.yml", "steps:\n  - prompt: 'hi'\n")
    (project.cwd / "tape").mkdir()
    both = project("run", "wf.yml", "x", "--record", "tape", "--replay", "tape")
    assert both.returncode == 2
    assert both.stderr == "lait: --record and --replay cannot be used together\n"
    missing = project("run", "wf.yml", "x", "--replay", "nowhere")
    assert missing.returncode == 2 and "is not a directory" in missing.stderr


def test_no_secret_reaches_any_file_lait_writes(
    project: Lait, server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """The canary is the api_key_cmd output (sent as the bearer token), an MCP header literal and a
    ${VAR} header expansion of a server that is really connected, and OPENAI_API_KEY."""
    from tests.mcp.conftest import HttpPeer

    peer = HttpPeer()
    try:
        config = (project.cwd / "lait.config.yml").read_text().replace("http://127.0.0.1:9/mcp", peer.url)
        project.write("lait.config.yml", config)
        project.write(
            "wf.yml",
            "steps:\n  - id: ask\n    prompt: 'hi {{ input }}'\n    mcp: [remote]\n"
            "  - id: more\n    prompt: 'again'\n",
        )
        server.push(tool_calls(call("remote__echo", {"text": "x"}, id="e1")), text("done"), text("more"))
        run = project(
            "run",
            "wf.yml",
            "x",
            "--record",
            "tape",
            "--cache",
            "--trace-file",
            "t/trace.jsonl",
            "--checkpoint",
        )
        assert run.returncode == 0, run.stderr
    finally:
        peer.stop()
    assert server.requests[0].headers["authorization"] == f"Bearer {CANARY}-cmd"
    assert (project.cwd / "t" / "trace.jsonl").is_file()
    assert list((project.cwd / ".lait" / "cache").glob("*.json"))
    assert list((project.cwd / ".lait" / "runs").glob("*.json"))
    assert (Path(project.env["XDG_DATA_HOME"]) / "lait" / "history.jsonl").is_file()
    checked = assert_no_canary(project.cwd, Path(project.env["XDG_DATA_HOME"]))
    assert checked >= 3 + 3 + 1 + 1 + 1


def test_an_environment_secret_a_tool_prints_is_masked_in_the_cassette(
    project: Lait, server: ScriptedOpenAIServer
) -> None:
    """`printenv DEPLOY_TOKEN` in a shell tool: the cassette (committed with the tests) holds `***`
    where the value was, and the replay still finds its entries (the key is of the real request)."""
    secret = f"{CANARY}-deploytoken"
    project.env["DEPLOY_TOKEN"] = secret
    config = (project.cwd / "lait.config.yml").read_text()
    config = config.replace("tools:\n", "tools:\n  env:\n    command: [printenv, DEPLOY_TOKEN]\n", 1)
    project.write("lait.config.yml", config)
    project.write("wf.yml", "steps:\n  - id: ask\n    prompt: 'hi'\n    tools: [env]\n")
    server.push(tool_calls(call("tool__env", {}, id="t1")), text("done"))
    recorded = project("run", "wf.yml", "x", "--record", "tape", "--no-history")
    assert recorded.returncode == 0, recorded.stderr
    assert secret in json.dumps(server.bodies[1])  # the model really got the tool's output
    tape = sorted((project.cwd / "tape").glob("*.json"))
    assert len(tape) == 2
    for entry in tape:
        assert secret.encode() not in entry.read_bytes(), entry
    assert any(b"***" in entry.read_bytes() for entry in tape)
    server.stop()
    replayed = project("run", "wf.yml", "x", "--replay", "tape", "--no-history")
    assert (replayed.returncode, replayed.stdout) == (0, "done\n"), replayed.stderr
