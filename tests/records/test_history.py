"""History (docs/workflows.md, issue 13): appended only on success, for chat, agent and
workflow runs; `--no-history` and `default.history: false` turn it off; list/show/search with
their filters; 8 concurrent processes append without corrupting the file."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.cli.conftest import Lait
from tests.peers.openai_server import ScriptedOpenAIServer, error, text


def history_file(project: Lait) -> Path:
    return Path(project.env["XDG_DATA_HOME"]) / "lait" / "history.jsonl"


def entries(project: Lait) -> list[dict[str, object]]:
    path = history_file(project)
    return [json.loads(x) for x in path.read_text().splitlines()] if path.exists() else []


def test_runs_are_recorded_and_listed_newest_first(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", "steps:\n  - prompt: 'hi {{ input }}'\n")
    project.write("agent.md", "---\nname: helper\n---\nYou help.\n")
    usage = {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4}
    server.push(text("workflow answer", usage=usage), text("chat answer", usage=usage), text("agent answer"))
    assert project("run", "wf.yml", "first   prompt\nwith lines").returncode == 0
    assert project("what is   up").returncode == 0
    assert project("agent", "run", "agent.md", "do it").returncode == 0
    server.push(error(400))
    assert project("failing prompt").returncode == 4
    got = entries(project)
    assert [e["kind"] for e in got] == ["workflow", "chat", "agent"]
    assert got[0]["model"] is None and got[1]["model"] == "main" and got[2]["model"] == "main"
    assert got[1]["usage"] == usage and got[0]["response"] == "workflow answer"
    assert list(got[1]) == ["timestamp", "kind", "model", "prompt", "response", "usage"]
    listed = project("history").stdout.splitlines()
    assert [line.split("\t")[0] for line in listed] == ["1", "2", "3"]
    assert listed[0].split("\t")[2:] == ["agent", "main", "do it"]
    assert listed[2].split("\t")[2:] == ["workflow", "-", "first prompt with lines"]
    assert project("history", "list", "--limit", "1").stdout.splitlines() == listed[:1]
    assert project("history", "--kind", "chat").stdout.splitlines() == [listed[1]]
    assert project("history", "list", "--model", "mai").stdout.splitlines() == listed[:2]
    assert project("history", "search", "WORKFLOW ANSWER").stdout.splitlines() == [listed[2]]
    assert project(
        "history", "--kind", "agent", "search", "answer", "--kind", "chat"
    ).stdout.splitlines() == [listed[1]]
    assert project("history", "list", "--since", "1h").stdout.splitlines() == listed
    assert project("history", "list", "--since", "2999-01-01").stdout == ""
    bad = project("history", "list", "--since", "yesterday")
    assert bad.returncode == 2 and "invalid --since 'yesterday'" in bad.stderr
    shown = project("history", "show", "2").stdout
    assert (
        shown.startswith("timestamp: ")
        and "\nkind: chat\nmodel: main\nusage: prompt=3 completion=1 total=4\n" in shown
    )
    assert shown.endswith("\n\nprompt:\nwhat is   up\n\nresponse:\nchat answer\n")
    as_json = json.loads(project("history", "show", "3", "--json").stdout)
    assert as_json["number"] == 3 and as_json["kind"] == "workflow"
    zero = project("history", "show", "0")
    assert zero.returncode == 2
    assert project("history", "show", "9").returncode == 1


def test_previews_are_cut_at_60_characters(project: Lait, server: ScriptedOpenAIServer) -> None:
    server.push(text("ok"))
    project("x" * 70)
    (line,) = project("history").stdout.splitlines()
    assert line.split("\t")[4] == "x" * 60 + "..."


def test_no_history_and_default_history_false(project: Lait, server: ScriptedOpenAIServer) -> None:
    project.write("wf.yml", "steps:\n  - prompt: 'hi'\n")
    server.push(text("a"), text("b"), text("c"))
    assert project("run", "wf.yml", "x", "--no-history").returncode == 0
    assert project("--no-history", "hello").returncode == 0
    config = project.cwd / "lait.config.yml"
    project.write("lait.config.yml", config.read_text().replace("default:\n", "default:\n  history: false\n"))
    assert project("run", "wf.yml", "x").returncode == 0
    assert entries(project) == []
    assert project("history").stdout == ""


def test_eight_processes_append_at_once(tmp_path: Path) -> None:
    path = tmp_path / "h" / "history.jsonl"
    code = (
        "import sys\nfrom pathlib import Path\nfrom lait_core.engine.records import run_history as history\n"
        f"p = Path({str(path)!r})\n"
        "for i in range(150):\n"
        "    history.append(p, history.entry('chat', 'm', sys.argv[1] + ':' + str(i), 'r' * 5000, None))\n"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, f"p{n}"]) for n in range(8)]
    assert [p.wait() for p in procs] == [0] * 8
    lines = path.read_text().splitlines()
    assert len(lines) == 8 * 150
    prompts = {json.loads(line)["prompt"] for line in lines}
    assert prompts == {f"p{n}:{i}" for n in range(8) for i in range(150)}
    for n in range(8):  # each process's entries in its own order
        own = [json.loads(x)["prompt"] for x in lines if json.loads(x)["prompt"].startswith(f"p{n}:")]
        assert own == [f"p{n}:{i}" for i in range(150)]
