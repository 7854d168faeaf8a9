"""Subagents as agent__<name> tools (docs/mcp.md): both
parameter shapes, the subagent's own settings (frontmatter -> config default only), nested
subagents through the same session, cycles by canonical path, the depth limit of 16, unknown
names and missing `input`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lait_core.engine.llm.chat_types import ToolArgumentsError, ToolNameError
from lait_core.engine.llm.conversation import converse
from lait_core.engine.llm.llm_settings import resolve_llm_settings
from lait_core.engine.run.agent_run import load_agent, run_agent
from lait_core.engine.tools.subagent import MAX_DEPTH, SubagentError
from tests.engine.agent_support import make_config, open_session, system_of, tool_names, write
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls


async def test_generic_input_shape_and_own_settings(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    write(tmp_path / "agents/researcher.md", "---\nmodel: sub-model\n---\nResearch {{ input.topic }}.")
    config = make_config(
        llm_server,
        tmp_path,
        agents={"researcher": "agents/researcher.md"},
        default={"model": "cfg-model", "temperature": 0.3, "subagents": ["researcher"]},
    )
    usage = {"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}
    llm_server.push(
        tool_calls(call("agent__researcher", {"input": {"topic": "owls"}}, id="c1"), usage=usage),
        text("owls are birds", usage=usage),
        text("final", usage=usage),
    )
    async with open_session(config, tmp_path) as session:
        settings = resolve_llm_settings("chat", [], config, base_url_override=llm_server.url)
        reply = await converse(session, settings, system=None, user="tell me")
    assert reply.text == "final"
    assert reply.usage.total_tokens == 33  # the subagent's request counts too
    assert reply.loop.usage.total_tokens == 22
    parent, child, parent2 = llm_server.bodies
    assert tool_names(parent) == ["agent__researcher"]
    tool = parent["tools"][0]["function"]
    assert tool["description"] == "Runs the 'researcher' subagent for a delegated task."
    assert tool["parameters"]["required"] == ["input"]
    assert child["model"] == "sub-model" and child["temperature"] == 0.3
    assert child["messages"] == [
        {"role": "system", "content": "Research owls."},
        {"role": "user", "content": '{"topic":"owls"}'},
    ]
    assert tool_names(child) == ["agent__researcher"]  # config default.subagents applies to it too
    assert parent2["messages"][-1] == {"role": "tool", "tool_call_id": "c1", "content": "owls are birds"}


async def test_input_schema_parameters_and_string_input(
    llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    schema = {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}
    write(
        tmp_path / "a/typed.md",
        f"---\ndescription: Typed.\ninput_schema: {json.dumps(schema)}\n---\nQ={{{{ input.q }}}}",
    )
    write(tmp_path / "a/free.md", "---\n---\nFree: {{ input }}")
    config = make_config(
        llm_server,
        tmp_path,
        agents={"typed": "a/typed.md", "free": "a/free.md"},
        default={"model": "m", "subagents": ["typed", "free"]},
    )
    llm_server.push(
        tool_calls(
            call("agent__typed", {"q": "why"}, id="c1"), call("agent__free", {"input": "raw text"}, id="c2")
        ),
        text("typed answer"),
        text("free answer"),
        text("done"),
    )
    async with open_session(config, tmp_path) as session:
        await converse(session, resolve_llm_settings("chat", [], config), system=None, user="go")
    bodies = llm_server.bodies
    first = bodies[0]
    assert first["tools"][0]["function"]["parameters"] == schema
    assert first["tools"][0]["function"]["description"] == "Typed."
    children = {system_of(b): b["messages"][1]["content"] for b in bodies[1:3]}
    assert children == {"Q=why": '{"q":"why"}', "Free: raw text": "raw text"}
    tool_results = [m["content"] for m in bodies[3]["messages"] if m["role"] == "tool"]
    assert sorted(tool_results) == ["free answer", "typed answer"]


async def test_nested_subagents_and_cycle(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    write(tmp_path / "a.md", "---\nsubagents: [b]\n---\nI am A")
    write(tmp_path / "b.md", "---\nsubagents: [a]\n---\nI am B")
    config = make_config(llm_server, tmp_path, agents={"a": "a.md", "b": "b.md"})
    agent = load_agent("a", config=config, config_dir=tmp_path, base_dir=tmp_path)
    llm_server.push(
        tool_calls(call("agent__b", {"input": "x"}, id="c1")),  # A calls B
        tool_calls(call("agent__a", {"input": "y"}, id="c2")),  # B calls A: a cycle
    )
    async with open_session(config, tmp_path) as session:
        with pytest.raises(SubagentError) as info:
            await run_agent(session, agent, "start")
    a, b = (tmp_path / "a.md").resolve(), (tmp_path / "b.md").resolve()
    assert str(info.value) == f"subagent cycle: {a} -> {b} -> {a}"
    assert [system_of(x) for x in llm_server.bodies] == ["I am A", "I am B"]


async def test_cycle_through_a_symlinked_path(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    """The cycle check compares canonical paths: `alias` is a.md reached through a symlink."""
    write(tmp_path / "a.md", "---\nsubagents: [b]\n---\nI am A")
    write(tmp_path / "b.md", "---\nsubagents: [alias]\n---\nI am B")
    (tmp_path / "link").symlink_to(tmp_path, target_is_directory=True)
    config = make_config(llm_server, tmp_path, agents={"a": "a.md", "b": "b.md", "alias": "link/a.md"})
    agent = load_agent("a", config=config, config_dir=tmp_path, base_dir=tmp_path)
    llm_server.push(
        tool_calls(call("agent__b", {"input": "x"}, id="c1")),
        tool_calls(call("agent__alias", {"input": "y"}, id="c2")),
    )
    async with open_session(config, tmp_path) as session:
        with pytest.raises(SubagentError) as info:
            await run_agent(session, agent, "start")
    a, b = (tmp_path / "a.md").resolve(), (tmp_path / "b.md").resolve()
    assert str(info.value) == f"subagent cycle: {a} -> {b} -> {a}"
    assert len(llm_server.bodies) == 2


async def test_depth_limit(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    names = [f"d{i}" for i in range(MAX_DEPTH + 2)]
    for i, name in enumerate(names[:-1]):
        write(tmp_path / f"{name}.md", f"---\nsubagents: [{names[i + 1]}]\n---\n{name}")
    write(tmp_path / f"{names[-1]}.md", "---\n---\nleaf")
    config = make_config(llm_server, tmp_path, agents={n: f"{n}.md" for n in names})
    agent = load_agent("d0", config=config, config_dir=tmp_path, base_dir=tmp_path)
    for i in range(MAX_DEPTH + 1):
        llm_server.push(tool_calls(call(f"agent__{names[i + 1]}", {"input": "go"}, id=f"c{i}")))
    async with open_session(config, tmp_path) as session:
        with pytest.raises(
            SubagentError, match=f"would nest {MAX_DEPTH + 1} levels deep; at most {MAX_DEPTH}"
        ):
            await run_agent(session, agent, "start")
    # d0 (depth 0) .. d16 (depth 16) each sent one request; d17 would be depth 17
    assert len(llm_server.bodies) == MAX_DEPTH + 1
    assert system_of(llm_server.bodies[-1]) == f"d{MAX_DEPTH}"


async def test_unknown_subagent_and_missing_input(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    write(tmp_path / "free.md", "---\n---\nfree")
    config = make_config(
        llm_server, tmp_path, agents={"free": "free.md"}, default={"model": "m", "subagents": ["nope"]}
    )
    async with open_session(config, tmp_path) as session:
        with pytest.raises(ToolNameError, match="unknown subagent 'nope'; define it under 'agents:'"):
            await converse(session, resolve_llm_settings("chat", [], config), system=None, user="x")
        assert llm_server.bodies == []
        llm_server.push(tool_calls(call("agent__free", {"task": "x"}, id="c1")))
        settings = resolve_llm_settings(
            "chat",
            [],
            config.model_copy(update={"default": config.default.model_copy(update={"subagents": ["free"]})}),
        )
        with pytest.raises(ToolArgumentsError, match="without the required 'input' argument"):
            await converse(session, settings, system=None, user="x")


async def test_subagent_input_schema_violation_aborts(
    llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    write(
        tmp_path / "typed.md", "---\ninput_schema: {type: object, properties: {n: {type: integer}}}\n---\nN"
    )
    config = make_config(
        llm_server, tmp_path, agents={"typed": "typed.md"}, default={"model": "m", "subagents": ["typed"]}
    )
    llm_server.push(tool_calls(call("agent__typed", {"n": "three"}, id="c1")))
    async with open_session(config, tmp_path) as session:
        with pytest.raises(
            Exception, match=r"input of agent 'typed' does not match its input_schema: input.n must be"
        ):
            await converse(session, resolve_llm_settings("chat", [], config), system=None, user="x")
    assert len(llm_server.bodies) == 1  # the subagent sent nothing
