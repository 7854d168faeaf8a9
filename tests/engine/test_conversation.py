"""converse(): messages, skills in the system prompt (docs/mcp.md), tool assembly order,
Structured Outputs on the final request only (docs/workflows.md), JSON parsing with fence
tolerance and the partial validator, the empty-answer rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from lait_core.documents.document_models import LlmKeys
from lait_core.engine.llm.conversation import StructuredOutputError, converse, parse_structured
from lait_core.engine.llm.llm_settings import resolve_llm_settings
from tests.engine.agent_support import make_config, open_session, system_of, tool_names, write
from tests.peers.openai_server import ScriptedOpenAIServer, call, text, tool_calls

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


async def test_plain_conversation_is_one_request(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    config = make_config(llm_server, tmp_path, default={"model": "m1", "temperature": 0.2})
    llm_server.push(text("hello", usage={"prompt_tokens": 3, "completion_tokens": 2, "total_tokens": 5}))
    async with open_session(config, tmp_path) as session:
        settings = resolve_llm_settings("chat", [], config)
        reply = await converse(session, settings, system="be brief", user="hi")
    assert reply.text == "hello" and reply.value == "hello"
    assert reply.usage.total_tokens == 5
    (body,) = llm_server.bodies
    assert body["model"] == "m1" and body["temperature"] == 0.2
    assert body["messages"] == [{"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]
    assert "tools" not in body and "response_format" not in body


async def test_skills_full_bodies_follow_the_system_prompt(
    llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    write(
        tmp_path / "skills/review/SKILL.md",
        "---\nname: code-review\ndescription: Review code.\n---\n\nLook at {{ x }}.\n",
    )
    write(tmp_path / "skills/plain.md", "Just a body.\n")
    config = make_config(
        llm_server,
        tmp_path,
        skills={"review": "skills/review", "plain": "skills/plain.md"},
        default={"model": "m", "skills": ["review", "plain"]},
    )
    llm_server.push(text("a"), text("b"))
    async with open_session(config, tmp_path) as session:
        settings = resolve_llm_settings("chat", [], config)
        await converse(session, settings, system="Base.", user="u")
        await converse(session, settings, system=None, user="u")
    blocks = "## Skill: code-review\n\nReview code.\n\nLook at {{ x }}.\n\n## Skill: plain\n\nJust a body."
    first, second = llm_server.bodies
    assert system_of(first) == "Base.\n\n---\n\n" + blocks
    assert system_of(second) == blocks
    assert "tools" not in first  # full-body skills use no tools


async def test_progressive_skills_are_tools(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    write(tmp_path / "s.md", "---\ndescription: Do S.\n---\nThe S body.")
    config = make_config(
        llm_server,
        tmp_path,
        skills={"s": "s.md"},
        default={"model": "m", "skills": ["s"], "skill_progressive_disclosure": True},
    )
    llm_server.push(tool_calls(call("skill__s", {}, id="c1")), text("done"))
    async with open_session(config, tmp_path) as session:
        reply = await converse(session, resolve_llm_settings("chat", [], config), system="Base.", user="u")
    assert reply.text == "done"
    first, second = llm_server.bodies
    assert system_of(first) == (
        "Base.\n\n---\n\n## Skill: s\n\nDo S.\n\n"
        "(Call the `skill__s` tool to read this skill's full instructions before following it.)"
    )
    assert tool_names(first) == ["skill__s"]
    assert first["tools"][0]["function"]["parameters"] == {"type": "object", "properties": {}}
    assert second["messages"][-1] == {
        "role": "tool",
        "tool_call_id": "c1",
        "content": "## Skill: s\n\nDo S.\n\nThe S body.",
    }


async def test_progressive_skill_tool_obeys_tool_policy(
    llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    write(tmp_path / "s.md", "body")
    config = make_config(
        llm_server,
        tmp_path,
        skills={"s": "s.md"},
        tool_policy={"deny": ["*"]},
        default={"model": "m", "skills": ["s"], "skill_progressive_disclosure": True},
    )
    llm_server.push(tool_calls(call("skill__s", {}, id="c1")), text("ok"))
    async with open_session(config, tmp_path) as session:
        await converse(session, resolve_llm_settings("chat", [], config), system=None, user="u")
    assert (
        llm_server.bodies[1]["messages"][-1]["content"]
        == "denied by 'tool_policy' in lait.config.yml (deny pattern '*')"
    )


async def test_tool_order_and_output_schema_on_final_request(
    llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    write(tmp_path / "agents/helper.md", "---\ndescription: Helps.\n---\nHelp.")
    write(tmp_path / "s.md", "skill body")
    config = make_config(
        llm_server,
        tmp_path,
        agents={"helper": "agents/helper.md"},
        skills={"s": "s.md"},
        tools={"echo": {"command": ["echo", "{{ input.text }}"], "description": "Echo."}},
        default={
            "model": "m",
            "tools": ["echo"],
            "subagents": ["helper"],
            "skills": ["s"],
            "skill_progressive_disclosure": True,
        },
    )
    llm_server.push(
        tool_calls(call("tool__echo", {"text": "hi there"}, id="c1")),
        text("no tools now"),
        text('```json\n{"n": 4}\n```'),
    )
    async with open_session(config, tmp_path) as session:
        reply = await converse(
            session,
            resolve_llm_settings("chat", [], config),
            system=None,
            user="u",
            output_schema=SCHEMA,
            schema_name="answer",
        )
    assert reply.value == {"n": 4}
    first, second, third = llm_server.bodies
    assert tool_names(first) == ["agent__helper", "tool__echo", "skill__s"]
    assert first["tools"][0]["function"]["description"] == "Helps."
    assert "response_format" not in first and "response_format" not in second
    assert third["response_format"] == {
        "type": "json_schema",
        "json_schema": {"name": "answer", "schema": SCHEMA, "strict": True},
    }
    assert "tools" not in third
    assert second["messages"][-1]["content"] == "hi there"
    assert third["messages"] == second["messages"]  # the tool-free answer is not appended


async def test_invalid_structured_output_is_a_clear_error(
    llm_server: ScriptedOpenAIServer, tmp_path: Path
) -> None:
    config = make_config(llm_server, tmp_path)
    llm_server.push(text("not json"), text('{"n": "four"}'))
    async with open_session(config, tmp_path) as session:
        settings = resolve_llm_settings("chat", [], config)
        with pytest.raises(StructuredOutputError, match='not valid JSON: "not json"'):
            await converse(session, settings, system=None, user="u", output_schema=SCHEMA)
        with pytest.raises(StructuredOutputError, match=r"output.n must be of type integer \(got string\)"):
            await converse(session, settings, system=None, user="u", output_schema=SCHEMA)
    assert llm_server.bodies[0]["response_format"]["json_schema"]["name"] == "structured_output"


def test_parse_structured_tolerates_one_fence() -> None:
    assert parse_structured("```\n[1, 2]\n```", {"type": "array"}) == [1, 2]
    assert parse_structured(' {"a": 1} ', {}) == {"a": 1}
    with pytest.raises(StructuredOutputError):
        parse_structured("```json\n{}\n``` trailing", {})


async def test_unknown_skill_and_bad_skill_file(llm_server: ScriptedOpenAIServer, tmp_path: Path) -> None:
    write(tmp_path / "bad.md", "---\nname: [unclosed\n---\nbody")
    config = make_config(
        llm_server, tmp_path, skills={"bad": "bad.md"}, default={"model": "m", "skills": ["nope"]}
    )
    async with open_session(config, tmp_path) as session:
        with pytest.raises(
            Exception, match=r"unknown skill 'nope'; define it under 'skills:' in lait\.config\.yml"
        ):
            await converse(session, resolve_llm_settings("chat", [], config), system=None, user="u")
        settings = resolve_llm_settings("chat", [LlmKeys(skills=["bad"])], config)
        with pytest.raises(Exception, match=r"bad\.md:3:1: YAML syntax error"):
            await converse(session, settings, system=None, user="u")
    assert llm_server.bodies == []
