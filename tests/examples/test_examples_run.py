"""The example project (examples/) runs end to end, as the README and docs/workflows.md show it,
against the scripted OpenAI-compatible server: `lait run triage` (Structured Outputs, an `ask` answered by its default, a
switch into the reviewer agent that calls the notes MCP server and the grep shell tool, a skill in
the system prompt), `lait run release` (concurrent for_each over an agent, parallel `run:` steps, an
inline agent, an until loop with break, a file written, a skipped child workflow), `lait agent run`
and the dry run of both workflows. The only change to the copy is the model URL."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.cli.conftest import EXAMPLES, Run, clean_env, run_lait
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

LOCAL_URL = "http://localhost:1234/v1"


@pytest.fixture
def server() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as s:
        yield s


@pytest.fixture
def example(tmp_path: Path, server: ScriptedOpenAIServer) -> Path:
    """A copy of examples/ whose model URL is the scripted server's."""
    root = tmp_path / "examples"
    shutil.copytree(EXAMPLES, root, ignore=shutil.ignore_patterns(".lait", "__pycache__", "release-*.md"))
    config = root / "lait.config.yml"
    original = config.read_text(encoding="utf-8")
    assert original.count(LOCAL_URL) == 2
    config.write_text(original.replace(LOCAL_URL, server.url), encoding="utf-8")
    return root


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    (tmp_path / "_xdg").mkdir()
    (tmp_path / "_home").mkdir()
    environ = clean_env(tmp_path / "_xdg", tmp_path / "_home")
    for key in list(environ):
        if key.startswith(("OPENAI_", "LLM_")):
            del environ[key]
    return environ


def lait(example: Path, env: dict[str, str], *args: str) -> Run:
    return run_lait(list(args), cwd=example, env=env, timeout=120)


def processes_in(folder: Path) -> list[int]:
    """Running processes whose working directory is ``folder`` (zombies do not count)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if Path(os.readlink(entry / "cwd")) != folder:
                continue
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        if stat[stat.rindex(")") + 2] not in "ZX":
            found.append(int(entry.name))
    return found


def names(body: dict[str, Any]) -> list[str]:
    return sorted(t["function"]["name"] for t in body.get("tools", []))


def test_triage(example: Path, env: dict[str, str], server: ScriptedOpenAIServer) -> None:
    server.push(
        text('{"kind": "bug", "summary": "crashes on start"}'),
        tool_calls(
            call("notes__add_note", {"text": "check startup"}),
            call("tool__grep", {"pattern": "Writing release notes", "path": "skills"}),
        ),
        text("I would revise it."),  # the tool-free round; then the structured re-issue (docs/workflows.md)
        text('{"verdict": "revise", "problems": ["startup path unchecked"]}'),
        text("Thanks, we are on it."),
    )
    run = lait(example, env, "run", "triage", "The app crashes on start", "--input", "repo=lait")
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"reply": "Thanks, we are on it.", "kind": "bug"}
    assert processes_in(example) == []  # the notes MCP server (cwd: the config's folder) is gone
    assert run.stderr.splitlines()[:4] == [
        "==> triage: Classify an incoming issue, ask for missing details and draft a reply.",
        "[1] classify",
        "[2] details",
        "[3] route",
    ]
    classify, review, reviewed, structured, reply = server.bodies
    assert classify["messages"] == [
        {"role": "user", "content": "Classify this issue for lait:\n\nThe app crashes on start\n"}
    ]
    assert classify["response_format"]["json_schema"]["name"] == "classification"
    assert classify["model"] == "qwen2.5-0.5b-instruct"
    assert names(review) == ["notes__add_note", "notes__list_notes", "tool__grep"]
    assert "Pay special attention to: crashes on start." in review["messages"][0]["content"]
    assert "response_format" not in review and "response_format" not in reviewed
    assert structured["response_format"]["json_schema"]["name"] == "review"
    assert "tools" not in structured
    results = {m["tool_call_id"]: m["content"] for m in reviewed["messages"] if m["role"] == "tool"}
    assert results["call_0"].startswith("noted (1 notes)")
    assert "skills/release-notes/SKILL.md:5:# Writing release notes" in results["call_1"]
    assert reply["messages"][0] == {
        "role": "system",
        "content": "## Skill: release-notes\n\nHow this project writes release notes (sections, tone, links).\n\n"
        "# Writing release notes\n\nGroup changes under **Added**, **Changed** and **Fixed**. One line per"
        " change,\nimperative mood, with the issue number at the end.",
    }
    assert (
        'Reviewer notes: {"verdict":"revise","problems":["startup path unchecked"]}.'
        in (reply["messages"][-1]["content"])
    )


def test_release(example: Path, env: dict[str, str], server: ScriptedOpenAIServer) -> None:
    server.push(
        text("Short summary."),
        text("Short summary."),
        text("Release notes draft"),
        text("Polished notes"),
        text("Approved."),
        text('{"verdict": "approve", "problems": []}'),
    )
    run = lait(
        example,
        env,
        "run",
        "workflows/release.yml",
        "--input",
        "version=1.0",
        "--input",
        'changes=["Fix crash (#12)", "Add export (#13)"]',
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout) == {"version": "1.0", "checks": {"tests": "tests: ok", "lint": "lint: ok"}}
    assert (example / "release-1.0.md").read_text(encoding="utf-8") == "Polished notes"
    assert run.stderr.splitlines()[-5:] == [
        "[6] step-9 (agent)",
        "[7] step-10 (break)",
        "[8] step-11 (write)",
        "[9] step-12 (workflow) (skipped)",
        "[10] done",
    ]
    summaries = sorted(b["messages"][1]["content"] for b in server.bodies[:2])
    assert summaries == ["Add export (#13)", "Fix crash (#12)"]
    notes = server.bodies[2]
    assert "- Short summary.\n- Short summary.\n" in notes["messages"][-1]["content"]
    assert "## Skill: release-notes" in notes["messages"][0]["content"]
    editor = server.bodies[3]
    assert editor["messages"][0] == {
        "role": "system",
        "content": "You edit release notes for clarity. Keep every issue number.",
    }
    assert editor["temperature"] == 0.3
    assert names(server.bodies[4]) == ["notes__add_note", "notes__list_notes", "tool__grep"]
    assert server.bodies[5]["response_format"]["json_schema"]["name"] == "review"


def test_agent_run(example: Path, env: dict[str, str], server: ScriptedOpenAIServer) -> None:
    server.push(text("Drei Sätze."))
    run = lait(example, env, "agent", "run", "summarizer", "Ein langer Text über lait.")
    assert (run.returncode, run.stdout) == (0, "Drei Sätze.\n"), run.stderr
    body = server.bodies[0]
    assert body["max_completion_tokens"] == 300
    assert body["temperature"] == 0.2
    assert body["messages"][1] == {"role": "user", "content": "Ein langer Text über lait."}


def test_dry_runs_call_nothing(example: Path, env: dict[str, str], server: ScriptedOpenAIServer) -> None:
    triage = lait(example, env, "run", "triage", "x", "--input", "repo=lait", "--dry-run")
    assert triage.returncode == 0, triage.stderr
    assert f"    model: qwen2.5-0.5b-instruct @ {server.url}" in triage.stdout.splitlines()
    release = lait(
        example, env, "run", "release", "--input", "version=2", "--input", "changes=[]", "--dry-run"
    )
    assert release.returncode == 0, release.stderr
    assert (
        "    workflow: ./triage.yml (not expanded; run 'lait run --dry-run' on it directly)" in release.stdout
    )
    assert server.requests == []
