"""Agents (docs/workflows.md): load_agent reference order, located errors for bad files,
the body rendered with ``input`` as the system prompt, INPUT parsed as JSON, input_schema with
the partial validator before any request, output_schema via Structured Outputs, the settings
chain layers -> frontmatter -> defaults -> config default."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.documents.document_models import InlineAgent, LlmKeys, WorkflowDefaults
from lait_core.engine.llm.chat_types import ConfigurationError
from lait_core.engine.run.agent_run import AgentError, load_agent, parse_input, run_agent
from lait_core.engine.run.interaction import HeadlessInteraction
from tests.engine.agent_support import make_config, open_session, system_of, write
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

REVIEWER = """
---
name: reviewer
model: agent-model
temperature: 0.4
input_schema:
  type: object
  properties:
    task: {type: string}
    n: {type: integer}
  required: [task]
output_schema:
  type: object
  properties:
    verdict: {type: string, enum: [ok, bad]}
  required: [verdict]
schema_name: verdict
---

  You review: {{ input.task }} ({{ json input.task }}), n={{ input.n }}.

"""


async def test_agent_file_run(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    write(tmp_path / "agents/reviewer.md", REVIEWER)
    config = make_config(llm_server, tmp_path, default={"model": "cfg", "top_p": 0.9})
    agent = load_agent("agents/reviewer.md", config=config, config_dir=tmp_path, base_dir=tmp_path)
    assert agent.name == "reviewer" and agent.path == (tmp_path / "agents/reviewer.md").resolve()
    raw = '{"task": "the diff", "n": 2}'
    llm_server.push(text('{"verdict": "ok"}'))
    async with open_session(config, tmp_path) as session:
        reply = await run_agent(session, agent, parse_input(raw), user_text=raw)
    assert reply.value == {"verdict": "ok"}
    (body,) = llm_server.bodies
    assert body["model"] == "agent-model"
    assert body["temperature"] == 0.4 and body["top_p"] == 0.9
    assert body["messages"] == [
        {"role": "system", "content": 'You review: the diff ("the diff"), n=2.'},
        {"role": "user", "content": raw},
    ]
    assert body["response_format"]["json_schema"]["name"] == "verdict"
    assert body["response_format"]["json_schema"]["strict"] is True


async def test_input_schema_fails_before_any_request(
    llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    write(tmp_path / "agents/reviewer.md", REVIEWER)
    config = make_config(llm_server, tmp_path)
    agent = load_agent("agents/reviewer.md", config=config, config_dir=tmp_path, base_dir=tmp_path)
    async with open_session(config, tmp_path) as session:
        with pytest.raises(AgentError) as info:
            await run_agent(session, agent, {"n": 1.5})
    assert str(info.value) == (
        "the input of agent 'reviewer' does not match its input_schema: input is missing required field(s): "
        "task; input.n must be of type integer (got number)"
    )
    assert llm_server.bodies == []


def test_parse_input() -> None:
    assert parse_input('{"a": [1]}') == {"a": [1]}
    assert parse_input("42") == 42
    assert parse_input("plain words") == "plain words"


async def test_registry_name_schema_file_and_layers(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    write(tmp_path / "agents/schemas/in.json", '{"type": "string"}')
    write(
        tmp_path / "agents/sum.md",
        "---\ninput_schema: {file: schemas/in.json}\nmax_tokens: 50\n---\nSum {{ input }}.",
    )
    config = make_config(llm_server, tmp_path, agents={"sum": "agents/sum.md"}, default={"model": "cfg"})
    agent = load_agent("sum", config=config, config_dir=tmp_path, base_dir=tmp_path / "elsewhere")
    assert agent.name == "sum" and agent.input_schema == {"type": "string"}
    llm_server.push(text("6"))
    async with open_session(config, tmp_path) as session:
        with pytest.raises(AgentError, match=r"input must be of type string \(got array\)"):
            await run_agent(session, agent, [1, 2, 3])
        reply = await run_agent(
            session,
            agent,
            "1 2 3",
            layers=[LlmKeys(temperature=1.5)],
            defaults=[WorkflowDefaults(model="wf-model", max_tokens=9, top_p=0.1)],
        )
    assert reply.text == "6"
    (body,) = llm_server.bodies
    assert body["model"] == "wf-model"  # step -> agent (no model) -> workflow default
    assert body["max_completion_tokens"] == 50  # the agent wins over the workflow default
    assert body["temperature"] == 1.5 and body["top_p"] == 0.1
    assert body["messages"][1] == {"role": "user", "content": "1 2 3"}  # the text form of the input


async def test_inline_agent_and_text_form_user_message(
    llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    config = make_config(llm_server, tmp_path)
    inline = {
        "helper": InlineAgent.model_validate(
            {"system": "  Items: {{#each input}}[{{ this }}]{{/each}} {{ steps.a }}\n"}
        )
    }
    agent = load_agent("helper", config=config, config_dir=tmp_path, base_dir=tmp_path, inline=inline)
    llm_server.push(text("fine"))
    async with open_session(config, tmp_path) as session:
        await run_agent(session, agent, ["x", 2], variables={"steps": {"a": {"k": 1}}})
    (body,) = llm_server.bodies
    assert system_of(body) == 'Items: [x][2] {"k":1}'
    assert body["messages"][1]["content"] == '["x",2]'


def test_reference_errors(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    config = make_config(llm_server, tmp_path)
    with pytest.raises(
        ConfigurationError, match="neither defined in this workflow's 'agents:' nor registered"
    ):
        load_agent("ghost", config=config, config_dir=tmp_path, base_dir=tmp_path, inline={})
    with pytest.raises(ConfigurationError, match="not a file and not registered under 'agents:'"):
        load_agent("ghost", config=config, config_dir=tmp_path, base_dir=tmp_path)
    with pytest.raises(ConfigurationError, match="no such file"):
        load_agent("agents/ghost.md", config=config, config_dir=tmp_path, base_dir=tmp_path)
    with pytest.raises(ConfigurationError, match="must not be empty"):
        load_agent(" ", config=config, config_dir=tmp_path, base_dir=tmp_path)
    write(tmp_path / "plain", "---\n---\nbody")
    assert (
        load_agent("plain", config=config, config_dir=tmp_path, base_dir=tmp_path, files_first=True).name
        == "plain"
    )


def test_bad_agent_files_are_located(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    config = make_config(llm_server, tmp_path)
    bad = write(tmp_path / "a.md", "---\nmodel: m\ntemperature: 9\nsystem: x\n---\nbody")
    with pytest.raises(ConfigurationError) as info:
        load_agent("a.md", config=config, config_dir=tmp_path, base_dir=tmp_path)
    message = str(info.value)
    assert f"{bad}:3:14: " in message and f"{bad}:4:1: 'system' is not a frontmatter field" in message
    write(tmp_path / "b.md", "---\n---\n\nHello {{#if}}\n")
    with pytest.raises(ConfigurationError, match=r"b\.md:4:7: "):
        load_agent("b.md", config=config, config_dir=tmp_path, base_dir=tmp_path)
    write(tmp_path / "c.md", "no frontmatter")
    with pytest.raises(ConfigurationError, match=r"c\.md:1:1: agent file must start with"):
        load_agent("c.md", config=config, config_dir=tmp_path, base_dir=tmp_path)


async def test_render_error_is_located(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    write(tmp_path / "a.md", "---\n---\nLine one\nUses {{ inputs.x }}")
    config = make_config(llm_server, tmp_path)
    agent = load_agent("a.md", config=config, config_dir=tmp_path, base_dir=tmp_path)
    async with open_session(config, tmp_path) as session:
        with pytest.raises(AgentError, match=r"a\.md:4:\d+: "):
            await run_agent(session, agent, "x")
    assert llm_server.bodies == []


async def test_model_required_names_the_agent(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    path = write(tmp_path / "a.md", "---\n---\nbody")
    config = make_config(llm_server, tmp_path, default={"model": None})
    agent = load_agent("a.md", config=config, config_dir=tmp_path, base_dir=tmp_path)
    async with open_session(config, tmp_path) as session:
        with pytest.raises(ConfigurationError) as info:
            await run_agent(session, agent, "x")
    assert str(info.value) == (
        f"model is required for agent 'a'; set 'model' in {path.resolve()} or default.model in lait.config.yml"
    )


async def test_agent_with_mcp_calls_a_real_mcp_server(
    llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    """An agent's `mcp: [peer]` offers the server's tools (qualified `peer__*`), the call reaches the
    real stdio server (tests/peers/mcp_peer.py) and the server is gone after the session closes."""
    import os
    import sys

    from lait_core.engine.run.interaction import ToolCallFinished
    from tests.engine.conftest import pid_alive

    repo = Path(__file__).resolve().parents[2]
    write(tmp_path / "calc.md", "---\nmcp: [peer]\n---\nUse the tools.")
    config = make_config(
        llm_server,
        tmp_path,
        mcp_servers={
            "peer": {"command": sys.executable, "args": ["-m", "tests.peers.mcp_peer"], "cwd": str(repo)},
            "unused": {"command": "/nonexistent/never-started"},
        },
    )
    agent = load_agent("calc.md", config=config, config_dir=tmp_path, base_dir=tmp_path)
    llm_server.push(tool_calls(call("peer__add", {"a": 2, "b": 40}, id="c1")), text("42"))
    spawned: list[int] = []
    interaction = HeadlessInteraction()
    async with open_session(config, tmp_path, interaction, on_spawn=spawned.append) as session:
        reply = await run_agent(session, agent, "add")
    assert reply.text == "42"
    first, second = llm_server.bodies
    names = [t["function"]["name"] for t in first["tools"]]
    assert "peer__add" in names and "peer__echo" in names
    assert second["messages"][-1]["tool_call_id"] == "c1"
    assert second["messages"][-1]["content"].startswith("42")  # the server's answer reached the model
    (finished,) = interaction.of_type(ToolCallFinished)
    assert finished.name == "peer__add" and not finished.is_error
    assert spawned and not any(pid_alive(pid) for pid in spawned)
    assert os.getpid() not in spawned
