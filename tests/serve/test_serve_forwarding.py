"""A served agent's person-facing parts reach the calling client: an inner MCP server's
elicitation (`allow_elicitation: true`) and, with `serve.approvals: elicit`, the approval of each
tool call -- in both eras, over stdio. The model is the scripted OpenAI-compatible server."""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from lait_core.engine.run.interaction import ElicitationResult
from lait_core.engine.tools.mcp_tools import McpPool
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls
from tests.serve.conftest import LIMITS, REPO, Driver, Person, serve_env, stdio_config

AGENT = """---
name: noter
description: Saves notes
model: scripted-model
mcp: [notes]
---
Save what you are given.
"""


@pytest.fixture
def llm() -> Iterator[ScriptedOpenAIServer]:
    with ScriptedOpenAIServer() as server:
        yield server


def _project(root: Path, llm: ScriptedOpenAIServer, approvals: bool) -> Path:
    root.mkdir()
    config: dict[str, object] = {
        "base_url": llm.url,
        "agents": {"noter": "noter.md"},
        "mcp_servers": {
            "notes": {
                "command": sys.executable,
                "args": ["-m", "tests.peers.mcp_elicit_server"],
                "cwd": str(REPO),
                "env": {"PYTHONPATH": str(REPO)},
                "allow_elicitation": True,
            }
        },
    }
    if approvals:
        config["serve"] = {"approvals": "elicit"}
    (root / "lait.config.yml").write_text(json.dumps(config), encoding="utf-8")
    (root / "noter.md").write_text(AGENT, encoding="utf-8")
    return root


@pytest.fixture
async def make_driver(tmp_path: Path, marker: str, era: str) -> AsyncIterator[object]:
    pools: list[McpPool] = []

    def make(project: Path) -> Driver:
        pool = McpPool(
            {"lait": stdio_config(project, serve_env(tmp_path, marker))}, base_dir=project, limits=LIMITS
        )
        pools.append(pool)
        return Driver(pool)

    try:
        yield make
    finally:
        for pool in pools:
            await pool.aclose()


async def test_inner_elicitation_reaches_the_client(
    tmp_path: Path, llm: ScriptedOpenAIServer, make_driver: object
) -> None:
    driver = make_driver(_project(tmp_path / "p", llm, approvals=False))  # type: ignore[operator]
    llm.push(tool_calls(call("notes__save_note", {"text": "hello"})), text("done"))
    person = Person(ElicitationResult("accept", {"title": "T", "priority": 2}))
    result = await driver.call("agent__noter", {"input": "hello"}, person)
    assert (result.text, result.is_error) == ("done", False)
    (asked,) = person.asked
    assert asked.requested_schema is not None and "priority" in asked.requested_schema["properties"]
    tool_message = llm.bodies[1]["messages"][-1]
    assert tool_message["role"] == "tool" and tool_message["content"].startswith(
        "saved 'T' (priority 2): hello\n"
    )


async def test_approvals_are_asked_when_configured(
    tmp_path: Path, llm: ScriptedOpenAIServer, make_driver: object
) -> None:
    driver = make_driver(_project(tmp_path / "p", llm, approvals=True))  # type: ignore[operator]
    llm.push(
        tool_calls(call("notes__save_note", {"text": "one"})),
        tool_calls(call("notes__save_note", {"text": "two"})),
        text("finished"),
    )
    person = Person(
        ElicitationResult("accept", {"decision": "once"}),
        ElicitationResult("accept", {"title": "A", "priority": 1}),
        ElicitationResult("accept", {"decision": "deny"}),
    )
    result = await driver.call("agent__noter", {"input": "notes"}, person)
    assert (result.text, result.is_error) == ("finished", False)
    first, _details, second = person.asked
    assert first.message.startswith("Allow the tool call notes__save_note?")
    assert first.requested_schema is not None
    assert first.requested_schema["properties"]["decision"]["enum"] == ["once", "session", "deny"]
    assert second.message.startswith("Allow the tool call notes__save_note?")
    assert llm.bodies[1]["messages"][-1]["content"].startswith("saved 'A' (priority 1): one\n")
    assert llm.bodies[2]["messages"][-1]["content"] == "denied by the person at the MCP client"


async def test_record_replay_and_trace_file(tmp_path: Path, llm: ScriptedOpenAIServer, marker: str) -> None:
    """--record/--replay apply to every call; --trace-file holds every call's events, renumbered
    into one seq and tagged with the served tool."""
    from lait_core.documents.document_models import McpServerConfig

    root = tmp_path / "p"
    root.mkdir()
    config = {"base_url": llm.url, "agents": {"plain": "plain.md"}}
    (root / "lait.config.yml").write_text(json.dumps(config), encoding="utf-8")
    (root / "plain.md").write_text("---\nmodel: scripted-model\n---\nAnswer.\n", encoding="utf-8")
    tapes, trace = tmp_path / "tapes", tmp_path / "trace.jsonl"
    env = serve_env(tmp_path, marker)

    async def two_calls(*flags: str) -> list[str]:
        server = McpServerConfig(
            command=sys.executable,
            args=["-m", "lait_cli.main", "serve", "--mcp", *flags],
            cwd=str(root),
            env={k: env[k] for k in ("PYTHONPATH", "LAIT_TEST_MARKER", "XDG_CONFIG_HOME")},
        )
        driver = Driver(McpPool({"lait": server}, base_dir=root, limits=LIMITS))
        try:
            return [(await driver.call("agent__plain", {"input": q})).text for q in ("one", "two")]
        finally:
            await driver.pool.aclose()

    llm.push(text("first"), text("second"))
    assert await two_calls("--record", str(tapes), "--trace-file", str(trace)) == ["first", "second"]
    assert len(list(tapes.glob("*.json"))) == 2
    events = [json.loads(line) for line in trace.read_text().splitlines()]
    assert [e["seq"] for e in events] == list(range(len(events))) and len(events) >= 2
    assert {e["attributes"]["lait.serve.tool"] for e in events} == {"agent__plain"}
    before = len(llm.bodies)
    assert await two_calls("--replay", str(tapes)) == ["first", "second"]
    assert len(llm.bodies) == before  # nothing reached the model
